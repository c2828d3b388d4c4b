"""What schemathesis found, each pinned (issue 16, item 10): the schema says what the API
checks, and the API refuses what the schema does not allow, with a 400 naming the field."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from django.core.wsgi import get_wsgi_application
from drf_spectacular.generators import SchemaGenerator

from fido.text import TEXT_PATTERN
from fido.wsgi_body import ChunkedBodyMiddleware
from matches.apis.records import EXAMPLE_RECORD
from matches.months import MONTH_PATTERN, Month
from tests.matches.api.conftest import counts, errors_at

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def _operations(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{method.upper()} {path}", operation)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
    ]


def test_every_text_parameter_states_the_text_rule(schema) -> None:
    for label, operation in _operations(schema):
        for parameter in operation.get("parameters", []):
            spec = parameter["schema"]
            if spec.get("type") == "string" and not {"enum", "format"} & set(spec):
                assert "pattern" in spec, (label, parameter["name"])


def test_the_text_pattern_refuses_what_fido_text_refuses() -> None:
    pattern = re.compile(TEXT_PATTERN)
    for refused in ("\x00", "a\x1fb", "\x7f", "\x85", "\u202e", "\u2066"):
        assert not pattern.match(refused), repr(refused)
    for accepted in ("", "Müller", "a\tb\nc\r", "P-000123", "日本"):
        assert pattern.match(accepted), repr(accepted)


def test_every_operation_documents_429_and_every_body_415(schema) -> None:
    for label, operation in _operations(schema):
        assert "429" in operation["responses"], label
        if "requestBody" in operation:
            assert {"400", "413", "415"} <= set(operation["responses"]), label
            assert set(operation["requestBody"]["content"]) == {"application/json"}, label


def test_the_month_pattern_and_the_parser_agree() -> None:
    pattern = re.compile(MONTH_PATTERN)
    for text in ("0001-01", "2026-03", "9998-12", "0000-01", "9999-01", "2026-13", " 2026-03"):
        try:
            parsed = Month.parse(text) is not None
        except ValueError:
            parsed = False
        assert parsed == bool(pattern.match(text)), text


@pytest.mark.parametrize("key", [" k", "k ", "schlüssel", "k\tk"])
def test_an_idempotency_key_outside_visible_ascii_is_400(as_secretary, table, key) -> None:
    response = as_secretary.post(
        "/api/matches",
        data=json.dumps(table()),
        content_type="application/json",
        headers={"Idempotency-Key": key},
    )
    assert response.status_code == 400
    assert errors_at(response) == ["Idempotency-Key"]
    assert counts()["Match"] == 0


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("page=0", "page"),
        ("page=abc", "page"),
        ("page=1000000000", "page"),
        ("page_size=null", "page_size"),
        ("page_size=0", "page_size"),
        ("page_size=201", "page_size"),
        ("status=", "status"),
        ("date_from=", "date_from"),
        ("counting_month=%202026-03", "counting_month"),
    ],
)
def test_a_malformed_match_list_parameter_is_400(as_secretary, query, field) -> None:
    response = as_secretary.get(f"/api/matches?{query}")
    assert response.status_code == 400
    assert errors_at(response) == [field]


def test_a_page_past_the_last_is_404(as_secretary) -> None:
    assert as_secretary.get("/api/matches?page=2").status_code == 404


@pytest.mark.parametrize("query", ["page_size=51", "page=-1", "page_size=x"])
def test_a_malformed_player_search_page_is_400(api, query) -> None:
    response = api.get(f"/api/players?q=ab&{query}")
    assert response.status_code == 400
    assert errors_at(response) == [query.split("=")[0]]


def test_replay_partial_is_true_or_false(api) -> None:
    response = api.post(
        "/api/records/replay?partial=maybe", data="{}", content_type="application/json"
    )
    assert response.status_code == 400
    assert errors_at(response) == ["partial"]


def test_the_token_endpoint_reads_json_only(api, secretary) -> None:
    response = api.post("/api/auth/token", {"username": secretary.username, "password": "x"})
    assert response.status_code == 415
    errors_at(response)


@pytest.fixture(autouse=True)
def unthrottled(settings) -> None:
    """The anonymous rate counts per address across the whole run (in Redis under CI):
    out of the way, so that earlier tests' requests cannot turn this module's into a 429."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "1000000/min", "user": "1000000/min"},
    }


def _wsgi_post(path: str, body: bytes, headers: dict[str, str]) -> tuple[str, bytes]:
    """POST through the WSGI application as fido.wsgi composes it, the body as a server
    hands a chunked one on: in ``wsgi.input``, with no ``CONTENT_LENGTH``."""
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "HTTP_TRANSFER_ENCODING": "chunked",
        **headers,
    }
    status: list[str] = []
    app = ChunkedBodyMiddleware(get_wsgi_application())
    chunks = app(environ, lambda code, _headers: status.append(code))
    return status[0], b"".join(chunks)


def test_a_chunked_body_is_read() -> None:
    status, body = _wsgi_post(
        "/api/records/replay",
        json.dumps(EXAMPLE_RECORD).encode(),
        {"CONTENT_TYPE": "application/json"},
    )
    assert status.startswith("200"), body[:300]
    assert json.loads(body)["games"]  # the example game, replayed


def test_a_chunked_body_over_the_limit_is_413_unread(settings) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    stream_body = b"[" + b"1," * 100_000 + b"1]"
    status, body = _wsgi_post(
        "/api/records/replay", stream_body, {"CONTENT_TYPE": "application/json"}
    )
    assert status.startswith("413"), body[:300]


def test_the_page_message_is_in_german_too(api) -> None:
    response = api.get("/api/players?q=ab&page=0", HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == (
        "Eine Seite ist eine ganze Zahl ab 1, zum Beispiel 2."
    )
