"""The ranking API: lists current and by month, paging and filters, downloads, a player's
history and counting results; errors as {"errors": [...]} with 400 and 404."""

from __future__ import annotations

import csv
import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.audit import recording
from rankings.selectors import list_page
from rankings.sql import ListRow
from tests.matches.factories import PlayerFactory
from tests.rankings.factories import worked_example_lists

pytestmark = pytest.mark.django_db


@pytest.fixture
def published():
    """L(March) and L(April) of the worked example, plus two more players from Austria."""
    worked_example_lists()


def test_current_list_is_the_latest_published(client, published) -> None:
    body = client.get("/api/rankings/fido").json()
    assert body["list"]["month"] == "2026-04"
    assert body["list"]["entries"] == 4
    assert body["count"] == 4
    assert [(r["player_id"], r["fladub"], r["rank"]) for r in body["results"]] == [
        (
            "P-E",
            "10.00",
            1,
        ),
        ("P-A", "9.17", 2),
        ("P-B", "4.58", 3),
        ("P-C", "4.58", 3),
    ]
    first = body["results"][1]
    assert first == {
        "rank": 2,
        "player_id": "P-A",
        "name": "Anna A",
        "country": "DE",
        "club": "CLUB-BER",
        "fladub": "9.17",
        "results_counted": 1,
        "previous_rank": 1,
        "movement": -1,
    }
    assert body["results"][0]["previous_rank"] is None


def test_a_month_paged_and_filtered(client, published) -> None:
    body = client.get("/api/rankings/fido/2026-03", {"page_size": 2}).json()
    assert body["list"]["month"] == "2026-03"
    assert (body["count"], body["pages"], body["page"]) == (3, 2, 1)
    assert [r["player_id"] for r in body["results"]] == ["P-A", "P-B"]
    second = client.get(body["next"]).json()
    assert [r["player_id"] for r in second["results"]] == ["P-C"]
    assert second["next"] is None
    austria = client.get("/api/rankings/fido/2026-04", {"country": "at"}).json()
    assert [r["player_id"] for r in austria["results"]] == ["P-E"]
    club = client.get("/api/rankings/fido/2026-04", {"club": "CLUB-BER"}).json()
    assert [r["player_id"] for r in club["results"]] == ["P-A", "P-B", "P-C"]
    search = client.get("/api/rankings/fido/2026-04", {"q": "anna b"}).json()
    assert [r["player_id"] for r in search["results"]] == ["P-B"]
    by_id = client.get("/api/rankings/fido/2026-04", {"q": "p-c"}).json()
    assert [r["player_id"] for r in by_id["results"]] == ["P-C"]


def test_a_filtered_list_pages_alike_whatever_the_plan(
    client, published, plan, monkeypatch
) -> None:
    """A numbered page of a filtered view counts exactly and cuts the same pages however the
    matching entries are found (the ``plan`` fixture; "walked": more players match than
    the id set takes)."""
    if plan == "walked":
        monkeypatch.setattr(list_page, "MANY_PLAYERS", 1)
    url, query = "/api/rankings/fido/2026-04", {"club": "CLUB-BER", "page_size": 2}
    bodies = [client.get(url, {**query, "page": n}).json() for n in (1, 2)]
    assert [(b["count"], b["pages"], b["page"]) for b in bodies] == [(3, 2, 1), (3, 2, 2)]
    assert [[r["player_id"] for r in b["results"]] for b in bodies] == [["P-A", "P-B"], ["P-C"]]
    assert bodies[0]["next"] and bodies[0]["previous"] is None and bodies[1]["next"] is None
    beyond = client.get(url, {**query, "page": 3})
    assert beyond.status_code == 404
    assert beyond.json()["errors"][0]["message"] == "page 3 is after the last page, 2"


def test_archive_lists_every_published_month(client, published) -> None:
    body = client.get("/api/rankings/fido/lists").json()
    assert [(x["month"], x["entries"]) for x in body] == [("2026-04", 4), ("2026-03", 3)]


def test_downloads_are_the_export_formats(client, published) -> None:
    response = client.get("/api/rankings/fido/2026-04.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "fido-ranking-fido-2026-04.csv" in response["Content-Disposition"]
    text = b"".join(response.streaming_content).decode()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == [
        "rank",
        "player_id",
        "name",
        "country",
        "fladub",
        "results_counted",
        "previous_rank",
    ]
    assert rows[1] == ["1", "P-E", "Ewald E", "AT", "10.00", "1", ""]
    assert rows[2] == ["2", "P-A", "Anna A", "DE", "9.17", "1", "1"]
    response = client.get("/api/rankings/fido/2026-04.json")
    data = json.loads(b"".join(response.streaming_content))
    assert data[1] == {
        "rank": 2,
        "player_id": "P-A",
        "name": "Anna A",
        "country": "DE",
        "fladub": "9.17",
        "results_counted": 1,
        "previous_rank": 1,
    }
    api_row = client.get("/api/rankings/fido/2026-04").json()["results"][1]
    assert api_row["fladub"] == data[1]["fladub"]  # one number convention


def test_player_history_and_counting_results(client, published) -> None:
    body = client.get("/api/rankings/fido/players/P-A").json()
    assert body["player_id"] == "P-A"
    assert [(h["month"], h["fladub"], h["rank"]) for h in body["history"]] == [
        ("2026-03", "10.00", 1),
        ("2026-04", "9.17", 2),
    ]
    results = client.get("/api/rankings/fido/players/P-A/results").json()
    assert results["month"] == "2026-04"
    assert results["fladub"] == "9.17"
    (only,) = results["results"]
    assert only["match_id"] == "t1"
    assert only["club"] == "CLUB-BER"
    assert only["date"] == "2026-03-14"
    assert (only["points"], only["age"], only["weight"], only["in_best"]) == (
        "10.0000",
        1,
        "0.9167",
        True,
    )
    assert only["weighted"] == "9.1667"  # 10 * 11 / 12, 4 places
    march = client.get("/api/rankings/fido/players/P-A/results", {"month": "2026-03"}).json()
    assert march["fladub"] == "10.00"
    assert march["results"][0]["weight"] == "1.0000"


@pytest.mark.parametrize(
    ("url", "status", "path"),
    [
        ("/api/rankings/fido/2026-13", 400, "month"),
        ("/api/rankings/fido/2026-13.csv", 400, "month"),
        ("/api/rankings/fido/March", 400, "month"),
        ("/api/rankings/fido/players/P-A/results?month=2026-00", 400, "month"),
        ("/api/rankings/fido/2026-03?page=0", 400, "page"),
        ("/api/rankings/fido/2026-03?page_size=100000", 400, "page_size"),
        ("/api/rankings/fido/2026-03?page=9", 404, ""),
        ("/api/rankings/fido/2025-03", 404, ""),
        ("/api/rankings/fido/2025-03.json", 404, ""),
        ("/api/rankings/fido/2026-03.xls", 404, ""),
        ("/api/rankings/chess", 404, ""),
        ("/api/rankings/allfives", 404, ""),
        ("/api/rankings/fido/players/P-NOBODY", 404, ""),
    ],
)
def test_errors_have_the_api_shape(client, published, url, status, path) -> None:
    response = client.get(url)
    assert response.status_code == status, response.content
    body = response.json()
    assert body["errors"], body
    assert body["errors"][0]["path"] == path
    assert body["errors"][0]["message"]


def test_the_schema_describes_the_ranking_endpoints(client) -> None:
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for route in (
        "/api/rankings/{discipline}",
        "/api/rankings/{discipline}/{month}",
        "/api/rankings/{discipline}/{month}.{fmt}",
        "/api/rankings/{discipline}/lists",
        "/api/rankings/{discipline}/players/{player_id}",
        "/api/rankings/{discipline}/players/{player_id}/results",
    ):
        assert route in paths, sorted(paths)


def test_pages_of_a_list_with_many_ties_concatenate_to_the_list(client) -> None:
    import numpy as np

    from matches.months import Month as M
    from rankings import fladub, writer
    from rankings.models import CurrentList, RankingList
    from tests.rankings.factories import after_deadline as later

    players = [PlayerFactory(player_id=f"P-T{n:03d}") for n in range(23)]
    cents = np.array(sorted([500, 500, 500, 400, 400, 300] * 3 + [200] * 5, reverse=True))
    ranking = fladub.rank_list(
        fladub.PlayerTotals(
            player=np.array([p.pk for p in players]),
            units=(cents * 2**39 // 100).astype(np.int64),
            results_counted=np.ones(23, dtype=np.int64),
        ),
        M(2026, 3).index,
    )
    with recording():
        stored = RankingList.objects.create(
            discipline="fido", month="2026-03-01", created_at=later("2026-03")
        )
    writer.write_entries(ranking_list=stored, ranking=ranking)
    RankingList.objects.filter(pk=stored.pk).update(
        status="published", published_at=later("2026-03"), entry_count=23
    )
    CurrentList.objects.create(discipline="fido", ranking_list=stored, updated_at=later("2026-03"))
    whole = [
        r["player_id"]
        for r in client.get("/api/rankings/fido", {"page_size": 500}).json()["results"]
    ]
    assert len(whole) == 23
    paged = []
    for page in range(1, 7):
        body = client.get("/api/rankings/fido", {"page_size": 4, "page": page}).json()
        paged += [(r["player_id"], r["rank"]) for r in body["results"]]
    assert [p for p, _ in paged] == whole
    assert [r for _, r in paged] == [1] * 9 + [10] * 6 + [16] * 3 + [19] * 5


# --- one number convention (issue 15, item 4) -------------------------------------------

FIXED = {"fladub": r"\d+\.\d{2}", "points": r"\d+\.\d{4}", "weight": r"\d\.\d{4}"}
FIXED["weighted"] = FIXED["points"]


def test_served_decimals_are_strings_with_fixed_places_as_the_schema_says(
    client, published
) -> None:
    import re

    schema = client.get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    declared = {
        (name, field): spec
        for name, component in components.items()
        for field, spec in component.get("properties", {}).items()
        if field in FIXED
    }
    assert {field for _name, field in declared} == set(FIXED)
    for (name, field), spec in declared.items():
        assert (spec["type"], spec["format"]) == ("string", "decimal"), (name, field, spec)
    served = [
        client.get("/api/rankings/fido/2026-04").json()["results"][0],
        client.get("/api/rankings/fido/players/P-A").json()["history"][0],
        client.get("/api/rankings/fido/players/P-A/results").json(),
        client.get("/api/rankings/fido/players/P-A/results").json()["results"][0],
    ]
    seen = set()
    for row in served:
        for field, pattern in FIXED.items():
            if field in row:
                assert isinstance(row[field], str) and re.fullmatch(pattern, row[field]), row
                seen.add(field)
    assert seen == set(FIXED)


def test_fixed_rounds_half_away_from_zero() -> None:
    from rankings.numbers import cents_text, fixed

    assert fixed(10 * 11 / 12, 4) == "9.1667"
    assert fixed(0.125, 2) == "0.13"
    assert fixed(17.5, 4) == "17.5000"
    assert (cents_text(917), cents_text(5), cents_text(1000)) == ("9.17", "0.05", "10.00")


def test_cents_become_the_exact_fladub() -> None:
    from decimal import Decimal

    from rankings.numbers import cents_decimal

    assert cents_decimal(917) == Decimal("9.17") and str(cents_decimal(-5)) == "-0.05"
    assert cents_decimal(None) is None


@pytest.mark.parametrize("player_id", ["P-A", "P-B", "P-C", "P-D", "P-E", "P-F"])
@pytest.mark.parametrize("month", [None, "2026-03"])
def test_counting_results_are_written_as_their_serializer_writes_them(
    client, published, player_id: str, month: str | None
) -> None:
    """The API writes a player's results without the serializer (its CPU, for hundreds of
    results); the serializer stays the schema, and the two must agree field for field."""
    from rest_framework.renderers import JSONRenderer

    from matches.models import Player
    from matches.months import Month
    from rankings.apis.players import BreakdownOutput
    from rankings.selectors.counting_results import counting_results

    query = {"month": month} if month else {}
    body = client.get(f"/api/rankings/fido/players/{player_id}/results", query).json()
    found = counting_results(
        Player.objects.get(player_id=player_id).pk,
        discipline="fido",
        month=Month.parse(month or "2026-04"),
    )
    assert found.results or player_id in {"P-E", "P-F"}  # (Vienna played in April only)
    expected = BreakdownOutput(
        {
            "player_id": player_id,
            "discipline": "fido",
            "month": found.month,
            "fladub": found.fladub,
            "count": len(found.results),
            "page": 1,
            "pages": 1,
            "next": None,
            "previous": None,
            "results": found.results,
        }
    ).data
    assert body == json.loads(JSONRenderer().render(expected))


_ids = st.from_regex(r"P-[0-9A-Z]{1,8}", fullmatch=True)
_list_rows = st.builds(
    ListRow,
    rank=st.integers(1, 2_000_000),
    fladub_cents=st.integers(0, 10**9),
    results_counted=st.integers(0, 20),
    previous_rank=st.none() | st.integers(1, 2_000_000),
    movement=st.none() | st.integers(-2_000_000, 2_000_000),
    id=st.integers(1, 10**12),
    player_id=_ids,
    name=st.text(max_size=40),
    country=st.sampled_from(["", "AT", "DE", "FR"]),
    club_id=st.none() | st.from_regex(r"CLUB-[0-9]{1,6}", fullmatch=True),
    club_name=st.none() | st.text(max_size=20),
)


@given(rows=st.lists(_list_rows, max_size=5))
def test_a_pages_rows_are_written_as_their_serializer_writes_them(rows) -> None:
    """The list API writes its rows without the serializer (its CPU); the serializer stays
    the schema, and the two must agree field for field, after JSON as before."""
    from rest_framework.renderers import JSONRenderer

    from rankings.apis.lists import EntryOutput, entries_data

    render = JSONRenderer().render
    assert render(entries_data(rows)) == render(EntryOutput(rows, many=True).data)


@pytest.mark.parametrize(
    ("url", "query"),
    [
        ("/api/rankings/fido", {}),
        ("/api/rankings/fido/2026-03", {"page_size": 2}),
        ("/api/rankings/fido/2026-03", {"page_size": 2, "page": 2}),
        ("/api/rankings/fido", {"q": "Anna"}),
        ("/api/rankings/fido", {"country": "AT"}),
    ],
)
def test_a_list_page_is_written_as_its_serializer_writes_it(
    client, published, monkeypatch, url: str, query: dict
) -> None:
    from rest_framework.renderers import JSONRenderer

    from rankings.apis import lists

    captured: list[dict] = []
    page_data = lists.page_data

    def capture(page: dict) -> dict:
        captured.append(page)
        return page_data(page)

    monkeypatch.setattr(lists, "page_data", capture)
    body = client.get(url, query).json()
    (page,) = captured
    assert body == json.loads(JSONRenderer().render(lists.ListPageOutput(page).data))
    assert body["results"]
