"""The replay endpoint's documented body (issue 16, item 10): the schema ``/api/schema/``
serves for ``POST /api/records/replay`` is a game record per known game, never narrower
than the loader (docs/rules.md's worked examples and simulated games of every variant
validate, and the server replays them), and a body outside it is a 400 naming the field."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from matches.apis.records import EXAMPLE_RECORD
from matches.rules.registry import REGISTRY
from matches.rules.simulate import simulate
from tests.matches.rules.test_docs_examples import EXAMPLES

URL = "/api/records/replay"

pytestmark = pytest.mark.django_db


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0's ``nullable`` as JSON Schema (what jsonschema validates)."""
    if isinstance(node, list):
        return [_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _json_schema(v) for k, v in node.items() if k not in ("nullable", "example")}
    if node.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


OPERATION = SchemaGenerator().get_schema(request=None, public=True)["paths"][URL]["post"]
BODY = OPERATION["requestBody"]["content"]["application/json"]["schema"]
VALIDATOR = jsonschema.Draft4Validator(_json_schema(BODY))


@pytest.fixture
def api(settings) -> APIClient:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "1000000/min", "user": "1000000/min"},
    }
    return APIClient()


def replay(api: APIClient, record: dict[str, Any]) -> Any:
    return api.post(URL, data=record, format="json")


def test_the_body_is_a_record_of_each_known_game() -> None:
    variants = [branch["properties"]["variant"] for branch in BODY["oneOf"]]
    documented = {g for v in variants for g in v["properties"]["game"]["enum"]}
    assert documented == set(REGISTRY)
    assert VALIDATOR.is_valid(EXAMPLE_RECORD)
    jsonschema.Draft4Validator.check_schema(_json_schema(BODY))


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_worked_examples_are_documented_records_and_replay(api, name: str) -> None:
    record, _tables = EXAMPLES[name]
    assert list(VALIDATOR.iter_errors(record)) == []
    response = replay(api, record)
    assert response.status_code == 200, response.json()
    assert response.json()["games"]


SIMULATED = [
    ("fido", {"players": 3, "options": {"set": 6}}),
    ("fido", {"players": 4, "games": 2, "teams": True, "options": {"set": 9, "divisor": 5}}),
    ("muggins", {"players": 2}),
    ("fiveup", {"players": 4, "teams": True}),
    ("austrian", {"players": 3, "options": {"mode": "draw", "max_draws": 2}}),
    ("austrian", {"players": 4, "options": {"mode": "block"}}),
    ("buki", {"players": 4, "games": 3}),
    ("pulle", {"players": 4, "games": 6}),
]


@pytest.mark.parametrize(("game", "kwargs"), SIMULATED)
@pytest.mark.parametrize("seed", [1, 2])
def test_simulated_games_of_every_variant_are_documented_records(
    api, game: str, kwargs: dict[str, Any], seed: int
) -> None:
    record = simulate(game, seed=seed, **kwargs).record
    assert [e.message for e in VALIDATOR.iter_errors(record)] == []
    assert replay(api, record).status_code == 200


def _changed(path: list[Any], value: Any, base: dict[str, Any] = EXAMPLE_RECORD) -> Any:
    record = copy.deepcopy(base)
    node = record
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return record


BUKI = EXAMPLES["buki"][0]
PULLE = EXAMPLES["pulle"][0]
#: Bodies outside the schema, and the field the 400 names.
INVALID = [
    (_changed(["variant", "game"], "poker"), "variant.game"),
    (_changed(["variant", "set"], 7), "variant.set"),
    (_changed(["variant", "divisor"], "5"), "variant.divisor"),
    (_changed(["seats"], ["A"]), "seats"),
    (_changed(["seats"], [*"ABCDEFGHIJ"]), "seats"),
    (_changed(["seats"], ["A", "A", "C"]), "seats[1]"),
    (_changed(["hands", "A"], "6-6"), "hands.A"),
    (_changed(["hands", "A"], ["6-6", "6-6"]), "hands.A[1]"),
    (_changed(["moves", 0, "tiel"], "6-6"), "moves[0].tiel"),
    (_changed(["moves", 1, "facet"], "side"), "moves[1].facet"),
    (_changed(["moves", 3, "draw"], False), "moves[3].draw"),
    (_changed(["format"], "fido-game-record/2"), "format"),
    (_changed(["games", 0, "result", "pips", "B"], "9", BUKI), "games[0].result.pips.B"),
    (_changed(["games", 0, "result", "blocked"], 1, PULLE), "games[0].result.blocked"),
    (_changed(["games", 0, "moves", 0, "stake"], 4, BUKI), "games[0].moves[0].stake"),
    (_changed(["stakes"], {"min": "2"}, BUKI), "stakes"),
    (_changed(["games"], [], PULLE), "games"),
]


@pytest.mark.parametrize(("record", "path"), INVALID)
def test_a_body_outside_the_schema_is_a_400_naming_the_field(
    api, record: dict[str, Any], path: str
) -> None:
    assert not VALIDATOR.is_valid(record)
    response = replay(api, record)
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == path
