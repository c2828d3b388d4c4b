"""Text is validated once, at the boundary, for every field (issue 16, item 4).

The finding: a NUL in a field with an ``Idempotency-Key``, a NUL inside a player id and a
lone surrogate in an id each gave a 500; U+202E was accepted in ids. Now each is a 400
naming the field, nothing is stored, and no arbitrary Unicode in any field of the API, the
query string, the web form or the CSV gives a 5xx.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fido.text import bad_strings, json_text_problems, scrub, text_problem
from matches import sql
from matches.apis.idempotency import _json
from matches.models import IdempotencyRecord
from tests.matches.api.conftest import counts, errors_at

URL = "/api/matches"
pytestmark = pytest.mark.django_db

#: Every character, lone surrogates and controls included (Hypothesis leaves Cs out unless
#: told).
ANY_CHAR = st.characters(codec=None, categories=None, exclude_categories=())
ANY_TEXT = st.text(ANY_CHAR, max_size=40)


def post(client: Any, body: Any, key: str | None = None) -> Any:
    headers = {"Idempotency-Key": key} if key else {}
    # json.dumps escapes NUL and lone surrogates (\u0000, \ud800): valid JSON on the wire.
    return client.post(URL, data=json.dumps(body), content_type="application/json", headers=headers)


@pytest.mark.parametrize(
    ("char", "words"),
    [
        ("\x00", "control character (U+0000)"),
        ("\x1b", "control character (U+001B)"),
        ("\x85", "control character (U+0085)"),
        ("\ud800", "unpaired surrogate (U+D800)"),
        ("\u202e", "bidirectional override (U+202E)"),
        ("\u2066", "bidirectional override (U+2066)"),
    ],
)
def test_the_refused_characters_are_named_by_code_point(char: str, words: str) -> None:
    reason = text_problem(f"CLUB-BER/{char}x")
    assert reason is not None
    assert words in reason
    assert char not in reason


@pytest.mark.parametrize("ok", ["Ærø Ünal", "Ελένη", "محمد", "a\tb\r\nc", "👍🏽", "\u200f"])
def test_ordinary_text_of_any_script_passes(ok: str) -> None:
    assert text_problem(ok) is None


def test_the_three_findings_are_400s_naming_the_field(as_secretary, table) -> None:
    before = counts()
    cases = [
        ({**table(), "category": "club\x00"}, "abc-nul", "category"),
        (table(), None, "sides[0].players[0]"),
        ({**table(), "id": "CLUB-BER/\ud800x"}, None, "id"),
        ({**table(), "id": "CLUB-BER/\u202egpj.exe"}, None, "id"),
    ]
    cases[1][0]["sides"][0]["players"][0] = "P-0\x0001"
    for body, key, path in cases:
        response = post(as_secretary, body, key)
        assert response.status_code == 400, response.content
        assert path in errors_at(response)
    stored = {k: v for k, v in counts().items() if k != "IdempotencyRecord"}
    assert stored == {k: v for k, v in before.items() if k != "IdempotencyRecord"}
    # the 400 with the key is stored (a retry replays it), its body holding no NUL
    assert IdempotencyRecord.objects.get().status_code == 400


def test_a_refused_field_name_is_a_400_too_and_its_error_is_replayed(as_secretary, table):
    before = counts()
    response = post(as_secretary, {**table(), "no\x00te": 1}, key="k-name")
    assert response.status_code == 400
    assert "field name" in response.json()["errors"][0]["message"]
    retry = post(as_secretary, {**table(), "no\x00te": 1}, key="k-name")
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert retry.json() == response.json()
    assert counts()["Match"] == before["Match"]


def test_every_refused_string_is_listed_in_document_order() -> None:
    found = list(bad_strings({"id": "a\x00", "sides": [{"players": ["ok", "b\u202e"]}]}))
    assert [path for path, _ in found] == ["id", "sides[0].players[1]"]


def test_the_idempotency_store_never_fails_on_an_error_body() -> None:
    from tests.matches.factories import UserFactory

    body = {"errors": [{"path": "x\x00", "message": "quoted \x00 and \ud800 and \u202e"}]}
    record = IdempotencyRecord(
        user=UserFactory(),
        key="k",
        request_hash="0" * 64,
        status_code=400,
        response_body=_json(body),
    )
    sql.insert([record])  # jsonb holds no NUL; the driver cannot encode a lone surrogate
    stored = IdempotencyRecord.objects.get().response_body
    assert stored == scrub(body)
    assert "\x00" not in json.dumps(stored) and "\\u0000" not in json.dumps(stored)


@pytest.mark.parametrize("refused", ["\x85", "\u2066", "\ud800", "\x00", "\x08", "\x0c"])
def test_a_refused_character_in_a_stored_body_is_replaced_wherever_it_stands(refused) -> None:
    """The stored body is scrubbed when its JSON text holds an escape (json.dumps escapes
    every non-ASCII character), whether the character is in a value or a key."""
    body = {"errors": [{"path": "p", "message": f"m{refused}"}], f"k{refused}": 1}
    assert (
        _json(body)
        == scrub(body)
        == {
            "errors": [{"path": "p", "message": "m\ufffd"}],
            "k\ufffd": 1,
        }
    )


@pytest.mark.parametrize("escape", ["\\b", "\\f", "\\u0008", "\\u202e"])
def test_a_refused_character_sent_as_a_json_escape_is_found(escape) -> None:
    text = f'{{"records": {{"note": "a{escape}b"}}}}'
    assert [path for path, _ in json_text_problems(text, json.loads(text))] == ["records.note"]


def test_a_clean_body_is_stored_as_json_gives_it_back() -> None:
    body = {"matches": [{"id": "ÄÖ/1", "received_at": dt.datetime(2026, 3, 1, tzinfo=dt.UTC)}]}
    assert _json(body) == {"matches": [{"id": "ÄÖ/1", "received_at": "2026-03-01T00:00:00Z"}]}


def test_a_query_parameter_with_a_nul_is_a_json_400(as_secretary) -> None:
    response = as_secretary.get(URL, {"club": "CLUB-7\x00"})
    assert response.status_code == 400
    assert errors_at(response) == ["club"]


def _query(value: str) -> str:
    """``value`` percent-encoded as a client would send it (a lone surrogate as the bytes
    Python's surrogatepass gives: not UTF-8, which the server decodes as U+FFFD)."""
    return quote(value.encode("utf-8", "surrogatepass"), safe="")


def test_a_ranking_query_with_a_bidi_override_is_a_400_not_a_500(api) -> None:
    month = _query("2026-03\u202e")
    response = api.get(f"/api/rankings/fido/players/P-1?month={month}")
    assert response.status_code == 400
    assert errors_at(response) == ["month"]


def test_a_web_form_field_with_a_nul_is_refused_before_the_view(client: Client, club) -> None:
    from tests.matches.factories import SecretaryFactory

    client.force_login(SecretaryFactory(club=club).user)
    before = counts()
    response = client.post("/secretary/submit/", {"club": club.club_id, "date": "2026-03-14\x00"})
    assert response.status_code == 400
    assert "date" in response.content.decode()
    assert "U+0000" in response.content.decode()
    assert counts() == before


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    field=st.sampled_from(
        ["id", "date", "club", "discipline", "category", "player", "score", "key"]
    ),
    value=ANY_TEXT,
    with_key=st.booleans(),
)
def test_no_unicode_in_any_api_field_gives_a_5xx(as_secretary, table, field, value, with_key):
    body = table(id="hyp")
    if field == "player":
        body["sides"][1]["players"][0] = value
    elif field == "score":
        body["sides"][2]["score"] = value
    elif field == "key":
        body[value] = "x"
    else:
        body[field] = value
    response = post(as_secretary, body, key=uuid.uuid4().hex if with_key else None)
    assert response.status_code < 500, response.content
    if text_problem(value) is not None:
        assert response.status_code == 400


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(value=ANY_TEXT, param=st.sampled_from(["club", "discipline", "month", "page", "q"]))
def test_no_unicode_in_a_query_parameter_gives_a_5xx(as_secretary, value, param) -> None:
    for url in (URL, "/api/rankings/fido", "/api/rankings/fido/lists", "/ranking/fido/"):
        response = as_secretary.get(f"{url}?{param}={_query(value)}")
        assert response.status_code < 500, (url, response.content)


def test_a_pasted_record_with_a_bidi_override_is_refused_on_the_viewer(client: Client) -> None:
    record = json.dumps({"game": "fido", "seats": ["A\u202e", "B"]})
    response = client.post("/records/viewer/", {"record": record})
    assert response.status_code == 400
    assert "U+202E" in response.content.decode()


@pytest.mark.parametrize(
    "path",
    [
        "/players/{bad}/",
        "/players/{bad}/feed.atom",
        "/players/{bad}/badge.svg",
        "/players/P-1/versus/{bad}/",
        "/clubs/{bad}/",
        "/api/rankings/fido/players/{bad}",
        "/api/rankings/fido/players/{bad}/ledger",
        "/api/rankings/fido/players/{bad}/forecast",
        "/api/rankings/fido/players/P-1/head-to-head/{bad}",
    ],
)
def test_a_nul_in_a_path_id_is_a_400_naming_it_not_a_500(client: Client, path: str) -> None:
    """The finding (acceptance of issues 13/14): a NUL in the id of a page or API path
    reached PostgreSQL, which refuses it: a 500. Now the path's parameters pass the same
    boundary as the query string."""
    response = client.get(path.format(bad=quote("P-1\x00")))
    assert response.status_code == 400
    if path.startswith("/api/"):
        assert errors_at(response)[0] in {"player_id", "other_id"}
    else:
        assert "control character (U+0000)" in response.content.decode()
