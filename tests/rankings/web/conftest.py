"""Fixtures of the public page tests: published lists built straight with the models (so
these tests do not depend on the close service), a fixed clock, and page readers."""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from html import unescape

import pytest
from django.test import Client

from matches.audit import recording
from matches.models import Player
from matches.months import Month
from rankings.models import CurrentList, RankingEntry, RankingList
from tests.clock import BERLIN

NOW = dt.datetime(2026, 5, 10, 12, 0, tzinfo=BERLIN)

# (player, rank, FLADUB cents, results counted, previous rank or None)
Row = tuple[Player, int, int, int, int | None]
ROW_FIELDS = ("player", "rank", "fladub_cents", "results_counted", "previous_rank")


def publish(
    month: str,
    rows: Sequence[Row],
    *,
    discipline: str = "fido",
    current: bool = True,
    published_at: dt.datetime | None = None,
    version: int = 1,
) -> RankingList:
    """A published list L(month) with the given entries (and the current pointer on it).

    The list is written as ``computing`` and then flipped to ``published``, as the service
    does: published lists refuse changes to their entries (a trigger on PostgreSQL). Like
    the writer, it stores the entries in list order (rank, then federation id). A
    ``version`` above 1 is an erratum: the month's published list turns superseded.
    """
    rows = sorted(rows, key=lambda row: (row[1], row[0].player_id))
    day = Month.parse(month).first_day
    at = published_at or dt.datetime(day.year, day.month, 1, 0, 5, tzinfo=BERLIN) + dt.timedelta(
        days=32
    )
    with recording():
        ranking_list = RankingList.objects.create(
            discipline=discipline, month=day, version=version, entry_count=len(rows), created_at=at
        )
    RankingEntry.objects.bulk_create(
        [
            RankingEntry(
                ranking_list=ranking_list,
                movement=None if row[4] is None else row[4] - row[1],
                **dict(zip(ROW_FIELDS, row, strict=True)),
            )
            for row in rows
        ]
    )
    RankingList.objects.filter(discipline=discipline, month=day, status="published").update(
        status=RankingList.Status.SUPERSEDED
    )
    RankingList.objects.filter(pk=ranking_list.pk).update(
        status=RankingList.Status.PUBLISHED, published_at=at, edition=version
    )
    ranking_list.refresh_from_db()
    if current:
        CurrentList.objects.update_or_create(
            discipline=discipline, defaults={"ranking_list": ranking_list, "updated_at": at}
        )
    return ranking_list


def text(html: str) -> str:
    """What a reader reads: tags dropped, entities decoded, white space collapsed."""
    words = " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())
    return re.sub(r" ([,.;:])(?=\s|$)", r"\1", words)


def page_text(client: Client, url: str) -> str:
    """The text of the page at ``url`` (which must answer 200)."""
    response = client.get(url)
    assert response.status_code == 200
    return text(response.content.decode())


def visible_text(html: str) -> str:
    """The text a sighted reader sees on a wide screen: screen-reader-only text and the
    repeats shown on narrow screens only are dropped."""
    html = re.sub(r'<span class="(visually-hidden|narrow-only)">.*?</span>', " ", html, flags=re.S)
    return text(html)


def table_rows(html: str, table_class: str, cells: str = "t[hd]") -> list[list[str]]:
    """The cells (``<th>`` and ``<td>``, or as ``cells`` says) of the body of the table of
    class ``table_class``, as visible text, row by row."""
    body = re.search(rf'<table class="{table_class}">.*?<tbody>(.*?)</tbody>', html, re.S)
    assert body, f"no {table_class} table"
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body.group(1), re.S)
    return [
        [visible_text(cell) for cell in re.findall(rf"<{cells}[^>]*>(.*?)</{cells}>", row, re.S)]
        for row in rows
    ]


def ranking_rows(html: str) -> list[list[str]]:
    """The ranking table's rows: rank, movement, player (name and id), country, club,
    FLADUB, results counted."""
    return table_rows(html, "ranking")


def results_rows(html: str) -> list[list[str]]:
    """The player page's counting results: date, club, category, table, points, weight
    now, weighted, weight next month, best 20."""
    return table_rows(html, "results", cells="td")


def parse_xml(data: str | bytes) -> ET.Element:
    """Our own pages' SVG and Atom, parsed strictly (a malformed document fails the test)."""
    return ET.fromstring(data)  # noqa: S314 - the service's own output, not untrusted input


def svg_elements(html: str) -> list[ET.Element]:
    """Every inline <svg> of a page, parsed as XML (fails if one is not well-formed)."""
    return [parse_xml(svg) for svg in re.findall(r"<svg\b.*?</svg>", html, re.S)]


@pytest.fixture
def fixed_now(set_now: Callable[[dt.datetime], None]) -> dt.datetime:
    set_now(NOW)
    return NOW
