"""One accepted request encoding and JSON errors for every /api/ path (issue 16, item 10:
text/plain and UTF-16 bodies were accepted; /api/matches/null,null answered an HTML 404)."""

from __future__ import annotations

import json

import pytest

from tests.matches.api.conftest import counts, errors_at

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "media", ["text/plain", "application/x-www-form-urlencoded", "application/octet-stream"]
)
def test_a_body_not_declared_json_is_a_415(as_secretary, table, media) -> None:
    before = counts()
    response = as_secretary.post("/api/matches", data=json.dumps(table()), content_type=media)
    assert response.status_code == 415
    errors_at(response)
    assert counts() == before


def test_a_utf16_body_is_refused_not_guessed(as_secretary, table) -> None:
    body = json.dumps(table()).encode("utf-16")
    response = as_secretary.post("/api/matches", data=body, content_type="application/json")
    assert response.status_code == 400
    assert "UTF-8" in response.json()["errors"][0]["message"]


def test_the_replay_api_wants_json_too(api) -> None:
    response = api.post("/api/records/replay", data="{}", content_type="text/plain")
    assert response.status_code == 415


@pytest.mark.parametrize("path", ["/api/matches/null,null", "/api/nothing", "/api/matches/1/x"])
def test_an_unknown_api_path_is_a_json_404(api, path) -> None:
    response = api.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    errors_at(response)


def test_a_site_page_that_does_not_exist_stays_html(client) -> None:
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
