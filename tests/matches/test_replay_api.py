"""``POST /api/records/replay``: 200 with the report, 400 with field paths, never 5xx."""

import json

import pytest
from rest_framework.test import APIClient

from .rules.fido_records import DOMINO_GAME, SECTION_2_EXAMPLE

URL = "/api/records/replay"

pytestmark = pytest.mark.django_db


@pytest.fixture
def client():
    return APIClient()


def post_json(client, body, **extra):
    text = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.post(URL, data=text, content_type="application/json", **extra)


def test_replays_a_record(client):
    response = post_json(client, DOMINO_GAME)
    assert response.status_code == 200
    report = response.json()
    assert report["games"][0]["end"] == "domino"
    assert report["games"][0]["moves"][0] == {
        "n": 1,
        "player": "A",
        "tile": "6-6",
        "count": 12,
        "points": 4,
    }
    assert report["session"]["players"]["C"] == {"total": -13, "money": "0.00"}


def test_illegal_move_is_a_400_naming_move_and_player(client):
    response = post_json(client, SECTION_2_EXAMPLE)
    assert response.status_code == 400
    assert response.json() == {
        "errors": [
            {
                "path": "games[0].moves[4]",
                "move": 5,
                "player": "A",
                "rule": "pass-while-playable",
                "message": "A can place 18-7 and must play",
            }
        ]
    }


def test_schema_error_is_a_400_naming_the_field(client):
    data = {**DOMINO_GAME, "moves": [*DOMINO_GAME["moves"][:3], {"player": "A", "tile": "6-9"}]}
    response = post_json(client, data)
    assert response.status_code == 400
    assert response.json() == {
        "errors": [{"path": "moves[3].tile", "message": "9-6 is not in the double-6 set"}]
    }
    data["moves"][3] = {"player": "A", "tile": "25-0"}
    assert post_json(client, data).json()["errors"][0] == {
        "path": "moves[3].tile",
        "message": "tile ends go up to 21, got '25-0'",
    }


def test_partial_query_parameter(client):
    data = {**SECTION_2_EXAMPLE, "moves": SECTION_2_EXAMPLE["moves"][:4]}
    assert post_json(client, data).status_code == 400
    response = client.post(
        f"{URL}?partial=true", data=json.dumps(data), content_type="application/json"
    )
    assert response.status_code == 200
    assert response.json()["games"][0]["end"] == "unfinished"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"variant": ', "not valid JSON: Expecting value at line 1, column 13"),
        ("", "not valid JSON: Expecting value at line 1, column 1"),
        (b"\xff\xfe{}", "the body is not UTF-8 text"),
        ("[" * 100_000 + "]" * 100_000, "the JSON is nested too deeply"),
    ],
)
def test_malformed_json_is_a_400(client, body, message):
    response = post_json(client, body)
    assert response.status_code == 400
    assert response.json() == {"errors": [{"path": "", "message": message}]}


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ([], ""),
        ("null", ""),
        ('"text"', ""),
        ({"variant": {"game": "fido", "set": "18"}}, "variant.set"),
        ({**DOMINO_GAME, "seats": "ABC"}, "seats"),
        ({**DOMINO_GAME, "hands": {"A": [1, 2], "B": [], "C": []}}, "hands.A[0]"),
        ({**DOMINO_GAME, "moves": [{"player": "A", "tile": None}]}, "moves[0].tile"),
        ({**DOMINO_GAME, "moves": [{"player": ["A"], "pass": True}]}, "moves[0].player"),
        ({**DOMINO_GAME, "variant": {"game": ["fido"]}}, "variant.game"),
        ({**DOMINO_GAME, "variant": {"game": "fido", "set": 1e400}}, "variant.set"),
    ],
)
def test_wrong_types_are_400s_with_paths(client, body, path):
    response = post_json(client, body)
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == path


def test_too_large_body_is_a_413(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = post_json(client, {**DOMINO_GAME, "padding": "x" * 2000})
    assert response.status_code == 413
    assert response.json() == {
        "errors": [{"path": "", "message": "the record is larger than 512 KiB"}]
    }


def test_public_without_login_or_csrf(client):
    strict = APIClient(enforce_csrf_checks=True)
    assert post_json(strict, DOMINO_GAME).status_code == 200


def test_get_is_not_allowed(client):
    assert client.get(URL).status_code == 405


def test_route_is_in_the_openapi_schema(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    operation = schema["paths"]["/api/records/replay"]["post"]
    assert operation["operationId"] == "records_replay"
    # 429: every endpoint is throttled (fido/openapi.py)
    assert set(operation["responses"]) == {"200", "400", "413", "415", "429"}
