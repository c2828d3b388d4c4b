"""iCalendar (RFC 5545) text of a list of events, written by hand (no pinned library does it).

In: :class:`Event` values (a stable UID, an aware start, a summary, optionally a
description and a URL), the calendar's name, the time zone the events are in and the
instant it is written (every event's ``DTSTAMP``, in UTC). Out: one ``VCALENDAR`` with a
``VTIMEZONE`` of that zone and a ``VEVENT`` per event: lines end in CRLF, content lines
longer than 75 octets are folded (a CRLF and a space, never inside a UTF-8 character),
text values are escaped (backslash, semicolon, comma, newline), each start is the zone's
wall-clock time (``DTSTART;TZID=Europe/Berlin:20260601T000000``). The ``VTIMEZONE``
(:func:`timezone_lines`) is derived from the zone database: an observance at the first
event and one per change of UTC offset up to the last (no recurrence rule to get wrong),
so a calendar shows a deadline at midnight in the federation's zone whatever its own.
Pure Python: no Django.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

LINE_OCTETS = 75
CRLF = "\r\n"


@dataclass(frozen=True, slots=True)
class Event:
    uid: str
    start: dt.datetime
    """Aware; an instant (the event has no duration)."""
    summary: str
    description: str = ""
    url: str = ""


def escape_text(value: str) -> str:
    """A TEXT value (RFC 5545 3.3.11): backslash, semicolon, comma and newline escaped."""
    value = value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
    return value.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n")


def utc_stamp(instant: dt.datetime) -> str:
    """A DATE-TIME in UTC (form 2): ``20260531T220000Z``."""
    if instant.tzinfo is None:
        raise ValueError("an iCalendar time must be aware")
    return instant.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%SZ")


def fold(line: str) -> str:
    """One content line folded at :data:`LINE_OCTETS` octets (RFC 5545 3.1): each piece
    after the first starts with a space, which counts in its 75."""
    data = line.encode("utf-8")
    pieces: list[bytes] = []
    start, room = 0, LINE_OCTETS
    while len(data) - start > room:
        end = start + room
        while end > start and (data[end] & 0xC0) == 0x80:  # not inside a character
            end -= 1
        pieces.append(data[start:end])
        start, room = end, LINE_OCTETS - 1
    pieces.append(data[start:])
    return (CRLF + " ").join(piece.decode("utf-8") for piece in pieces)


def local_stamp(instant: dt.datetime, tz: ZoneInfo) -> str:
    """A DATE-TIME as the zone's wall clock shows it (form 3, with ``TZID``)."""
    return instant.astimezone(tz).strftime("%Y%m%dT%H%M%S")


def _offset(value: dt.timedelta) -> str:
    minutes = int(value.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"


def _changes(tz: ZoneInfo, start: dt.datetime, end: dt.datetime) -> list[dt.datetime]:
    """The instants (UTC, to the minute) in [start, end] at which the zone's offset changes:
    a day's steps, then halving the day that holds a change."""
    found = []
    step = dt.timedelta(days=1)
    low = start.astimezone(dt.UTC)
    while low < end:
        high = min(low + step, end.astimezone(dt.UTC))
        if low.astimezone(tz).utcoffset() != high.astimezone(tz).utcoffset():
            a, b = low, high
            while b - a > dt.timedelta(minutes=1):
                middle = a + (b - a) / 2
                if a.astimezone(tz).utcoffset() == middle.astimezone(tz).utcoffset():
                    a = middle
                else:
                    b = middle
            found.append(b.replace(second=0, microsecond=0))
        low = high
    return found


def _observance(tz: ZoneInfo, at: dt.datetime, before: dt.timedelta) -> list[str]:
    local = at.astimezone(tz)
    kind = "DAYLIGHT" if local.dst() else "STANDARD"
    after = local.utcoffset() or dt.timedelta(0)
    return [
        f"BEGIN:{kind}",
        f"DTSTART:{(at.astimezone(dt.UTC) + before).strftime('%Y%m%dT%H%M%S')}",
        f"TZOFFSETFROM:{_offset(before)}",
        f"TZOFFSETTO:{_offset(after)}",
        f"TZNAME:{escape_text(local.tzname() or str(tz))}",
        f"END:{kind}",
    ]


def timezone_lines(tz: ZoneInfo, start: dt.datetime, end: dt.datetime) -> list[str]:
    """The ``VTIMEZONE`` of ``tz`` from ``start`` to ``end``: the offset in force at
    ``start``, then each change (its ``DTSTART`` the wall-clock time before the change,
    as RFC 5545 3.6.5 has it)."""
    first = start.astimezone(tz).utcoffset() or dt.timedelta(0)
    lines = ["BEGIN:VTIMEZONE", f"TZID:{tz.key}", *_observance(tz, start, first)]
    for change in _changes(tz, start, end):
        before = (change - dt.timedelta(minutes=1)).astimezone(tz).utcoffset()
        lines.extend(_observance(tz, change, before or dt.timedelta(0)))
    lines.append("END:VTIMEZONE")
    return lines


def _event_lines(event: Event, stamp: str, tz: ZoneInfo) -> Iterable[str]:
    yield "BEGIN:VEVENT"
    yield f"UID:{escape_text(event.uid)}"
    yield f"DTSTAMP:{stamp}"
    yield f"DTSTART;TZID={tz.key}:{local_stamp(event.start, tz)}"
    yield f"SUMMARY:{escape_text(event.summary)}"
    if event.description:
        yield f"DESCRIPTION:{escape_text(event.description)}"
    if event.url:
        yield f"URL:{event.url}"
    yield "TRANSP:TRANSPARENT"
    yield "END:VEVENT"


def calendar(
    events: Sequence[Event],
    *,
    name: str,
    tz: ZoneInfo,
    stamp: dt.datetime,
    product: str = "-//FIDO//World ranking cycle//EN",
) -> str:
    """The ``VCALENDAR`` of ``events``, every line folded and ended with CRLF."""
    written = utc_stamp(stamp)
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:{product}",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{escape_text(name)}",
        f"X-WR-TIMEZONE:{tz.key}",
    ]
    if events:
        starts = [event.start for event in events]
        lines.extend(timezone_lines(tz, min(starts), max(starts)))
    for event in events:
        lines.extend(_event_lines(event, written, tz))
    lines.append("END:VCALENDAR")
    return "".join(fold(line) + CRLF for line in lines)
