"""Token authentication (matches.apis.auth): DRF's contract, the user and their clubs in
one statement."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.apis.auth import ApiToken, FastTokenAuthentication
from matches.selectors import secretary_clubs
from matches.services.tokens import token_issue
from tests.matches.api.conftest import counts, errors_at
from tests.matches.factories import ClubFactory, SecretaryFactory, UserFactory

pytestmark = pytest.mark.django_db


def post(api, body, token, **headers):
    return api.post(
        "/api/matches",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
        **headers,
    )


def test_a_secretary_of_two_clubs_submits_for_either_and_no_other(api, club, secretary, table):
    second = ClubFactory(club_id="CLUB-2ND")
    SecretaryFactory(user=secretary, club=second)
    token = token_issue(user=secretary)[0]

    assert post(api, table(id="own"), token).status_code == 201
    foreign = table(id="foreign")
    foreign["club"] = ClubFactory(club_id="CLUB-ZZZ").club_id
    refused = post(api, foreign, token)

    assert refused.status_code == 403
    assert "CLUB-2ND" in refused.json()["errors"][0]["message"]
    assert club.club_id in refused.json()["errors"][0]["message"]


def test_an_inactive_user_is_401(api, secretary, table):
    token = token_issue(user=secretary)[0]
    secretary.is_active = False
    secretary.save()

    response = post(api, table(), token)

    assert response.status_code == 401
    assert "inactive" in response.json()["errors"][0]["message"]
    assert counts()["Match"] == 0


def test_a_token_of_a_user_without_a_club_is_403(api, table):
    token = token_issue(user=UserFactory())[0]

    response = post(api, table(), token)

    assert response.status_code == 403
    assert errors_at(response) == ["club"]


def test_the_clubs_come_with_the_user(api, secretary, table):
    token = token_issue(user=secretary)[0]
    with CaptureQueriesContext(connection) as queries:
        response = post(api, table(), token)

    assert response.status_code == 201
    assert sum("matches_secretary" in q["sql"] for q in queries) == 1


def test_an_unknown_token_is_401_in_the_callers_language(api, table):
    response = api.post(
        "/api/matches",
        data=json.dumps(table()),
        content_type="application/json",
        HTTP_AUTHORIZATION="Token nope",
        HTTP_ACCEPT_LANGUAGE="de",
    )

    assert response.status_code == 401
    assert response.json()["errors"][0]["message"] == "Ungültiges Token."


def test_the_clubs_travel_as_an_explicit_object_not_on_the_user(club, secretary):
    second = ClubFactory(club_id="CLUB-2ND")
    SecretaryFactory(user=secretary, club=second)
    key = token_issue(user=secretary)[0]

    user, auth = FastTokenAuthentication().authenticate_credentials(key)

    assert isinstance(auth, ApiToken) and auth.key == key
    assert auth.clubs.user_id == user.pk == secretary.pk
    assert [c.club_id for c in auth.clubs.clubs] == sorted([club.club_id, "CLUB-2ND"])
    assert auth.clubs == secretary_clubs(user=secretary)  # what a session login reads
    assert not any("club" in name for name in vars(user))  # nothing stashed on the user


def test_a_one_match_request_with_a_key_runs_the_statements_of_performance_md(
    api, secretary, table
):
    """docs/performance.md, "What a one-match request does": the user with their clubs;
    then, in one transaction, the players, the discipline's lock, the last closed month,
    the stored revisions, the one statement writing the rows, the idempotency record."""
    token = token_issue(user=secretary)[0]
    post(api, table(id="warm-up"), token)  # first request of the process: caches warm
    with CaptureQueriesContext(connection) as queries:
        response = post(api, table(id="counted"), token, HTTP_IDEMPOTENCY_KEY="counted-1")

    assert response.status_code == 201, response.json()
    # Under the test's own transaction BEGIN and COMMIT are a savepoint and its release;
    # SQLite has no advisory lock and writes the rows with one INSERT per table.
    assert len(queries) == (9 if connection.vendor == "postgresql" else 12), [
        q["sql"][:60] for q in queries
    ]


def test_a_batch_of_ten_with_a_key_runs_the_same_statements_as_one_match(api, secretary, table):
    """A batch reads its players, locks, reads the closed month and the stored revisions,
    and writes its rows, the idempotency record included, in as many statements as one
    match: none per match (docs/performance.md)."""
    token = token_issue(user=secretary)[0]
    post(api, table(id="warm-up"), token)  # first request of the process: caches warm
    batch = {"matches": [table(id=f"counted-{n}") for n in range(10)]}
    with CaptureQueriesContext(connection) as queries:
        response = post(api, batch, token, HTTP_IDEMPOTENCY_KEY="counted-10")

    assert response.status_code == 201, response.json()
    assert response.json()["created"] == 10
    assert len(queries) == (9 if connection.vendor == "postgresql" else 12), [
        q["sql"][:60] for q in queries
    ]
