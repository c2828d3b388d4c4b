"""API tokens hashed at rest, expiring and revocable (issue 16, item 8)."""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib

import pytest
from django.apps import apps
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from matches.models import ApiKey
from matches.services.tokens import token_issue

pytestmark = pytest.mark.django_db
URL = "/api/auth/token"


def me(key: str) -> int:
    return APIClient().get("/api/me", HTTP_AUTHORIZATION=f"Token {key}").status_code


def test_an_issued_token_works_and_only_its_digest_is_stored(secretary) -> None:
    secretary.set_password("pw-123456")
    secretary.save()
    response = APIClient().post(
        URL, {"username": secretary.username, "password": "pw-123456"}, format="json"
    )
    assert response.status_code == 200
    key = response.json()["token"]
    assert me(key) == 200
    stored = ApiKey.objects.get(user=secretary)
    assert stored.digest == hashlib.sha256(key.encode()).hexdigest()
    assert key not in {stored.digest, stored.prefix}
    assert not Token.objects.exists()  # no plaintext table in use


def test_an_expired_token_is_401(secretary) -> None:
    key, record = token_issue(user=secretary)
    assert me(key) == 200
    ApiKey.objects.filter(pk=record.pk).update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    assert me(key) == 401


def test_the_owner_revokes_a_token_with_delete(secretary) -> None:
    key, _record = token_issue(user=secretary)
    other, _ = token_issue(user=secretary)
    response = APIClient().delete(URL, HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 204
    assert me(key) == 401
    assert me(other) == 200  # only the presented token ends


def test_existing_plaintext_tokens_are_migrated_to_digests(secretary) -> None:
    old = Token.objects.create(user=secretary).key
    migration = importlib.import_module("matches.migrations.0001_squashed_0004_api_keys_hashed")
    migration.hash_existing_tokens(apps, None)
    assert not Token.objects.exists()
    assert me(old) == 200  # clients keep working until the token expires
    assert ApiKey.objects.get(user=secretary).expires_at > timezone.now() + dt.timedelta(days=80)
