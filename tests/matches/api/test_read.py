"""GET /api/matches, /api/matches/{pk}, /api/me: who reads what, filters, paging."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from matches.models import Match
from tests.clock import BERLIN
from tests.matches.api.conftest import errors_at
from tests.matches.factories import PlayerFactory, SecretaryFactory, match_payload

pytestmark = pytest.mark.django_db


def submit(client, payload):
    response = client.post(
        "/api/matches", data=json.dumps(payload), content_type="application/json"
    )
    assert response.status_code == 201, response.json()
    return response.json()["pk"]


@pytest.fixture
def stored(as_admin, table, other_club, players, now):
    """Three matches of CLUB-7 (one late) and one of CLUB-9; returns their pks by name."""
    pks = {
        "a": submit(as_admin, table(id="a", date="2026-03-02")),
        "b": submit(as_admin, table(id="b", date="2026-03-14", category="league")),
    }
    now(dt.datetime(2026, 4, 2, 10, tzinfo=BERLIN))
    pks["late"] = submit(as_admin, table(id="late", date="2026-03-30"))
    foreign = [([PlayerFactory(club=other_club)], 3), ([players[9]], 1)]
    pks["foreign"] = submit(as_admin, match_payload(other_club, foreign, id="f"))
    return pks


def ids(response):
    assert response.status_code == 200, response.json()
    return [row["id"] for row in response.json()["results"]]


def test_a_secretary_lists_their_clubs_matches_only(as_secretary, stored):
    response = as_secretary.get("/api/matches")

    assert ids(response) == ["late", "b", "a"]  # newest received first
    assert response.json()["count"] == 3


def test_an_admin_lists_every_club(as_admin, stored):
    assert sorted(ids(as_admin.get("/api/matches"))) == ["a", "b", "f", "late"]


def test_a_user_without_a_club_lists_nothing(api, stored):
    from tests.matches.factories import UserFactory

    api.force_authenticate(UserFactory())

    assert ids(api.get("/api/matches")) == []


def test_anonymous_cannot_list(api, stored):
    response = api.get("/api/matches")

    assert response.status_code == 401
    errors_at(response)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("status=late", ["late"]),
        ("status=on_time", ["b", "a"]),
        ("counting_month=2026-04", ["late"]),
        ("counting_month=2026-03", ["b", "a"]),
        ("category=league", ["b"]),
        ("discipline=allfives", []),
        ("date_from=2026-03-10&date_to=2026-03-29", ["b"]),
        ("club=CLUB-7", ["late", "b", "a"]),
        ("club=CLUB-9", []),  # another club's: nothing, for a secretary
        ("player=P-NOBODY", []),
    ],
)
def test_filters(as_secretary, stored, query, expected):
    assert ids(as_secretary.get(f"/api/matches?{query}")) == expected


def test_filter_by_player(as_admin, stored, players):
    assert ids(as_admin.get(f"/api/matches?player={players[9].player_id}")) == ["f"]
    assert len(ids(as_admin.get(f"/api/matches?player={players[0].player_id}"))) == 3


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("counting_month=2026-13", "counting_month"),
        ("counting_month=March", "counting_month"),
        ("date_from=yesterday", "date_from"),
        ("status=lost", "status"),
        ("date_from=2026-03-10&date_to=2026-03-01", "date_to"),
    ],
)
def test_bad_filters_are_400_with_the_parameter(as_secretary, query, path):
    response = as_secretary.get(f"/api/matches?{query}")

    assert response.status_code == 400
    assert errors_at(response) == [path]


def test_paging(as_secretary, stored):
    first = as_secretary.get("/api/matches?page_size=2")
    second = as_secretary.get("/api/matches?page_size=2&page=2")

    assert ids(first) == ["late", "b"]
    assert first.json()["next"].endswith("page=2&page_size=2")
    assert ids(second) == ["a"]
    assert as_secretary.get("/api/matches?page=9").status_code == 404


def test_the_list_does_not_query_per_match(as_admin, stored, django_assert_max_num_queries):
    with django_assert_max_num_queries(6):
        response = as_admin.get("/api/matches")
    assert len(response.json()["results"]) == 4


def test_a_match_in_full(as_secretary, stored, players, secretary):
    response = as_secretary.get(f"/api/matches/{stored['late']}")

    assert response.status_code == 200
    body = response.json()
    assert body["id"] == "late"
    assert body["club"] == "CLUB-7"
    assert body["sides"] == [
        {"position": 1, "score": 57, "players": [players[0].player_id]},
        {"position": 2, "score": 31, "players": [players[1].player_id]},
        {"position": 3, "score": 31, "players": [players[2].player_id]},
        {"position": 4, "score": -4, "players": [players[3].player_id]},
    ]
    assert (body["status"], body["counting_month"], body["date"]) == (
        "late",
        "2026-04",
        "2026-03-30",
    )
    assert body["received_at"] == "2026-04-02T10:00:00+02:00"
    assert body["correction_deadline"] == "2026-05-01T00:00:00+02:00"
    assert (body["channel"], body["voided"], body["replaces"], body["replaced_by"]) == (
        "api",
        False,
        None,
        None,
    )


def test_another_clubs_match_is_404(as_secretary, stored):
    response = as_secretary.get(f"/api/matches/{stored['foreign']}")

    assert response.status_code == 404
    assert errors_at(response) == [""]


def test_a_missing_match_is_404(as_admin):
    assert as_admin.get("/api/matches/999999").status_code == 404


def test_me_shows_clubs_and_the_deadline(as_secretary, secretary, other_club, now):
    SecretaryFactory(user=secretary, club=other_club)
    now(dt.datetime(2026, 3, 30, 22, 0, 0, tzinfo=BERLIN))

    response = as_secretary.get("/api/me")

    assert response.status_code == 200
    body = response.json()
    assert body["username"] == secretary.username
    assert body["is_admin"] is False
    assert [c["club_id"] for c in body["clubs"]] == ["CLUB-7", "CLUB-9"]
    assert body["open_month"] == "2026-03"
    assert body["deadline"] == "2026-04-01T00:00:00+02:00"
    assert body["seconds_to_deadline"] == 26 * 3600
    assert body["countdown"] == "1 day 02:00:00"


def test_me_needs_a_login(api):
    assert api.get("/api/me").status_code == 401


def test_me_with_a_token(api, secretary):
    from matches.services.tokens import token_issue

    key, _record = token_issue(user=secretary)

    response = api.get("/api/me", headers={"Authorization": f"Token {key}"})

    assert response.status_code == 200
    assert response.json()["clubs"][0]["club_id"] == "CLUB-7"


def test_match_rows_survive_a_round_trip(as_admin, stored):
    # Guards test_filters: the fixture really stored what the filters are checked against.
    assert Match.objects.get(pk=stored["late"]).status == "late"
    assert Match.objects.filter(status="on_time").count() == 2
