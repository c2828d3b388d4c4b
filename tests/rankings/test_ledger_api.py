"""The ledger on stored results (rankings.selectors.ledger) and through the API: published
and projected lists, results that are new, aged, voided, corrected and left the window, the
rank change explained, the sentences in English and German, and bad input."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from html import unescape

import pytest
from django.test import Client

from matches.models import Match
from matches.months import Month
from matches.services import match_correct, match_void
from rankings.selectors.ledger import player_ledger
from rankings.selectors.lists import published_list
from rankings.services.projection import projection_refresh
from tests.matches.factories import AdminFactory, PlayerFactory, match_payload
from tests.rankings.factories import close, random_results, received, submit_table

pytestmark = pytest.mark.django_db
URL = "/api/rankings/fido/players/{}/ledger"


@pytest.fixture
def people(club):
    return {n: PlayerFactory(player_id=f"P-{n}", name=n, club=club) for n in "ABCDE"}


def test_new_and_aged_results_by_hand(client: Client, club, people) -> None:
    a, b, c = people["A"], people["B"], people["C"]
    # March: A beats B at a club table (10.00 points, base 10, nobody listed before).
    submit_table(club, [([a], 5), ([b], 1)], id="m1", date="2026-03-10")
    close("2026-03")
    # April: A beats C (opponent strength 0: C is not listed) -> 10.00 new; March ages to 11/12.
    submit_table(club, [([a], 5), ([c], 1)], id="a1", date="2026-04-10")
    close("2026-04")
    body = client.get(URL.format("P-A") + "?month=2026-04").json()
    assert (body["from"], body["to"], body["change"]) == ("10.00", "19.17", "9.17")
    assert [(p["kind"], p["amount"]) for p in body["parts"]] == [
        ("aged", "-0.83"),
        ("new", "10.00"),
    ]
    assert sum(Decimal(p["amount"]) for p in body["parts"]) == Decimal(body["change"])
    assert [r["match_id"] for r in body["parts"][1]["results"]] == ["a1"]
    assert body["provisional"] is False and body["as_of"] is None
    assert (body["rank_from"], body["rank_to"]) == (1, 1)
    assert body["sentences"][0] == (
        "FLADUB 10.00 → 19.17 (+9.17): -0.83 as an older result aged; +10.00 from 1 new result."
    )
    german = client.get(URL.format("P-A") + "?month=2026-04", HTTP_ACCEPT_LANGUAGE="de").json()
    assert german["sentences"][0] == (
        "FLADUB 10,00 → 19,17 (+9,17): -0,83 durch die Alterung eines älteren Ergebnisses; "
        "+10,00 aus 1 neuen Ergebnis."
    )


def test_a_result_leaves_the_window(client: Client, club, people) -> None:
    a, b = people["A"], people["B"]
    submit_table(club, [([a], 5), ([b], 1)], id="old", date="2025-05-10")
    submit_table(club, [([a], 5), ([b], 1)], id="keep", date="2026-01-10")
    month = Month.parse("2025-05")
    while month <= Month.parse("2026-05"):
        close(month)
        month = month.next()
    body = client.get(URL.format("P-A") + "?month=2026-05").json()
    kinds = {p["kind"]: p for p in body["parts"]}
    assert [r["match_id"] for r in kinds["left"]["results"]] == ["old"]
    assert "a result of May 2025 left the window" in body["sentences"][0]
    assert sum(Decimal(p["amount"]) for p in body["parts"]) == Decimal(body["change"])


def test_void_and_rank_change_explained(club, people) -> None:
    a, b, c, d = (people[n] for n in "ABCD")
    submit_table(club, [([a], 5), ([d], 1)], id="a1", date="2026-03-05")
    submit_table(club, [([b], 5), ([d], 1)], id="b1", date="2026-03-05")
    submit_table(club, [([b], 5), ([d], 1)], id="b2", date="2026-03-06")
    close("2026-03")  # B 20.00 (1), A 10.00 (2)
    match = Match.objects.get(external_id="b1")
    match_void(match=match, by=None, reason="wrong table", now=received(dt.date(2026, 4, 2)))
    submit_table(club, [([c], 9), ([a], 1)], id="c1", date="2026-04-05")
    submit_table(club, [([c], 9), ([d], 1)], id="c2", date="2026-04-06")
    april = close("2026-04")
    info = published_list(discipline="fido", month=Month.parse("2026-04"))
    found = player_ledger(b.pk, ranking_list=info)
    voided = found.ledger.part("voided")
    assert voided is not None and [found.results[k].match_id for k in voided.results] == ["b1"]
    assert sum(p.cents for p in found.ledger.parts) == found.ledger.change_cents
    rank = player_ledger(a.pk, ranking_list=info).rank
    # A: 2nd in March; in April C (new, 20 points) is above, B (about 9.17) fell behind.
    assert rank.explained and rank.rank_from == 2
    assert rank.rank_to - rank.rank_from == (
        rank.passed + rank.new_above - rank.overtaken - rank.gone_above
    )
    assert rank.new_above == 1
    assert april.entry_count >= 3


def test_the_projection_has_a_provisional_ledger(client: Client) -> None:
    months = [Month.parse(m) for m in ("2026-01", "2026-02", "2026-03")]
    random_results(seed=31, matches=80, players=25, months=months)
    close(months[0])
    close(months[1])
    projected = projection_refresh(discipline="fido")
    from rankings.models import RankingEntry

    entry = RankingEntry.objects.select_related("player").filter(ranking_list=projected).first()
    body = client.get(URL.format(entry.player.player_id) + "?month=2026-03").json()
    assert body["provisional"] is True and body["as_of"]
    assert Decimal(body["to"]) == entry.fladub
    assert sum(Decimal(p["amount"]) for p in body["parts"]) == Decimal(body["change"])


def test_bad_input(client: Client, club, people) -> None:
    submit_table(club, [([people["A"]], 5), ([people["B"]], 1)], id="m1", date="2026-03-10")
    close("2026-03")
    assert client.get(URL.format("P-A") + "?month=2026-13").status_code == 400
    assert client.get(URL.format("P-A") + "?month=2025-01").status_code == 404
    assert client.get(URL.format("P-NOBODY")).status_code == 404
    assert client.get("/api/rankings/chess/players/P-A/ledger").status_code == 404
    ok = client.get(URL.format("P-A")).json()  # the current list; new to it
    assert ok["rank_from"] is None and ok["rank_to"] == 1
    assert ok["sentences"][1] == "New on the list, at rank 1."


@pytest.mark.parametrize(
    ("url", "english", "german"),
    [
        ("/api/rankings/fido/projected", "no projected fido list yet", "Noch keine hochgerechnete"),
        (
            "/api/rankings/fido/players/{p}/ledger?month=2026-03",
            "no published or projected fido list for 2026-03",
            "Keine veröffentlichte oder hochgerechnete Rangliste fido für 2026-03",
        ),
        (
            "/api/rankings/fido/players/P-NOBODY/forecast",
            "unknown player 'P-NOBODY'",
            "Unbekannter Spieler 'P-NOBODY'",
        ),
        (
            "/api/rankings/fido/2026-03?version=2",
            "no version 2 of the fido list for 2026-03",
            "Keine Version 2 der Rangliste fido für 2026-03",
        ),
        ("/api/rankings/fido/2026-03/diff?version=0", "A version is a whole", "Eine Version ist"),
        ("/api/rankings/chess/projected", "unknown discipline 'chess'", "Unbekannte Disziplin"),
    ],
)
def test_the_apis_refusals_are_in_the_users_language(client: Client, url, english, german):
    """The finding (acceptance of issues 13/14): these 404s and 400s of the projection,
    ledger, forecast and versions answered in English whatever the Accept-Language."""
    url = url.format(p=PlayerFactory().player_id)
    for language, words in (("en", english), ("de", german)):
        response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code in (400, 404)
        assert words in response.json()["errors"][0]["message"], (language, response.json())


def test_a_correction_is_named_as_corrected_on_the_page_and_in_the_api(
    client: Client, club, people
) -> None:
    """A match corrected after its list was closed: in the next list its new revision is
    "voided or corrected", not new. The ledger reads the facts of the results counting in
    only one of the two lists (the player page, of both its ledgers at once): the old
    revision is among them, so the correction is recognised either way."""
    a, b, c = people["A"], people["B"], people["C"]
    submit_table(club, [([a], 5), ([c], 1)], id="t0", date="2026-03-05")
    submit_table(club, [([a], 5), ([b], 1)], id="t1", date="2026-03-10")
    close("2026-03")
    match_correct(
        match=Match.objects.get(external_id="t1"),
        payload=match_payload(club, [([a], 5), ([b], 1), ([c], 0)], id="t1", date="2026-03-10"),
        by=AdminFactory(),
        now=received(dt.date(2026, 4, 2)),
        reason="C played too",
        as_admin=True,
        channel="web",
    )
    submit_table(club, [([b], 5), ([c], 1)], id="b2", date="2026-04-05")
    close("2026-04")
    body = client.get(URL.format("P-A") + "?month=2026-04").json()
    kinds = {p["kind"]: p for p in body["parts"]}
    assert [r["match_id"] for r in kinds["voided"]["results"]] == ["t1", "t1"]  # old, new
    assert "new" not in kinds
    html = client.get("/players/P-A/").content.decode()
    assert body["sentences"][0] in unescape(html)
