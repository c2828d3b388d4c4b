"""The submission form: stored through the one service path, every problem shown at its field."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from matches.models import Channel, Match, Submission
from matches.services import match_submit
from tests.clock import BERLIN, NOW
from tests.matches.factories import match_payload

from .conftest import counts, error_of, form_fields, text

pytestmark = pytest.mark.django_db


def form(**overrides: Any) -> dict[str, Any]:
    fields = {"club": "CLUB-7", "external_id": "CLUB-7/2026-03-14/t1", **overrides}
    sides = [("P-000001", "57"), ("P-000002", "31"), ("P-000003", "31"), ("P-000004", "-4")]
    return form_fields(sides, **fields)


def test_the_form_is_prefilled_with_a_suggested_id(sec_client: Client, club, players) -> None:
    html = sec_client.get("/secretary/submit/").content.decode()
    assert 'value="CLUB-7/2026-03-20/t1"' in html  # today in Berlin, first table
    assert 'name="csrfmiddlewaretoken"' in html
    for field in (
        "id_club",
        "id_date",
        "id_discipline",
        "id_category",
        "id_external_id",
        "sides-0-players",
        "sides-0-score",
        "sides-1-players",
        "sides-1-score",
    ):
        assert (
            f'<label class="visually-hidden" for="{field}"' in html
            or f'<label for="{field}"' in html
        )
    match_submit(
        club=club,
        payload=match_payload(
            club, [([players[0]], 1), ([players[1]], 0)], id="CLUB-7/2026-03-14/t1"
        ),
        submitted_by=None,
        now=NOW,
        channel="api",
    )
    again = sec_client.get(
        "/secretary/submit/?date=2026-03-14&discipline=allfives"
    ).content.decode()
    assert 'value="CLUB-7/2026-03-14/t2"' in again
    assert '<option value="allfives" selected>' in again


def test_happy_path_stores_the_match_and_tells_status_and_month(
    sec_client: Client, secretary, players
) -> None:
    response = sec_client.post(
        "/secretary/submit/", form(**{"sides-0-players": "P-000001, P-000005"})
    )
    assert response.status_code == 302
    assert response["Location"] == "/secretary/"

    match = Match.objects.get()
    assert match.external_id == "CLUB-7/2026-03-14/t1"
    assert match.status == "on_time" and match.counting_month == dt.date(2026, 3, 1)
    assert match.submission.channel == Channel.WEB
    assert match.submission.submitted_by == secretary
    sides = [
        (s.score, sorted(m.player.player_id for m in s.members.all()))
        for s in match.sides.order_by("position")
    ]
    assert sides == [
        (57, ["P-000001", "P-000005"]),
        (31, ["P-000002"]),
        (31, ["P-000003"]),
        (-4, ["P-000004"]),
    ]
    page = text(sec_client.get("/secretary/").content.decode())
    assert "Match CLUB-7/2026-03-14/t1 stored: on time, counts in 2026-03." in page


def test_a_late_match_says_so(sec_client: Client, set_now, players) -> None:
    set_now(dt.datetime(2026, 4, 2, 9, 0, tzinfo=BERLIN))
    response = sec_client.post("/secretary/submit/", form(), follow=True)
    assert "stored: late, counts in 2026-04." in text(response.content.decode())


def test_the_same_match_twice_is_stored_once(sec_client: Client, players) -> None:
    sec_client.post("/secretary/submit/", form())
    response = sec_client.post("/secretary/submit/", form(), follow=True)
    assert "already stored with the same content; nothing changed" in text(
        response.content.decode()
    )
    assert Match.objects.count() == 1


def _refused(sec_client: Client, data: dict[str, Any]) -> str:
    before = counts()
    response = sec_client.post("/secretary/submit/", data)
    assert response.status_code == 400
    assert counts() == before
    html = response.content.decode()
    assert "Nothing was stored" in text(html)
    return html


def test_a_duplicate_player_is_shown_on_its_row(sec_client: Client, players) -> None:
    html = _refused(sec_client, form(**{"sides-2-players": "P-000003, P-000001"}))
    assert "P-000001 appears twice in this match" in error_of(html, "sides-2-players_error")
    assert error_of(html, "sides-0-players_error") == ""
    assert 'id="sides-2-players" name="sides-2-players" value="P-000003, P-000001"' in html
    assert 'aria-invalid="true"' in html


def test_one_side_is_shown_on_the_sides_table(sec_client: Client, players) -> None:
    html = _refused(
        sec_client,
        form(**{f"sides-{i}-{f}": "" for i in (1, 2, 3) for f in ("players", "score")}),
    )
    assert "a match has 2 to 9 sides, not 1" in error_of(html, "sides_error")


def test_an_unknown_player_is_shown_on_its_row(sec_client: Client, players) -> None:
    html = _refused(sec_client, form(**{"sides-1-players": "P-000002, P-999999"}))
    assert "there is no player P-999999" in error_of(html, "sides-1-players_error")


def test_a_future_date_is_shown_on_the_date(sec_client: Client, players) -> None:
    html = _refused(sec_client, form(date="2026-03-21"))
    assert "is in the future" in error_of(html, "id_date_error")


def test_every_problem_at_once_each_at_its_field(sec_client: Client, players) -> None:
    html = _refused(
        sec_client,
        form(
            date="14.03.2026",
            discipline="",
            external_id="=HYPERLINK(1)",
            **{"sides-1-score": "x", "sides-3-score": "", "sides-2-players": "P-000001"},
        ),
    )
    assert "is not a date; write it as YYYY-MM-DD" in error_of(html, "id_date_error")
    assert "unknown discipline" in error_of(html, "id_discipline_error")
    assert "spreadsheet formula" in error_of(html, "id_external_id_error")
    assert "whole number" in error_of(html, "sides-1-score_error")
    assert "has no score" in error_of(html, "sides-3-score_error")
    assert "appears twice" in error_of(html, "sides-2-players_error")
    assert error_of(html, "id_category_error") == ""


def test_negative_and_signed_scores_are_fine(sec_client: Client, players) -> None:
    response = sec_client.post(
        "/secretary/submit/",
        form(discipline="austrian", **{"sides-0-score": "+0", "sides-1-score": "-12"}),
    )
    assert response.status_code == 302
    assert sorted(Match.objects.get().sides.values_list("score", flat=True)) == [-12, -4, 0, 31]


def test_without_javascript_plus_side_adds_a_row_and_stores_nothing(
    sec_client: Client, players
) -> None:
    response = sec_client.post("/secretary/submit/", form(add_side="1"))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="sides-4-players"' in html
    assert 'name="sides-3-players" value="P-000004"' in html  # what was typed is kept
    assert not Submission.objects.exists()


def test_without_javascript_remove_drops_that_row(sec_client: Client, players) -> None:
    html = sec_client.post("/secretary/submit/", form(remove_side="1")).content.decode()
    assert 'value="P-000002"' not in html
    assert 'name="sides-1-players" value="P-000003"' in html
    assert 'name="sides-3-players"' not in html
    assert not Match.objects.exists()


def test_blank_extra_rows_are_ignored(sec_client: Client, players) -> None:
    data = form(**{"sides-5-players": "", "sides-5-score": ""})
    assert sec_client.post("/secretary/submit/", data).status_code == 302
    assert Match.objects.get().sides.count() == 4


def test_csrf_is_enforced(client: Client, secretary, players, set_now) -> None:
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(secretary)
    assert csrf_client.post("/secretary/submit/", form()).status_code == 403
    assert not Match.objects.exists()
