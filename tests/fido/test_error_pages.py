"""The site's error pages (issue 15, item 6): 400, 403, 404, 500 and a refused CSRF check in
the site's layout and the visitor's language, with a way back; a bad query parameter is a
400 without a traceback in the log."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.utils import translation

from fido.errors import permission_denied
from tests.matches.factories import PlayerFactory
from tests.rankings.web.conftest import publish

pytestmark = pytest.mark.django_db


def assert_styled(html: str) -> None:
    assert 'class="site-header"' in html and 'class="error-page"' in html
    assert 'href="/"' in html  # a way back
    assert "Traceback" not in html and "/work/" not in html and "<pre" not in html


@pytest.mark.parametrize(
    ("language", "title"), [("en", "Page not found"), ("de", "Seite nicht gefunden")]
)
def test_an_unknown_address_is_a_styled_404(client: Client, language: str, title: str) -> None:
    response = client.get("/no/such/page/", HTTP_ACCEPT_LANGUAGE=language)
    html = response.content.decode()
    assert response.status_code == 404
    assert_styled(html)
    assert title in html


def test_a_view_message_is_shown_on_the_404(client: Client) -> None:
    html = client.get("/players/P-NOBODY/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "No such player." in html or "Page not found" in html
    assert_styled(html)


@pytest.fixture
def a_list() -> None:
    """A published FIDO list of one player (the page parameters are read only then)."""
    publish("2026-03", [(PlayerFactory(player_id="P-000001"), 1, 1000, 1, None)])


@pytest.mark.parametrize(
    "url",
    [
        "/ranking/fido/?page=abc",
        "/ranking/fido/?page=0",
        "/ranking/fido/?from=x",
        "/ranking/fido/?after=zz",
        "/ranking/fido/?country=XYZ1",
        "/ranking/fido/2026-13/",
    ],
)
def test_a_bad_query_parameter_is_a_400_without_a_traceback(
    client: Client, caplog: pytest.LogCaptureFixture, url: str, a_list: None
) -> None:
    caplog.set_level(logging.DEBUG)
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="de")
    html = response.content.decode()
    assert response.status_code == 400
    assert_styled(html)
    assert "Die Anfrage konnte nicht verstanden werden" in html
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]


def test_the_page_parameter_says_what_is_wrong(client: Client, a_list: None) -> None:
    html = client.get("/ranking/fido/?page=abc", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "The page must be a whole number from 1." in html


def test_a_form_without_its_csrf_token_gets_the_styled_403() -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        "/accounts/login/", {"username": "x", "password": "y"}, HTTP_ACCEPT_LANGUAGE="de"
    )
    html = response.content.decode()
    assert response.status_code == 403
    assert_styled(html)
    assert "Das Formular konnte nicht angenommen werden" in html


def test_permission_denied_is_the_styled_403(rf: Any) -> None:
    request = rf.get("/dashboard/")
    request.user = AnonymousUser()
    with translation.override("en"):
        response = permission_denied(request, PermissionDenied())
    html = response.content.decode()
    assert response.status_code == 403
    assert_styled(html)
    assert "You may not open this page" in html
    assert 'href="/accounts/login/?next=/dashboard/"' in html


@pytest.mark.parametrize(
    ("language", "title"), [("en", "Something went wrong"), ("de", "Etwas ist schiefgegangen")]
)
def test_a_fault_is_the_styled_500(
    monkeypatch: pytest.MonkeyPatch, language: str, title: str
) -> None:
    def broken() -> Any:
        raise RuntimeError("/srv/secret/path: boom")

    monkeypatch.setattr("fido.views.current_lists", broken)
    client = Client(raise_request_exception=False)
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=language)
    html = response.content.decode()
    assert response.status_code == 500
    assert title in html and 'href="/"' in html
    assert "boom" not in html and "/srv/" not in html and "Traceback" not in html


def test_the_favicon_exists(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("favicon.svg")
    assert 'rel="icon"' in client.get("/").content.decode()
