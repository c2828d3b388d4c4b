"""HTTP caching of published lists (issue 12, item 5) and the seal on the page, the API, the
downloads and the feed (issue 14, item 1)."""

from __future__ import annotations

import base64
import hashlib

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rankings.http_cache import CURRENT_MAX_AGE, IMMUTABLE
from tests.rankings.factories import close
from tests.rankings.test_commands import march_results, run  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

# A version of a month's list never changes; a month's latest version may (an erratum).
MONTH_URLS = [
    "/ranking/fido/2026-03/v1/",
    "/api/rankings/fido/2026-03?version=1",
    "/api/rankings/fido/2026-03.json?version=1",
]
CURRENT_URLS = [
    "/ranking/fido/",
    "/api/rankings/fido",
    "/ranking/fido/2026-03/",
    "/api/rankings/fido/2026-03",
    "/api/rankings/fido/2026-03.json",
]


@pytest.fixture
def march(march_results):  # noqa: F811
    cache.clear()
    ranking_list = close("2026-03")
    yield ranking_list
    cache.clear()


def _list_queries(captured: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in captured.captured_queries if "rankings_" in q["sql"]]


def test_the_download_carries_its_content_hash_as_etag_and_digest(client, march) -> None:
    response = client.get("/api/rankings/fido/2026-03.csv", {"version": 1})
    body = b"".join(response.streaming_content)
    sha = hashlib.sha256(body).hexdigest()
    out, _ = run("export_ranking", "2026-03")
    assert body == out.encode("utf-8")
    assert sha == march.content_sha256
    assert response["ETag"] == f'"{sha}"'
    assert response["Digest"] == "sha-256=" + base64.b64encode(bytes.fromhex(sha)).decode()
    assert response["Cache-Control"] == IMMUTABLE == "public, max-age=31536000, immutable"
    latest = client.get("/api/rankings/fido/2026-03.csv")
    assert latest["ETag"] == response["ETag"]
    assert latest["Cache-Control"] == f"public, max-age={CURRENT_MAX_AGE}"


@pytest.mark.parametrize(
    "url", [*MONTH_URLS, "/api/rankings/fido/2026-03.csv?version=1", *CURRENT_URLS]
)
def test_a_conditional_get_answers_304_without_reading_the_list_tables(client, march, url) -> None:
    first = client.get(url)
    assert first.status_code == 200
    etag = first["ETag"]
    with CaptureQueriesContext(connection) as captured:
        again = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    assert _list_queries(captured) == []
    expected = IMMUTABLE if "version=" in url or "/v1/" in url else None
    expected = expected or f"public, max-age={CURRENT_MAX_AGE}"
    if url.startswith("/ranking/"):  # pages: browsers only (a CSRF token in the page)
        expected = expected.replace("public", "private")
    assert again["Cache-Control"] == first["Cache-Control"] == expected
    # Another tag (an older copy) gets the whole response.
    assert client.get(url, HTTP_IF_NONE_MATCH='"something-else"').status_code == 200


def test_pages_are_not_left_to_shared_caches(client, march) -> None:
    page = client.get("/ranking/fido/2026-03/v1/")
    assert "csrfmiddlewaretoken" in page.content.decode()
    assert page["Cache-Control"] == "private, max-age=31536000, immutable"
    assert "csrftoken" in page.cookies
    api = client.get("/api/rankings/fido/2026-03", {"version": 1})
    assert api["Cache-Control"] == IMMUTABLE and not api.cookies


def test_each_representation_has_its_own_tag(client, march) -> None:
    tags = {client.get(url)["ETag"] for url in [*MONTH_URLS, *CURRENT_URLS]}
    tags.add(client.get("/ranking/fido/2026-03/", {"country": "DE"})["ETag"])
    tags.add(client.get("/ranking/fido/2026-03/", HTTP_ACCEPT_LANGUAGE="de")["ETag"])
    # A download's tag is its bytes' hash: the latest version and v1 are the same file.
    assert len(tags) == len(MONTH_URLS) + len(CURRENT_URLS) + 2 - 1
    json = [client.get(f"/api/rankings/fido/2026-03.json{q}")["ETag"] for q in ("", "?version=1")]
    assert json[0] == json[1]


def test_bad_requests_are_not_cached(client, march) -> None:
    for url in [
        "/api/rankings/fido/2026-02.csv",
        "/api/rankings/nope/2026-03",
        "/ranking/fido/2026-13/",
    ]:
        response = client.get(url, HTTP_IF_NONE_MATCH="*")
        assert response.status_code in {400, 404}, url
        assert "ETag" not in response and "immutable" not in response.get("Cache-Control", "")


def test_the_seal_is_shown_on_the_page_in_the_api_and_in_the_feed(client, march) -> None:
    page = client.get("/ranking/fido/2026-03/").content.decode()
    assert march.content_sha256 in page and march.inputs_sha256 in page
    seal = client.get("/api/rankings/fido/2026-03").json()["list"]["seal"]
    assert seal == {
        "content_sha256": march.content_sha256,
        "inputs_sha256": march.inputs_sha256,
        "inputs_count": 4,
        "fladub_version": "1",
        "code_version": march.code_version,
    }
    feed = client.get("/feeds/lists.atom").content.decode()
    assert f"SHA-256 of the CSV download: {march.content_sha256}." in feed
    # The whole seal, as on the page and in the API (acceptance of issue 14, item 1).
    assert (
        f"SHA-256 of the 4 results it was computed from: {march.inputs_sha256}. "
        f"FLADUB definition version 1; software {march.code_version}."
    ) in feed
    german = client.get("/feeds/lists.atom", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert (
        f"SHA-256 der 4 Ergebnisse, aus denen sie berechnet wurde: {march.inputs_sha256}" in german
    )


def test_the_seal_footer_speaks_german(client, march) -> None:
    page = client.get("/ranking/fido/2026-03/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Diese Liste prüfen" in page and "SHA-256 des CSV-Downloads" in page
    assert "SHA-256 der 4 Ergebnisse, aus denen sie berechnet wurde" in page
