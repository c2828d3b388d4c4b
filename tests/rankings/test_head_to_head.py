"""Head-to-head (rankings.selectors.head_to_head, its API and its page): every shared match
except voided and superseded ones, who placed higher (or partners, or the same score), and
each result's FLADUB effect as the player page computes it; bad input."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from matches.models import Match
from matches.services import match_correct, match_void
from rankings.head_to_head_words import tally_sentence
from rankings.selectors.counting_results import counting_results
from rankings.selectors.head_to_head import HeadToHead, head_to_head
from tests.clock import BERLIN
from tests.matches.factories import ClubFactory, PlayerFactory, match_payload
from tests.rankings.factories import close, received, submit_table

pytestmark = pytest.mark.django_db
API = "/api/rankings/{}/players/{}/head-to-head/{}"


@pytest.fixture
def club():
    return ClubFactory(club_id="CLUB-H")


@pytest.fixture
def people(club):
    return {n: PlayerFactory(player_id=f"P-H{n}", name=f"Player {n}", club=club) for n in "ABCD"}


@pytest.fixture
def shared(club, people):
    """A and B: one win each, a tie, partners once, a voided match, a corrected one, a
    match too old for the current list, a match without B and one of another discipline."""
    a, b, c, d = (people[n] for n in "ABCD")
    submit_table(club, [([a], 5), ([b], 1)], id="m1", date="2026-03-10")
    submit_table(club, [([a], 2), ([b], 6), ([c], 4)], id="m2", date="2026-03-12")
    submit_table(club, [([a, b], 5), ([c, d], 3)], id="m3", date="2026-03-13")
    submit_table(club, [([a], 3), ([b], 3)], id="m4", date="2026-03-14")
    submit_table(club, [([a], 9), ([b], 0)], id="void", date="2026-03-15")
    submit_table(club, [([a], 9), ([b], 0)], id="fixed", date="2026-03-16")
    submit_table(club, [([a], 5), ([c], 1)], id="no-b", date="2026-03-17")
    submit_table(club, [([a], 1), ([b], 5)], id="other", date="2026-03-18", discipline="allfives")
    submit_table(club, [([a], 1), ([b], 5)], id="old", date="2025-02-10")
    match_void(
        match=Match.objects.get(external_id="void"),
        by=None,
        reason="wrong table",
        now=received(dt.date(2026, 3, 20)),
    )
    match_correct(
        match=Match.objects.get(external_id="fixed"),
        payload=match_payload(club, [([a], 0), ([b], 9)], id="fixed", date="2026-03-16"),
        by=None,
        as_admin=True,
        channel="web",
        now=dt.datetime(2026, 3, 21, 10, tzinfo=BERLIN),
        reason="scores swapped",
    )
    close("2026-03")
    return a, b


def test_tally_and_rows(shared) -> None:
    a, b = shared
    found = head_to_head(a.pk, b.pk, discipline="fido")
    assert [m.match_id for m in found.meetings] == ["fixed", "m4", "m3", "m2", "m1", "old"]
    assert (found.count, found.a_higher, found.b_higher, found.ties, found.partners) == (
        6,
        1,
        3,
        1,
        1,
    )
    by_id = {m.match_id: m for m in found.meetings}
    assert [m.higher for m in found.meetings] == ["b", "tie", "partners", "b", "a", "b"]
    assert (by_id["m2"].place_a, by_id["m2"].place_b) == (3, 1)
    assert [side.score for side in by_id["m2"].sides] == [6, 4, 2]
    assert (by_id["fixed"].place_a, by_id["fixed"].place_b) == (2, 1)  # the corrected scores
    assert str(found.list_month) == "2026-03"


def test_effects_are_the_player_pages(shared) -> None:
    a, b = shared
    found = head_to_head(a.pk, b.pk, discipline="fido")
    for player, side in ((a, "effect_a"), (b, "effect_b")):
        page = {
            r.match_pk: r
            for r in counting_results(player.pk, discipline="fido", month=found.list_month).results
        }
        for meeting in found.meetings:
            effect = getattr(meeting, side)
            if meeting.match_id == "old":  # played 13 months before the list: out of its window
                assert effect is None
                continue
            result = page[meeting.match_pk]
            assert (effect.points, effect.weight_twelfths, effect.weighted, effect.in_best) == (
                result.points,
                result.weight_twelfths,
                result.weighted,
                result.in_best,
            )
    # By hand: m1, a club game (base 10), two sides, nobody listed before: the winner
    # takes the whole 10.00 at full weight in March's list.
    m1 = next(m for m in found.meetings if m.match_id == "m1")
    assert (round(m1.effect_a.points, 2), m1.effect_a.weight_twelfths) == (10.0, 12)
    assert m1.effect_a.in_best and m1.effect_a.in_number == m1.effect_a.weighted


def test_no_list_yet_no_effect(club, people) -> None:
    a, b = people["A"], people["B"]
    submit_table(club, [([a], 5), ([b], 1)], id="m1", date="2026-03-10")
    found = head_to_head(a.pk, b.pk, discipline="fido")
    assert found.list_month is None and found.count == 1
    assert found.meetings[0].effect_a is None and found.meetings[0].effect_b is None
    assert head_to_head(a.pk, people["C"].pk, discipline="fido").count == 0
    with pytest.raises(ValueError, match="two different players"):
        head_to_head(a.pk, a.pk, discipline="fido")


def test_api(client: Client, shared) -> None:
    a, b = shared
    body = client.get(API.format("fido", a.player_id, b.player_id)).json()
    assert (body["player_id"], body["other_id"], body["list_month"]) == ("P-HA", "P-HB", "2026-03")
    assert (body["count"], body["shown"]) == (6, 6)
    assert (body["player_higher"], body["other_higher"], body["ties"], body["partners"]) == (
        1,
        3,
        1,
        1,
    )
    m1 = next(m for m in body["matches"] if m["match_id"] == "m1")
    assert m1["higher"] == "player" and m1["club"] == "CLUB-H"
    assert m1["player_effect"] == {
        "points": "10.0000",
        "weight_twelfths": 12,
        "weighted": "10.0000",
        "in_best": True,
    }
    assert [s["place"] for s in m1["sides"]] == [1, 2]
    old = next(m for m in body["matches"] if m["match_id"] == "old")
    assert old["player_effect"] is None and old["other_effect"] is None
    # Seen from the other side, the tally turns around.
    back = client.get(API.format("fido", b.player_id, a.player_id)).json()
    assert (back["player_higher"], back["other_higher"]) == (3, 1)
    assert client.get(API.format("allfives", a.player_id, b.player_id)).json()["count"] == 1


def test_api_bad_input(client: Client, shared) -> None:
    a, b = shared
    unknown = client.get(API.format("fido", a.player_id, "P-NOBODY"))
    assert unknown.status_code == 404
    assert "P-NOBODY" in unknown.json()["errors"][0]["message"]
    assert client.get(API.format("fido", "P-NOBODY", b.player_id)).status_code == 404
    assert client.get(API.format("chess", a.player_id, b.player_id)).status_code == 404
    same = client.get(API.format("fido", a.player_id, a.player_id))
    assert same.status_code == 400
    assert same.json()["errors"][0]["path"] == "other_id"
    german = client.get(API.format("fido", a.player_id, a.player_id), HTTP_ACCEPT_LANGUAGE="de")
    assert "denselben Spieler" in german.json()["errors"][0]["message"]


def test_api_in_the_schema(client: Client) -> None:
    schema = client.get("/api/schema/").content.decode()
    assert "/api/rankings/{discipline}/players/{player_id}/head-to-head/{other_id}" in schema
    assert "rankings_player_head_to_head" in schema


def test_page(client: Client, shared) -> None:
    a, b = shared
    html = client.get(f"/players/{a.player_id}/versus/{b.player_id}/").content.decode()
    assert "Player A against Player B" in html
    assert "6 shared FIDO matches." in html
    assert (
        "Player A placed higher once; Player B placed higher 3 times; the same score once; "
        "partners on one side once."
    ) in html
    assert "not in the list" in html  # the old match
    german = client.get(
        f"/players/{a.player_id}/versus/{b.player_id}/", HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()
    assert "Player A gegen Player B" in german
    assert (
        "Player A war einmal besser platziert; Player B war 3-mal besser platziert; "
        "einmal die gleiche Punktzahl; einmal Partner auf einer Seite."
    ) in german


# language, count, then what the count reads as: A placed higher | the same score | partners
TALLY_WORDS = """
en 0 A never placed higher | never the same score | never partners on one side
en 1 A placed higher once | the same score once | partners on one side once
en 3 A placed higher 3 times | the same score 3 times | partners on one side 3 times
de 0 A war nie besser platziert | nie die gleiche Punktzahl | nie Partner auf einer Seite
de 1 A war einmal besser platziert | einmal die gleiche Punktzahl | einmal Partner auf einer Seite
de 3 A war 3-mal besser platziert | 3-mal die gleiche Punktzahl | 3-mal Partner auf einer Seite
"""


@pytest.mark.parametrize("row", TALLY_WORDS.strip().splitlines())
def test_the_tally_says_never_once_and_n_times(row: str) -> None:
    """Every count in the form its number takes: none, one, several (ngettext)."""
    language, count, words = row.split(" ", 2)
    n = int(count)
    higher, ties, partners = words.split(" | ")
    found = HeadToHead("fido", None, count=4 * n, a_higher=n, b_higher=n, ties=n, partners=n)
    with translation.override(language):
        said = tally_sentence("A", "B", found)
    assert said == "; ".join([higher, "B" + higher[1:], ties, partners]) + "."


def test_page_links_and_form(client: Client, shared) -> None:
    a, b = shared
    player_page = client.get(f"/players/{a.player_id}/").content.decode()
    assert f'action="/players/{a.player_id}/versus/"' in player_page
    assert 'list="compare-suggestions"' in player_page
    response = client.get(f"/players/{a.player_id}/versus/?other=%20{b.player_id}%20")
    assert response.status_code == 302
    assert response["Location"] == f"/players/{a.player_id}/versus/{b.player_id}/"
    zora = PlayerFactory(player_id="P-HZ", name="Zora Unique")
    by_name = client.get(f"/players/{a.player_id}/versus/?other=zora")
    assert by_name["Location"] == f"/players/{a.player_id}/versus/{zora.player_id}/"
    allfives = client.get(f"/players/{a.player_id}/versus/?other={b.player_id}&discipline=allfives")
    assert allfives["Location"].endswith("?discipline=allfives")


@pytest.mark.parametrize(
    ("after", "status", "message"),
    [
        pytest.param("?other=", 400, "player to compare with", id="empty"),
        pytest.param("?other=Anna", 404, "No player matches “Anna”", id="nobody"),
        pytest.param("?other=Player", 400, "Several players match “Player”", id="several"),
        pytest.param("P-GONE/", 404, "No player has the federation id “P-GONE”", id="gone"),
        pytest.param("P-HA/", 400, "Both ids are Player A", id="themselves"),
    ],
)
def test_page_refuses_whom_it_cannot_compare_with(
    client: Client, shared, after: str, status: int, message: str
) -> None:
    a, _ = shared
    response = client.get(f"/players/{a.player_id}/versus/{after}")
    assert response.status_code == status
    assert message in response.content.decode()


def test_page_bad_input(client: Client, shared) -> None:
    a, b = shared
    german = client.get(f"/players/{a.player_id}/versus/{a.player_id}/", HTTP_ACCEPT_LANGUAGE="de")
    assert "Beide" in german.content.decode()
    bad = client.get(f"/players/{a.player_id}/versus/{b.player_id}/?discipline=chess")
    assert bad.status_code == 400
    assert client.get(f"/players/P-NOBODY/versus/{b.player_id}/").status_code == 404


def test_queries_do_not_grow_with_the_matches(club, people) -> None:
    a, b, c, d = (people[n] for n in "ABCD")

    def queries(other) -> int:
        with CaptureQueriesContext(connection) as captured:
            head_to_head(a.pk, other.pk, discipline="fido")
        return len(captured.captured_queries)

    # A and B share 2 matches, A and C 16, in the same two months.
    for month in ("03", "04"):
        submit_table(club, [([a], 5), ([b], 1)], id=f"b{month}", date=f"2026-{month}-02")
        for n in range(8):
            sides = [([a], n), ([c], 4), ([d], 2)]
            submit_table(club, sides, id=f"c{month}{n}", date=f"2026-{month}-1{n}")
        close(f"2026-{month}")
    assert head_to_head(a.pk, c.pk, discipline="fido").count == 16
    assert queries(c) == queries(b)


def test_a_merged_id(client: Client, shared) -> None:
    a, b = shared
    old = PlayerFactory(player_id="P-HOLD", name="Player A (old record)")
    old.merged_into = a
    old.save(update_fields=["merged_into"])
    moved = client.get(f"/players/{old.player_id}/versus/{b.player_id}/?discipline=fido")
    assert moved.status_code == 301
    assert moved["Location"] == f"/players/{a.player_id}/versus/{b.player_id}/?discipline=fido"
    assert client.get(f"/players/{a.player_id}/versus/{old.player_id}/").status_code == 301
    # The same player after the merge: refused on the page and in the API.
    assert client.get(f"/players/{a.player_id}/versus/{a.player_id}/").status_code == 400
    same = client.get(API.format("fido", a.player_id, old.player_id))
    assert same.status_code == 400
    body = client.get(API.format("fido", old.player_id, b.player_id)).json()
    assert body["player_id"] == a.player_id and body["count"] == 6
