"""The what-if calculator page (GET /ranking/<d>/whatif/): the same answer as the API, every
bad field named by its row and opponent in English and German with a 400, nothing written."""

from __future__ import annotations

import pytest
from django.test import Client

from matches.models import SideMember
from rankings.models import RankingEntry
from tests.rankings.test_whatif import MONTHS, history, listed

pytestmark = pytest.mark.django_db
URL = "/ranking/fido/whatif/"


def table(row: int, category: str, by: str, own: str, *opponents: tuple[str, str]) -> dict:
    """The form fields of one table of the calculator (row ``row``, opponents from slot 1)."""
    fields = {f"r{row}-category": category, f"r{row}-by": by, f"r{row}-own": own}
    for slot, (player_id, result) in enumerate(opponents, start=1):
        fields |= {f"r{row}-opp{slot}": player_id, f"r{row}-res{slot}": result}
    return fields


def test_the_page_answers_as_the_api_does(client: Client) -> None:
    rows = listed(history(7))
    me, first, second = rows[-1][0], rows[0][0], rows[1][0]
    before = (SideMember.objects.count(), RankingEntry.objects.count())
    page = client.get(
        URL,
        {
            "player": me.lower(),  # typed in lower case: the page reads it as the id
            "month": "2026-04",
            **table(0, "national", "placing", "1", (first, "2"), (second, "3")),
            **table(2, "club", "score", "120", (second, " 80 ")),
        },
    )
    assert page.status_code == 200
    api = client.post(
        "/api/rankings/fido/whatif",
        {
            "player_id": me,
            "month": "2026-04",
            "results": [
                {
                    "category": "national",
                    "placing": 1,
                    "opponents": [
                        {"player_id": first, "placing": 2},
                        {"player_id": second, "placing": 3},
                    ],
                },
                {
                    "category": "club",
                    "score": 120,
                    "opponents": [{"player_id": second, "score": 80}],
                },
            ],
        },
        content_type="application/json",
    ).json()
    assert (SideMember.objects.count(), RankingEntry.objects.count()) == before
    text = page.content.decode()
    assert f"With these results: rank {api['rank']}, FLADUB {api['fladub']}." in text
    assert f"Without them (the projection): rank {api['projected_rank']}," in text
    assert "Provisional: against the projected list of April 2026" in text


def _errors(client: Client, params: dict[str, str], **headers: str) -> list[str]:
    page = client.get(URL, params, **headers)
    assert page.status_code == 400, page.content.decode()[:500]
    return [str(e) for e in page.context["form"].errors]


def test_each_bad_field_is_named_by_row_and_opponent(client: Client) -> None:
    rows = listed(history(8))
    me, other = rows[0][0], rows[1][0]
    good = {"player": me, "month": "2026-04", "r0-own": "1", "r0-opp1": other, "r0-res1": "2"}
    assert client.get(URL, good).status_code == 200
    cases = [
        ({"player": ""}, "player", "Give the player's federation id"),
        ({"player": "P-NOBODY"}, "player", "No player has the federation id P-NOBODY."),
        ({"month": "2026-03"}, "month", "2026-03 is already closed."),
        ({"month": "May"}, "month", "Give the month as YYYY-MM."),
        ({"r0-own": "first"}, "r0-own", "Result 1: give a whole number, not “first”."),
        ({"r0-own": ""}, "r0-own", "Result 1: give the player's placing or score."),
        ({"r0-own": "3"}, "r0-own", "Result 1: A table of 2 sides has no place 3."),
        ({"r0-res1": ""}, "r0-res1", "Result 1, opponent 1: give the opponent's placing"),
        (
            {"r0-opp1": "", "r0-opp2": "P-GHOST", "r0-res1": "", "r0-res2": "2"},
            "r0-opp2",
            "Result 1, opponent 2: No player has the federation id P-GHOST.",
        ),
        ({"r0-opp1": me}, "r0-opp1", f"Result 1, opponent 1: {me} is already at this table."),
        ({"r0-category": "galactic"}, "r0-category", "Result 1: choose a category."),
    ]
    for change, field, words in cases:
        page = client.get(URL, {**good, **change})
        assert page.status_code == 400, (change, page.status_code)
        errors = page.context["form"].errors
        assert errors[0][0] == field, (change, errors)
        assert words in errors[0][1], (change, errors)
    many = {**good}
    for n in range(1, 21):
        many.update({f"r{n}-own": "1", f"r{n}-opp1": other, f"r{n}-res1": "2"})
    page = client.get(URL, many)
    assert page.status_code == 400
    assert "At most 20 results at a time" in page.context["form"].errors[0][1]
    german = client.get(URL, {**good, "r0-opp1": "P-X"}, HTTP_ACCEPT_LANGUAGE="de")
    assert german.status_code == 400
    assert german.context["form"].errors[0][1] == (
        "Ergebnis 1, Gegner 1: Niemand hat die Verbandsnummer P-X."
    )
    assert "Es wurde nichts berechnet" in german.content.decode()


def test_the_empty_form_and_no_projection(client: Client) -> None:
    assert client.get("/ranking/nope/whatif/").status_code == 404
    page = client.get(URL)
    assert page.status_code == 200 and "There is no projected list yet" in page.content.decode()
    history(9)
    page = client.get(URL)
    assert page.status_code == 200
    assert page.context["form"].month == "2026-04" and len(page.context["rows"]) == 5
    assert not page.context["form"].errors and page.context["answer"] is None
    assert MONTHS[3].first_day.isoformat() == "2026-04-01"


def test_the_player_pages_link_fills_in_the_player_without_an_error(client: Client) -> None:
    """The finding (acceptance of issue 13): the player page links the calculator with
    ``?player=<id>`` alone, which answered a 400 "Nothing was calculated: give at least one
    result" before anything was typed. Now the link fills the form in; sending it with no
    result is still refused."""
    me = listed(history(10))[0][0]
    page = client.get(URL, {"player": me})
    assert page.status_code == 200
    assert page.context["form"].errors == [] and page.context["form"].player == me
    assert f'value="{me}"' in page.content.decode()
    sent = client.get(URL, {"player": me, "month": "2026-04", "r0-own": "", "r0-opp1": ""})
    assert sent.status_code == 400
    assert "at least one result" in sent.context["form"].errors[0][1]
