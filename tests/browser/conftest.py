"""Browser tests: Playwright driving Debian's Chromium against pytest-django's live server.

Never a downloaded browser: ``/usr/bin/chromium`` (the Debian package) is launched by path.
Without it the tests skip on a developer's machine and FAIL under ``CI=true``.

Playwright's sync API runs an event loop in the test's thread; Django then refuses its
synchronous database calls in that thread ("SynchronousOnlyOperation") unless told that
this is safe, which it is here: the loop only drives the browser. The ``browser`` fixture
sets ``DJANGO_ALLOW_ASYNC_UNSAFE`` for as long as the browser lives, and only then: left
set for the whole session it would leak into other tests (``check --deploy`` refuses it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import IN_CI

ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TIMEOUT_MS = 20_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: apt-get install chromium (never a downloaded browser)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    previous = os.environ.get(ASYNC_UNSAFE)
    os.environ[ASYNC_UNSAFE] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                yield chromium
            finally:
                chromium.close()
    finally:
        if previous is None:
            os.environ.pop(ASYNC_UNSAFE, None)
        else:
            os.environ[ASYNC_UNSAFE] = previous


@pytest.fixture
def page(browser: Any, live_server: Any) -> Iterator[Any]:
    """A fresh browser tab (its own cookies) in English, 1280 pixels wide."""
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, locale="en-GB", base_url=live_server.url
    )
    context.set_default_timeout(TIMEOUT_MS)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield tab
    finally:
        context.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.fixture(autouse=True)
def _fast_passwords(fast_passwords: None) -> None:
    """Every browser test logs users in (``set_now`` is the suite's, tests/conftest.py)."""


def log_in(page: Any, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state()
    assert "/accounts/login/" not in page.url, "the login was refused"


def admin_dashboard(page: Any, username: str) -> Any:
    """Log a new superuser ``username`` in and open the dashboard's FIDO card (returned)."""
    from tests.matches.factories import UserFactory

    admin = UserFactory(is_staff=True, is_superuser=True, username=username)
    admin.set_password("pw-12345678")
    admin.save()
    log_in(page, username, "pw-12345678")
    page.goto("/dashboard/#discipline-fido")
    return page.locator("#discipline-fido")


def suggestions(field: Any, typed: str, options: Any) -> list[tuple[str | None, str | None]]:
    """Type ``typed`` into ``field``; the (value, label) of each suggestion of the
    ``options`` locator (a datalist's options), once the first is there."""
    field.fill(typed)
    options.first.wait_for(state="attached")
    return [(o.get_attribute("value"), o.get_attribute("label")) for o in options.all()]
