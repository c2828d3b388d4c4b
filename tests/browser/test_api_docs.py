"""/api/docs/ works offline (issue 15, item 5): Swagger UI comes from the project's static
files (drf-spectacular-sidecar, pinned by the lock file), so the page renders the schema
with every request to another host refused."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_api_docs_render_with_other_hosts_blocked(page: Any, live_server: Any) -> None:
    own = urlsplit(live_server.url).netloc
    refused: list[str] = []
    fetched: list[str] = []

    def only_our_host(route: Any) -> None:
        url = route.request.url
        if urlsplit(url).netloc == own:
            fetched.append(url)
            route.continue_()
        else:
            refused.append(url)
            route.abort()

    page.route("**/*", only_our_host)
    page.goto("/api/docs/")
    # Swagger UI rendered the schema: its title and an operation of the submission API.
    page.wait_for_selector(".swagger-ui .info .title")
    assert "FIDO results and world-ranking API" in page.inner_text(".swagger-ui .info .title")
    page.wait_for_selector(".opblock-summary-path[data-path='/api/matches']")
    assert refused == []
    assert any("/static/drf_spectacular_sidecar/swagger-ui-dist/" in url for url in fetched)


def test_the_docs_page_names_no_other_host(client: Any) -> None:
    html = client.get("/api/docs/").content.decode()
    assert "cdn.jsdelivr.net" not in html and "@latest" not in html
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in html
