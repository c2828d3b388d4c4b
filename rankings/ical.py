"""iCalendar (RFC 5545) text of a list of events, written by hand (no pinned library does it).

In: :class:`Event` values (a stable UID, an aware start, a summary, optionally a
description and a URL), the calendar's name, the time zone it is about and the instant it
is written (every event's ``DTSTAMP``). Out: one ``VCALENDAR`` with a ``VEVENT`` per event:
lines end in CRLF, content lines longer than 75 octets are folded (a CRLF and a space,
never inside a UTF-8 character), text values are escaped (backslash, semicolon, comma,
newline), times are written in UTC (``...Z``), so no ``VTIMEZONE`` is needed; the
federation's zone is named in ``X-WR-TIMEZONE`` for the calendars that show it. Pure
Python: no Django.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

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


def _event_lines(event: Event, stamp: str) -> Iterable[str]:
    yield "BEGIN:VEVENT"
    yield f"UID:{escape_text(event.uid)}"
    yield f"DTSTAMP:{stamp}"
    yield f"DTSTART:{utc_stamp(event.start)}"
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
    timezone_name: str,
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
        f"X-WR-TIMEZONE:{timezone_name}",
    ]
    for event in events:
        lines.extend(_event_lines(event, written))
    lines.append("END:VCALENDAR")
    return "".join(fold(line) + CRLF for line in lines)
