"""The what-if calculator (rankings.selectors.whatif, POST /api/rankings/<d>/whatif): the
promise kept by the real close, the rank by binary search, bad input refused by field and in
the user's language, nothing written."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from matches.models import Player, SideMember
from matches.months import Month
from rankings import sql
from rankings.models import RankingEntry, RankingList
from rankings.selectors.projection import projected_list, projected_standing
from rankings.selectors.whatif import Hypothetical, hypothetical_points, what_if
from rankings.services.projection import projection_refresh
from tests.matches.factories import ClubFactory
from tests.rankings.factories import close, random_results, received, submit_table

pytestmark = pytest.mark.django_db
URL = "/api/rankings/fido/whatif"
MONTHS = [Month.parse(m) for m in ("2026-01", "2026-02", "2026-03", "2026-04")]


def history(seed: int) -> RankingList:
    random_results(seed=seed, matches=120, players=40, months=MONTHS)
    for month in MONTHS[:3]:
        close(month)
    return projection_refresh(discipline="fido")


def listed(ranking_list: RankingList) -> list[tuple[str, int, int]]:
    """(federation id, rank, cents) in list order."""
    return list(
        RankingEntry.objects.filter(ranking_list=ranking_list)
        .order_by("rank", "player_id")
        .values_list("player__player_id", "rank", "fladub_cents")
    )


def ask(client: Client, body: dict, **headers: str):
    return client.post(URL, body, content_type="application/json", **headers)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_storing_the_results_and_closing_gives_the_promised_number_and_rank(
    client: Client, seed: int
) -> None:
    projected = history(seed)
    rows = listed(projected)
    me = rows[len(rows) * 2 // 3][0]  # low in the list: the new results move them
    strong = [pid for pid, _rank, _cents in rows[:3] if pid != me][:2]
    # The player wins every table, so the opponents' own numbers stay as they are (a loss
    # is worth 0) and nobody else's number changes: the promise must hold exactly.
    tables = [
        ("club", strong[0]),
        ("national", strong[1]),
        ("league", rows[-1][0] if rows[-1][0] != me else rows[-2][0]),
    ]
    body = {
        "player_id": me,
        "month": "2026-04",
        "results": [
            {"category": cat, "placing": 1, "opponents": [{"player_id": them, "placing": 2}]}
            for cat, them in tables
        ],
    }
    before = (SideMember.objects.count(), RankingEntry.objects.count())
    promised = ask(client, body)
    assert promised.status_code == 200, promised.json()
    answer = promised.json()
    assert (SideMember.objects.count(), RankingEntry.objects.count()) == before  # wrote nothing
    assert answer["provisional"] is True and answer["month"] == "2026-04"
    assert answer["rank"] < answer["projected_rank"]

    club = ClubFactory(club_id=f"CLUB-W{seed}")
    players = {p.player_id: p for p in Player.objects.all()}
    for n, (cat, them) in enumerate(tables):
        submit_table(
            club,
            [([players[me]], 2), ([players[them]], 1)],
            id=f"w{n}",
            date="2026-04-20",
            category=cat,
            now=received(Month.parse("2026-04").first_day.replace(day=21)),
        )
    published = close(MONTHS[3])
    mine = {pid: (rank, cents) for pid, rank, cents in listed(published)}[me]
    assert mine == (answer["rank"], round(float(answer["fladub"]) * 100))


def _count_above(list_id: int, entry_count: int, cents: int) -> int:
    (found,) = sql.STANDING.rows(sql.standing(list_id, entry_count, cents, player_pk=0))
    assert found.entry is None  # no player 0
    return int(found.above)


def test_the_rank_by_binary_search_counts_the_players_strictly_above() -> None:
    projected = history(4)
    cents = [c for _pid, _rank, c in listed(projected)]
    for probe in {0, 1, cents[0], cents[0] + 1, *cents, *(c - 1 for c in cents)}:
        expected = sum(1 for c in cents if c > probe)
        assert _count_above(projected.pk, len(cents), probe) == expected, probe
    assert _count_above(projected.pk + 1000, 0, 1) == 0  # an empty list: nobody above


def test_the_binary_search_counts_ties_once_each_and_steps_over_the_gaps() -> None:
    """Entries 500, 400, 400, 400, 300, 300, 100: ranks 1, 2, 2, 2, 5, 5, 7."""
    projected = history(6)
    values = [500, 400, 400, 400, 300, 300, 100]
    RankingEntry.objects.filter(ranking_list=projected).delete()
    players = list(Player.objects.order_by("pk")[: len(values)])
    ranks = [1 + sum(1 for v in values if v > c) for c in values]
    assert ranks == [1, 2, 2, 2, 5, 5, 7]
    RankingEntry.objects.bulk_create(
        RankingEntry(ranking_list=projected, player=p, rank=r, fladub_cents=c, results_counted=1)
        for p, r, c in zip(players, ranks, values, strict=True)
    )
    for probe in range(0, 600, 50):
        expected = sum(1 for v in values if v > probe)
        assert _count_above(projected.pk, len(values), probe) == expected, probe


def test_bad_input_is_refused_by_field_in_the_users_language(client: Client) -> None:
    projected = history(5)
    rows = listed(projected)
    me, other = rows[0][0], rows[1][0]

    def table(**changes):
        result = {
            "category": "club",
            "placing": 1,
            "opponents": [{"player_id": other, "placing": 2}],
        }
        result.update(changes)
        return result

    good = {"player_id": me, "month": "2026-04", "results": [table()]}
    assert ask(client, good).status_code == 200
    cases = [
        ({**good, "player_id": "P-NOBODY"}, "player_id", "P-NOBODY"),
        (
            {**good, "results": [table(opponents=[{"player_id": "P-X", "placing": 2}])]},
            "results[0].opponents[0].player_id",
            "P-X",
        ),
        (
            {**good, "results": [table(opponents=[{"player_id": me, "placing": 2}])]},
            "results[0].opponents[0].player_id",
            "already",
        ),
        ({**good, "results": [table(placing=3)]}, "results[0].placing", "no place 3"),
        (
            {**good, "results": [table(opponents=[{"player_id": other, "placing": 0}])]},
            "results[0].opponents[0].placing",
            "",
        ),
        (
            {**good, "results": [table(opponents=[{"player_id": other, "score": 2}])]},
            "results[0].opponents[0].placing",
            "every side",
        ),
        ({**good, "month": "2026-03"}, "month", "2026-03 is already closed"),
        ({**good, "month": "2026-05"}, "month", "Only results of 2026-04"),
        ({**good, "month": "April"}, "month", "YYYY-MM"),
        ({**good, "results": [table()] * 21}, "results", ""),
        ({**good, "results": []}, "results", ""),
    ]
    for body, path, words in cases:
        refused = ask(client, body)
        assert refused.status_code == 400, (path, refused.content)
        errors = refused.json()["errors"]
        assert errors[0]["path"] == path, errors
        assert words in errors[0]["message"], errors
    german = ask(client, {**good, "month": "2026-03"}, HTTP_ACCEPT_LANGUAGE="de").json()
    assert german["errors"][0]["message"] == "2026-03 ist bereits abgeschlossen."
    many = {**good, "results": [table()] * 21}
    assert ask(client, many).json()["errors"][0]["message"] == (
        "At most 20 results at a time (a list counts the best 20)."
    )
    german = ask(client, many, HTTP_ACCEPT_LANGUAGE="de").json()["errors"]
    assert german == [
        {
            "path": "results",
            "message": "Höchstens 20 Ergebnisse auf einmal (eine Liste zählt die besten 20).",
        }
    ]
    german = ask(client, {**good, "player_id": "P-NOBODY"}, HTTP_ACCEPT_LANGUAGE="de").json()
    assert german["errors"][0]["message"] == "Niemand hat die Verbandsnummer P-NOBODY."
    assert (
        client.post("/api/rankings/nope/whatif", good, content_type="application/json").status_code
        == 404
    )


def test_no_projection_yet_is_a_404(client: Client) -> None:
    random_results(seed=6, matches=60, players=20, months=MONTHS)
    for month in MONTHS[:3]:
        close(month)
    assert projected_list("fido") is None
    players = list(Player.objects.values_list("player_id", flat=True)[:2])
    body = {
        "player_id": players[0],
        "month": "2026-04",
        "results": [{"placing": 1, "opponents": [{"player_id": players[1], "placing": 2}]}],
    }
    assert ask(client, body).status_code == 404


def test_the_answer_reads_four_statements_whatever_the_results_and_tables(
    copies: list[str],
) -> None:
    """The player's matches; the strength lists' ids and their entries, of the stored
    matches' players and the tables' alike; the player's projected entry; the rank's binary
    search with the player's projected entry. The same answer as the strengths and the
    entry read apart."""
    projected = history(7)
    info = projected_list("fido")
    assert info is not None
    rows = listed(projected)
    pks = dict(Player.objects.values_list("player_id", "pk"))
    me = pks[rows[len(rows) // 2][0]]
    others = [pks[pid] for pid, _rank, _cents in rows if pks[pid] != me]
    tables = [
        Hypothetical(category="club", score=-1, opponents=((others[0], -2),)),
        Hypothetical(category="national", score=3, opponents=((others[1], 5), (others[2], 1))),
        Hypothetical(category="league", score=-2, opponents=((others[-1], -1),)),
    ]
    assert SideMember.objects.filter(player_id=me).count() > 3  # stored results to read
    for asked in (tables[:1], tables):
        copies.clear()
        with CaptureQueriesContext(connection) as statements:
            found = what_if(me, discipline="fido", projected=info, tables=asked)
        # The player's results: a COPY on PostgreSQL (Django's log misses it), else rows;
        # on PostgreSQL their pack of points first (none here).
        packs = 1 if connection.vendor == "postgresql" else 0
        assert len(statements) + len(copies) == 4 + packs, [q["sql"][:80] for q in statements]
        apart = hypothetical_points(me, discipline="fido", month=MONTHS[3], tables=asked)
        assert list(found.results_points) == apart
        assert found.rank is not None and found.fladub_cents > found.projected_cents
        own = projected_standing("fido", me)[1]
        assert own is not None
        assert (found.projected_rank, found.projected_cents) == (own.rank, own.fladub_cents)


def test_the_api_answers_in_seven_statements(client: Client, copies: list[str]) -> None:
    """The open month, the players named, the projection, then the answer's four (the
    player's results a COPY on PostgreSQL, which Django's log misses; there, the player's
    pack of points first: one more)."""
    projected = history(8)
    rows = listed(projected)
    body = {
        "player_id": rows[len(rows) // 2][0],
        "month": "2026-04",
        "results": [
            {"category": "club", "placing": 1, "opponents": [{"player_id": pid, "placing": 2}]}
            for pid, _rank, _cents in (rows[0], rows[-1])
        ],
    }
    copies.clear()
    with CaptureQueriesContext(connection) as statements:
        answer = ask(client, body)
    assert answer.status_code == 200, answer.json()
    packs = 1 if connection.vendor == "postgresql" else 0
    assert len(statements) + len(copies) == 7 + packs, [q["sql"][:80] for q in statements]
