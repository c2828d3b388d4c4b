"""The OpenAPI schema at /api/schema/ is valid OpenAPI 3 and documents the endpoints."""

from __future__ import annotations

import os

import pytest
from drf_spectacular.validation import validate_schema

from tests.processes import run_python

pytestmark = pytest.mark.django_db


def test_the_schema_is_valid_and_has_the_endpoints(api):
    response = api.get("/api/schema/", {"format": "json"})

    assert response.status_code == 200
    schema = response.json()
    validate_schema(schema)
    paths = schema["paths"]
    assert {"get", "post"} <= set(paths["/api/matches"])
    assert "get" in paths["/api/matches/{id}"]
    assert "post" in paths["/api/matches/{id}/correct"]
    assert "post" in paths["/api/matches/{id}/void"]
    assert "get" in paths["/api/me"]
    assert "post" in paths["/api/auth/token"]
    submit = paths["/api/matches"]["post"]
    assert "Idempotency-Key" in [p["name"] for p in submit["parameters"]]
    assert {"201", "400", "401", "403", "413", "422", "429"} <= set(submit["responses"])
    listing = [p["name"] for p in paths["/api/matches"]["get"]["parameters"]]
    for name in ("club", "discipline", "status", "counting_month", "date_from", "player", "page"):
        assert name in listing


def test_the_schema_generates_without_warnings(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["FIDO_VAR_DIR"] = str(tmp_path)
    result = run_python("manage.py", "spectacular", "--validate", "--fail-on-warn", env=env)
    assert result.returncode == 0, result.stderr[-3000:]


def test_swagger_ui_renders(api):
    response = api.get("/api/docs/")

    assert response.status_code == 200
    assert b"swagger" in response.content.lower()
