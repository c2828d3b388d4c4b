"""The pages and the API show the same numbers for the same player and list.

Every number both a page and the JSON API show: a player's FLADUB, rank and movement (the
ranking page's table, whole and filtered, current and archived, and the player page's
standing), and each counting result's points, weight and weighted points (the player page's
table and ``.../players/{id}/results``). The HTML is parsed as a reader sees it and
compared with the API's JSON, on lists the real close computed from random results (late
ones, voids, team games, ties), so that the numbers are not ones a test wrote down.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client

from matches.models import Player
from matches.months import Month
from tests.matches.factories import ClubFactory, PlayerFactory
from tests.rankings.factories import close, random_results, submit_table

from .conftest import ranking_rows, results_rows, visible_text

pytestmark = pytest.mark.django_db

MONTHS = [Month(2025, 10) + i for i in range(7)]  # 2025-10 .. 2026-04
CLOSED = MONTHS[:6]  # .. 2026-03: the current list is L(2026-03)
ARCHIVED = MONTHS[3]


@pytest.fixture
def lists() -> list[Player]:
    random_results(seed=5, matches=160, players=45, months=MONTHS)
    # Two newcomers in the last closed month: new on the current list.
    club = ClubFactory(country="DE")
    first, second = PlayerFactory(club=club, country="DE"), PlayerFactory(club=club)
    submit_table(club, [([first], 9), ([second], 2)], id="n1", date=f"{CLOSED[-1]}-11")
    for month in CLOSED:
        close(month)
    return list(Player.objects.order_by("player_id"))


def movement_words(entry: dict[str, Any]) -> str:
    """What the page shows for an API entry's movement."""
    if entry["previous_rank"] is None:
        return "new"
    moved = entry["movement"]
    return "—" if moved == 0 else f"▲ {moved}" if moved > 0 else f"▼ {-moved}"


def api_entries(client: Client, url: str, **filters: str) -> list[dict[str, Any]]:
    body = client.get(url, {"page_size": 500, **filters}).json()
    assert body["count"] == len(body["results"])
    return body["results"]


def page_entries(client: Client, url: str) -> list[list[str]]:
    """Every row of the ranking table, following the pager to the end."""
    rows: list[list[str]] = []
    while url:
        html = client.get(url).content.decode()
        rows += ranking_rows(html)
        following = re.search(r'<a href="([^"]+)" rel="next">', html)
        url = following.group(1).replace("&amp;", "&") if following else ""
    return rows


def shown_like_the_page(entry: dict[str, Any]) -> list[str]:
    """An API entry as the ranking table's cells: rank, movement, player (name and id),
    country, FLADUB, results counted (the club cell shows the club's name)."""
    return [
        str(entry["rank"]),
        movement_words(entry),
        f"{entry['name']} {entry['player_id']}",
        entry["country"],
        entry["fladub"],
        str(entry["results_counted"]),
    ]


def without_club(row: list[str]) -> list[str]:
    return row[:4] + row[5:]


@pytest.mark.parametrize(
    ("page", "api", "filters"),
    [
        ("/ranking/fido/", "/api/rankings/fido", {}),
        (f"/ranking/fido/{ARCHIVED}/", f"/api/rankings/fido/{ARCHIVED}", {}),
        ("/ranking/fido/?country=DE", "/api/rankings/fido", {"country": "DE"}),
        ("/ranking/fido/?q=player+1", "/api/rankings/fido", {"q": "player 1"}),
    ],
)
def test_the_ranking_page_shows_the_api_entries(
    client: Client, lists: list[Player], page: str, api: str, filters: dict[str, str]
) -> None:
    expected = [shown_like_the_page(entry) for entry in api_entries(client, api, **filters)]
    shown = [without_club(row) for row in page_entries(client, page)]
    assert len(expected) > 3
    assert shown == expected
    kinds = {row[1].split()[0] for row in shown}
    if not filters and page == "/ranking/fido/":  # every kind of movement is compared
        assert {"new", "▲", "▼"} <= kinds


def standing(html: str) -> str:
    """The player page's card of the discipline shown."""
    card = re.search(r'<li class="stat-card is-current">(.*?)</li>', html, re.S)
    assert card, "no current standing"
    return visible_text(card.group(1))


def weight_of(twelfths: str) -> str:
    """ "11/12" as the API writes a weight: 4 decimals."""
    n, _twelve = twelfths.split("/")
    return str((Decimal(n) / 12).quantize(Decimal("0.0001")))


def test_the_player_page_shows_the_api_numbers(client: Client, lists: list[Player]) -> None:
    on_list = {e["player_id"]: e for e in api_entries(client, "/api/rankings/fido")}
    compared = results = 0
    for player in lists:
        html = client.get(f"/players/{player.player_id}/?discipline=fido").content.decode()
        api = client.get(f"/api/rankings/fido/players/{player.player_id}/results").json()
        entry = on_list.get(player.player_id)
        if entry is None:
            assert standing(html).startswith("FIDO Unranked")
        else:
            assert standing(html) == (
                f"FIDO Rank {entry['rank']} FLADUB {entry['fladub']} · {movement_words(entry)}"
            )
            history = client.get(f"/api/rankings/fido/players/{player.player_id}").json()
            assert history["history"][-1]["fladub"] == entry["fladub"] == api["fladub"]
            assert history["history"][-1]["rank"] == entry["rank"]
            assert f"add up to FLADUB {api['fladub']}" in visible_text(html)
            compared += 1
        if api["results"]:
            rows = results_rows(html)
        else:
            rows = []
            assert '<table class="results">' not in html
        # The page shows 2 places, the API 4 (docs/api.md, "Numbers"): each is the same
        # value rounded once, so they differ by at most half a cent (plus the API's own
        # rounding); comparing floatformat(api) would round twice.
        assert len(rows) == len(api["results"])
        for row, r in zip(rows, api["results"], strict=True):
            date, _club, _category, _table, points, weight, weighted, _next, best = row
            assert (date, weight_of(weight), best) == (
                r["date"],
                r["weight"],
                "yes" if r["in_best"] else "no",
            )
            for shown, served in ((points, r["points"]), (weighted, r["weighted"])):
                assert abs(Decimal(shown) - Decimal(served)) <= Decimal("0.00505"), (row, r)
        results += len(rows)
    assert compared > 10 and results > 100
