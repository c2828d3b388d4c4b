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
from django_countries import countries

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
    country (its English name: the page names it, the API gives its code), FLADUB, results
    counted (the club cell shows the club's name)."""
    return [
        str(entry["rank"]),
        movement_words(entry),
        f"{entry['name']} {entry['player_id']}",
        str(countries.name(entry["country"])),
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


def page_results(client: Client, url: str) -> tuple[list[list[str]], list[str]]:
    """Every row of the player page's results, following its pager to the end, and the
    sentence with the totals as each page shows it."""
    rows: list[list[str]] = []
    totals: list[str] = []
    while url:
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        rows += results_rows(html)
        text = visible_text(html)
        found = re.search(r"\d+ results? counts? in the list of .*?FLADUB \d+\.\d\d", text)
        totals.append(found.group(0) if found else "")
        following = re.search(r'<a href="([^"]+)" rel="next">', html[html.find('id="results-h"') :])
        url = following.group(1).replace("&amp;", "&") if following else ""
    return rows, totals


def api_results(client: Client, url: str, page_size: int) -> tuple[list[dict[str, Any]], Any]:
    """Every result the API serves, following ``next`` to the end; and the totals of each
    response (count, FLADUB)."""
    results: list[dict[str, Any]] = []
    totals = set()
    body = client.get(url, {"page_size": page_size}).json()
    while True:
        results += body["results"]
        assert len(body["results"]) <= page_size
        totals.add((body["count"], body["fladub"], body["pages"]))
        if not body["next"]:
            return results, totals
        body = client.get(body["next"]).json()


def test_the_results_are_paged_alike_on_the_page_and_the_api(
    client: Client, lists: list[Player], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With 4 results a page: following the player page's pager and the API's ``next``
    gives the same results in the same order as the whole list, every page shows the
    same totals, and the best 20 all come before every other result."""
    from rankings.selectors import counting_results as module
    from rankings.views import public

    monkeypatch.setattr(module, "PAGE_SIZE", 4)
    monkeypatch.setattr(public, "RESULTS_PER_PAGE", 4)
    paged = 0
    for player in lists:
        whole = module.counting_results(player.pk, discipline="fido", month=CLOSED[-1])
        rows, page_totals = page_results(client, f"/players/{player.player_id}/?discipline=fido")
        url = f"/api/rankings/fido/players/{player.player_id}/results"
        served, api_totals = api_results(client, url, page_size=4)
        assert len(rows) == len(served) == whole.count == len(whole.results)
        fladub = f"{whole.fladub:.2f}"
        if whole.count:
            assert api_totals == {(whole.count, fladub, -(-whole.count // 4))}
            assert set(page_totals) == {
                f"{whole.count} result{'s' if whole.count != 1 else ''} "
                f"count{'' if whole.count != 1 else 's'} in the list of March 2026. "
                f"The best 20, weighted by age, add up to FLADUB {fladub}"
            }
        for row, r, mine in zip(rows, served, whole.results, strict=True):
            assert (row[0], row[-1]) == (r["date"], "yes" if r["in_best"] else "no")
            assert r["date"] == mine.date_played.isoformat()
            assert r["in_best"] == mine.in_best
        assert [r["in_best"] for r in served] == sorted(
            (r["in_best"] for r in served), reverse=True
        )
        paged += whole.count > 4
    assert paged > 5


def test_a_page_of_results_out_of_range(client: Client, lists: list[Player]) -> None:
    """A page after the last is a 404 on the page and the API, a malformed page a 400."""
    player = max(
        lists,
        key=lambda p: client.get(f"/api/rankings/fido/players/{p.player_id}/results").json()[
            "count"
        ],
    )
    page, api = (
        f"/players/{player.player_id}/",
        f"/api/rankings/fido/players/{player.player_id}/results",
    )
    count = client.get(api).json()["count"]
    assert 0 < count <= 100
    assert client.get(page, {"discipline": "fido", "page": 2}).status_code == 404
    assert client.get(api, {"page": 2}).status_code == 404
    assert client.get(api, {"page": 2, "page_size": count - 1}).status_code == 200
    for bad in ("0", "x", "-1", "1.5"):
        assert client.get(page, {"discipline": "fido", "page": bad}).status_code == 400
        assert client.get(api, {"page": bad}).status_code == 400
    for bad_size in ("0", "501", "x"):
        assert client.get(api, {"page_size": bad_size}).status_code == 400
