"""Idempotency-Key on POSTs: a retry gets the first response and stores nothing twice."""

from __future__ import annotations

import json
import threading
import time

import pytest
from django.db import connection
from rest_framework.test import APIClient

from matches import services, store
from matches.models import IdempotencyRecord, Match
from tests.matches.api.conftest import counts, errors_at
from tests.matches.factories import SecretaryFactory

URL = "/api/matches"


def post(client, body, key=None):
    headers = {"Idempotency-Key": key} if key is not None else {}
    return client.post(URL, data=json.dumps(body), content_type="application/json", headers=headers)


@pytest.mark.django_db
def test_a_retry_gets_the_first_response_and_stores_nothing(as_secretary, table):
    first = post(as_secretary, table(), key="abc-1")
    after_first = counts()

    retry = post(as_secretary, table(), key="abc-1")

    assert first.status_code == retry.status_code == 201
    assert retry.json() == first.json()
    assert retry.json()["created"] is True  # the FIRST response, not "already stored"
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert counts() == after_first
    assert after_first["IdempotencyRecord"] == 1
    record = IdempotencyRecord.objects.get()
    assert (record.key, record.status_code) == ("abc-1", 201)
    assert record.response_body == first.json()


@pytest.mark.django_db
def test_the_same_key_with_another_body_is_422(as_secretary, table):
    post(as_secretary, table(), key="abc-2")
    before = counts()

    response = post(as_secretary, table(id="another"), key="abc-2")

    assert response.status_code == 422
    assert errors_at(response) == ["Idempotency-Key"]
    assert counts() == before


@pytest.mark.django_db
def test_the_same_key_on_another_endpoint_is_422(as_admin, table):
    created = post(as_admin, table(), key="k")
    pk = created.json()["pk"]

    response = as_admin.post(
        f"/api/matches/{pk}/void",
        data=json.dumps(table()),
        content_type="application/json",
        headers={"Idempotency-Key": "k"},
    )

    assert response.status_code == 422
    assert not Match.objects.get().is_voided


@pytest.mark.django_db
def test_an_error_response_is_replayed_too(as_secretary, table):
    bad = {**table(), "date": "2026-99-99"}
    first = post(as_secretary, bad, key="bad-1")

    retry = post(as_secretary, bad, key="bad-1")

    assert first.status_code == retry.status_code == 400
    assert retry.json() == first.json()
    assert counts()["Match"] == 0
    assert IdempotencyRecord.objects.get().status_code == 400


@pytest.mark.django_db
def test_keys_are_per_user(api, secretary, club, table):
    other = SecretaryFactory(club=club).user
    api.force_authenticate(secretary)
    post(api, table(), key="shared")
    api.force_authenticate(other)

    response = post(api, table(id="t-other"), key="shared")

    assert response.status_code == 201
    assert IdempotencyRecord.objects.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["x" * 201, "   "], ids=["too long", "blank"])
def test_a_bad_key_is_400_and_stores_nothing(as_secretary, table, key):
    response = post(as_secretary, table(), key=key)

    assert response.status_code == 400
    assert errors_at(response) == ["Idempotency-Key"]
    assert counts()["Match"] == 0


@pytest.mark.django_db
def test_a_key_of_200_characters_is_fine(as_secretary, table):
    assert post(as_secretary, table(), key="k" * 200).status_code == 201


@pytest.mark.django_db
def test_a_server_error_is_not_stored(as_secretary, table, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(services, "match_batch_submit", broken)
    as_secretary.raise_request_exception = False

    response = post(as_secretary, table(), key="k-500")

    assert response.status_code == 500
    assert not IdempotencyRecord.objects.exists()


def _slow_submit(monkeypatch, seconds=0.4):
    """Keep the first request inside its transaction long enough for the twin to arrive."""
    real = services.match_batch_submit

    def slow(**kwargs):
        outcome = real(**kwargs)
        time.sleep(seconds)
        return outcome

    monkeypatch.setattr(services, "match_batch_submit", slow)


def _slow_store(monkeypatch, seconds=0.4):
    """Both twins find no stored match, then wait before inserting theirs."""
    real = store.write

    def slow(*args, **kwargs):
        time.sleep(seconds)
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "write", slow)


def _twins(user, body, key, other_key=None):
    """Two clients POST the same thing at once (the second with ``other_key`` if given);
    returns their responses."""
    barrier = threading.Barrier(2)
    responses = [None, None]

    def run(slot):
        client = APIClient()
        client.force_authenticate(user)
        barrier.wait()
        try:
            responses[slot] = post(client, body, key=other_key if slot and other_key else key)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(slot,)) for slot in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return responses


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_requests_with_one_key_store_once(secretary, table, monkeypatch):
    _slow_submit(monkeypatch)

    first, second = _twins(secretary, table(), key="race-1")

    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    assert {
        first.headers.get("Idempotent-Replayed"),
        second.headers.get("Idempotent-Replayed"),
    } == {
        None,
        "true",
    }
    assert Match.objects.count() == 1
    assert IdempotencyRecord.objects.count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_identical_posts_without_key_store_once(secretary, table, monkeypatch):
    _slow_store(monkeypatch)

    first, second = _twins(secretary, table(), key=None)

    assert sorted([first.status_code, second.status_code]) == [200, 201]
    assert first.json()["pk"] == second.json()["pk"]
    assert Match.objects.count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_identical_posts_with_two_keys_store_once(secretary, table, monkeypatch):
    """Both claim their key, both find no match, both insert: the loser's transaction (its
    claim included) rolls back and runs again, and answers as for a match already stored."""
    _slow_store(monkeypatch)

    first, second = _twins(secretary, table(), key="twin-a", other_key="twin-b")

    assert sorted([first.status_code, second.status_code]) == [200, 201]
    assert first.json()["pk"] == second.json()["pk"]
    assert Match.objects.count() == 1
    assert sorted(IdempotencyRecord.objects.values_list("key", "status_code")) == [
        ("twin-a", first.status_code),
        ("twin-b", second.status_code),
    ]
