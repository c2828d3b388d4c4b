"""GET /api/players?q= (issue 15, item 1): find a player by name, federation id, club or
country; public, paged, public fields only, namesakes told apart."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation
from rest_framework.test import APIClient

from tests.matches.factories import ClubFactory, PlayerFactory

pytestmark = pytest.mark.django_db
URL = "/api/players"


@pytest.fixture
def registry() -> dict[str, Any]:
    pankow = ClubFactory(club_id="CLUB-PAN", name="Dominoclub Pankow", country="DE")
    sju = ClubFactory(club_id="CLUB-SJU", name="Dominó San Juan", country="PR")
    players = {
        "berg_de": PlayerFactory(player_id="P-000010", name="Anna Berg", country="DE", club=pankow),
        "berg_pr": PlayerFactory(player_id="P-000011", name="Anna Berg", country="PR", club=sju),
        "ortiz": PlayerFactory(player_id="P-000012", name="Luis Ortiz", country="PR", club=sju),
        "old": PlayerFactory(player_id="P-000013", name="Anna Bergmann", country="DE", club=None),
    }
    merged = PlayerFactory(player_id="P-000099", name="Anna Berg", country="DE", club=pankow)
    merged.merged_into = players["berg_de"]
    merged.save()
    return players


def ids(response: Any) -> list[str]:
    assert response.status_code == 200, response.json()
    return [row["player_id"] for row in response.json()["results"]]


def test_namesakes_are_told_apart_by_id_club_and_country(registry: Any) -> None:
    response = APIClient().get(URL, {"q": "anna berg"})
    assert ids(response) == ["P-000010", "P-000011", "P-000013"]  # merged P-000099 is not
    first, second = response.json()["results"][:2]
    assert first == {
        "player_id": "P-000010",
        "name": "Anna Berg",
        "country": "DE",
        "country_name": "Germany",
        "club": "CLUB-PAN",
        "club_name": "Dominoclub Pankow",
    }
    assert (second["club"], second["country"]) == ("CLUB-SJU", "PR")
    assert response.json()["results"][2]["club"] is None


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("p-00001", ["P-000010", "P-000011", "P-000013", "P-000012"]),  # id; by name
        ("P-000012", ["P-000012"]),
        ("club-sju", ["P-000011", "P-000012"]),  # the club's id
        ("san juan", ["P-000011", "P-000012"]),  # the club's name
        ("berg pr", ["P-000011"]),  # a name and a country: every word must match
        ("ortiz", ["P-000012"]),
        ("nobody", []),
    ],
)
def test_every_word_matches_a_name_an_id_a_club_or_a_country(
    registry: Any, q: str, expected: list[str]
) -> None:
    assert ids(APIClient().get(URL, {"q": q})) == expected


def test_paged(registry: Any) -> None:
    body = APIClient().get(URL, {"q": "p-0000", "page_size": 2}).json()
    assert body["count"] == 4 and len(body["results"]) == 2 and body["next"]
    assert ids(APIClient().get(body["next"])) == ["P-000013", "P-000012"]  # by name


def test_short_text_finds_nobody_and_long_text_is_a_400(registry: Any) -> None:
    assert APIClient().get(URL, {"q": "a"}).json() == {
        "count": 0,
        "next": None,
        "previous": None,
        "results": [],
    }
    response = APIClient().get(URL, {"q": "x" * 101})
    assert response.status_code == 400
    assert response.json() == {"errors": [{"path": "q", "message": "at most 100 characters"}]}


def test_country_names_follow_the_language(registry: Any) -> None:
    with translation.override("de"):
        body = APIClient().get(URL, {"q": "P-000010"}, HTTP_ACCEPT_LANGUAGE="de").json()
    assert body["results"][0]["country_name"] == "Deutschland"


def test_the_schema_documents_the_search() -> None:
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/players"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"q", "page", "page_size"}
