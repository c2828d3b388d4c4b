"""POST /api/matches/{pk}/correct and /void: deadlines, roles, and what changes."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from matches.audit import recording
from matches.models import ClosedMonth, Match, MatchEvent, SideMember
from tests.clock import BERLIN
from tests.matches.api.conftest import counts, errors_at
from tests.matches.factories import SecretaryFactory

pytestmark = pytest.mark.django_db

LAST_SECOND = dt.datetime(2026, 3, 31, 23, 59, 59, tzinfo=BERLIN)
FIRST_OF_APRIL = dt.datetime(2026, 4, 1, 0, 0, 0, tzinfo=BERLIN)


def post(client, url, body):
    return client.post(url, data=json.dumps(body), content_type="application/json")


@pytest.fixture
def match_pk(as_secretary, table, now):
    now(dt.datetime(2026, 3, 15, 18, tzinfo=BERLIN))
    response = post(as_secretary, "/api/matches", table(date="2026-03-10"))
    assert response.status_code == 201
    return response.json()["pk"]


def corrected(table):
    payload = table(date="2026-03-10")
    payload["sides"][3]["score"] = -6
    del payload["id"], payload["club"]
    return payload


def test_a_secretary_corrects_until_the_last_second(as_secretary, match_pk, table, now):
    now(LAST_SECOND)

    response = post(
        as_secretary,
        f"/api/matches/{match_pk}/correct",
        {"match": corrected(table), "reason": "pips miscounted"},
    )

    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["revision"], body["replaces"], body["counting_month"]) == (2, match_pk, "2026-03")
    assert body["sides"][3]["score"] == -6
    old = Match.objects.get(pk=match_pk)
    assert old.is_voided
    assert old.void_effective_month == dt.date(2026, 3, 1)
    assert old.replaced_by.pk == body["pk"]
    assert (
        SideMember.objects.filter(match=old, void_effective_month=dt.date(2026, 3, 1)).count() == 4
    )
    assert MatchEvent.objects.filter(kind="corrected").count() == 2
    detail = as_secretary.get(f"/api/matches/{match_pk}").json()
    assert (detail["voided"], detail["replaced_by"]) == (True, body["pk"])


def test_after_the_deadline_a_secretary_is_403(as_secretary, match_pk, table, now):
    now(FIRST_OF_APRIL)
    before = counts()

    response = post(as_secretary, f"/api/matches/{match_pk}/correct", {"match": corrected(table)})

    assert response.status_code == 403
    assert "deadline" in response.json()["errors"][0]["message"]
    assert counts() == before


def test_an_admin_corrects_after_the_deadline(as_admin, match_pk, table, now):
    now(FIRST_OF_APRIL)

    response = post(as_admin, f"/api/matches/{match_pk}/correct", {"match": corrected(table)})

    assert response.status_code == 201
    assert (response.json()["status"], response.json()["counting_month"]) == ("late", "2026-04")


def test_a_correction_is_validated_like_a_submission(as_secretary, match_pk, table):
    bad = corrected(table)
    bad["sides"][0]["score"] = "abc"
    bad["sides"][1]["players"] = ["P-999999"]
    before = counts()

    response = post(as_secretary, f"/api/matches/{match_pk}/correct", {"match": bad})

    assert response.status_code == 400
    assert set(errors_at(response)) == {"match.sides[0].score"}
    assert counts() == before


def test_a_correction_keeps_the_id(as_secretary, match_pk, table):
    response = post(
        as_secretary,
        f"/api/matches/{match_pk}/correct",
        {"match": {**corrected(table), "id": "other"}},
    )

    assert response.status_code == 400
    assert errors_at(response) == ["match.id"]


@pytest.mark.parametrize(
    ("body", "path"),
    [({}, "match"), ({"match": "x"}, "match"), ([1], "")],
    ids=["no match", "match not an object", "not an object"],
)
def test_a_bad_correction_body_is_400(as_secretary, match_pk, body, path):
    response = post(as_secretary, f"/api/matches/{match_pk}/correct", body)

    assert response.status_code == 400
    assert path in errors_at(response)


def test_another_clubs_secretary_cannot_correct(api, match_pk, other_club, table):
    api.force_authenticate(SecretaryFactory(club=other_club).user)

    response = post(api, f"/api/matches/{match_pk}/correct", {"match": corrected(table)})

    assert response.status_code == 404
    assert Match.objects.count() == 1


def test_a_replaced_revision_cannot_be_corrected_again(as_secretary, match_pk, table):
    post(as_secretary, f"/api/matches/{match_pk}/correct", {"match": corrected(table)})

    response = post(as_secretary, f"/api/matches/{match_pk}/correct", {"match": corrected(table)})

    assert response.status_code == 403
    assert Match.objects.count() == 2


def test_an_admin_voids_from_the_first_open_month(as_admin, match_pk, now):
    with recording():
        ClosedMonth.objects.create(
            discipline="fido", month=dt.date(2026, 3, 1), closed_at=FIRST_OF_APRIL
        )
    now(dt.datetime(2026, 4, 10, 9, tzinfo=BERLIN))

    response = post(as_admin, f"/api/matches/{match_pk}/void", {"reason": "table never played"})

    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["voided"], body["void_effective_month"]) == (True, "2026-04")
    assert body["void_reason"] == "table never played"
    match = Match.objects.get(pk=match_pk)
    assert match.void_effective_month == dt.date(2026, 4, 1)
    assert set(SideMember.objects.values_list("void_effective_month", flat=True)) == {
        dt.date(2026, 4, 1)
    }
    event = MatchEvent.objects.get(kind="voided")
    assert (event.reason, event.details["effective_month"]) == ("table never played", "2026-04")


def test_a_void_of_an_open_month_takes_effect_in_it(as_admin, match_pk):
    response = post(as_admin, f"/api/matches/{match_pk}/void", {"reason": "duplicate"})

    assert response.json()["void_effective_month"] == "2026-03"


def test_a_void_needs_a_reason(as_admin, match_pk):
    for body in ({}, {"reason": ""}, {"reason": "   "}):
        response = post(as_admin, f"/api/matches/{match_pk}/void", body)
        assert response.status_code == 400
        assert errors_at(response) == ["reason"]
    assert not Match.objects.get().is_voided


def test_a_secretary_cannot_void(as_secretary, match_pk):
    response = post(as_secretary, f"/api/matches/{match_pk}/void", {"reason": "mine"})

    assert response.status_code == 403
    assert not Match.objects.get().is_voided


def test_a_void_twice_is_400(as_admin, match_pk):
    post(as_admin, f"/api/matches/{match_pk}/void", {"reason": "once"})

    response = post(as_admin, f"/api/matches/{match_pk}/void", {"reason": "twice"})

    assert response.status_code == 400
    assert MatchEvent.objects.filter(kind="voided").count() == 1
