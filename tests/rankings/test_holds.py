"""Holding a discipline's close (rankings.services.holds): recorded events with who, when
and why; the beat skips a held close and says so in its log; the dashboard refuses the
close and offers the release; secretaries see that the close is held."""

from __future__ import annotations

import datetime as dt
import logging

import pytest
from django.test import Client

from fido.celery import app as celery_app
from rankings.models import CloseHold, CloseRun
from rankings.selectors.holds import close_hold, close_holds
from rankings.services.holds import HoldRefused, close_hold_release, close_hold_set
from rankings.services.schedule import due_months_enqueue
from tests.matches.factories import ClubFactory, PlayerFactory, SecretaryFactory, UserFactory
from tests.rankings.factories import after_deadline, submit_table

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fast_passwords")]


@pytest.fixture
def march():
    club = ClubFactory(club_id="CLUB-H")
    a, b = PlayerFactory(club=club), PlayerFactory(club=club)
    submit_table(club, [([a], 5), ([b], 1)], id="h1", date="2026-03-10")
    return club


def test_hold_and_release_are_recorded_events() -> None:
    admin = UserFactory(is_staff=True)
    at = dt.datetime(2026, 3, 31, 20, tzinfo=dt.UTC)
    held = close_hold_set(
        discipline="fido", reason="  club X  doubled its volume ", by=admin, now=at
    )
    assert (held.action, held.reason, held.by, held.at) == (
        "hold",
        "club X doubled its volume",
        admin,
        at,
    )
    assert close_hold("fido") == held and list(close_holds()) == ["fido"]
    with pytest.raises(HoldRefused, match="already held"):
        close_hold_set(discipline="fido", reason="again", by=admin)
    released = close_hold_release(discipline="fido", reason="checked: fine", by=admin)
    assert close_hold("fido") is None and close_holds() == {}
    assert list(CloseHold.objects.order_by("at", "id")) == [held, released]
    with pytest.raises(HoldRefused, match="not held"):
        close_hold_release(discipline="fido", reason="x", by=admin)


@pytest.mark.parametrize(
    ("discipline", "reason"), [("fido", "   "), ("chess", "why"), ("fido", "x" * 2001)]
)
def test_bad_input_records_nothing(discipline: str, reason: str) -> None:
    with pytest.raises(HoldRefused):
        close_hold_set(discipline=discipline, reason=reason, by=None)
    assert not CloseHold.objects.exists()


def test_beat_skips_a_held_close_and_says_so(march, monkeypatch, caplog) -> None:
    sent: list[str] = []
    monkeypatch.setattr(celery_app, "send_task", lambda name, **kw: sent.append(name))
    close_hold_set(discipline="fido", reason="suspicious volume", by=None)
    with caplog.at_level(logging.WARNING, logger="rankings.services.schedule"):
        assert due_months_enqueue(now=after_deadline("2026-03", minutes=60)) == []
    assert not CloseRun.objects.exists()
    assert "close of fido 2026-03 is due but held since" in caplog.text
    assert "suspicious volume" in caplog.text
    close_hold_release(discipline="fido", reason="fine", by=None)
    runs = due_months_enqueue(now=after_deadline("2026-03", minutes=60))
    assert [(r.discipline, str(r.month)) for r in runs] == [("fido", "2026-03-01")]


def test_the_dashboard_holds_refuses_the_close_and_releases(client: Client, march, set_now) -> None:
    set_now(after_deadline("2026-03", minutes=60))
    client.force_login(UserFactory(is_staff=True, username="boss"))
    response = client.post(
        "/dashboard/hold/", {"discipline": "fido", "action": "hold", "reason": "check club H"}
    )
    assert response.status_code == 303
    page = client.get("/dashboard/").content.decode()
    assert "Held since" in page and "check club H" in page
    assert "The close is held: check club H (release it first)." in page
    refused = client.post(
        "/dashboard/close/", {"discipline": "fido", "month": "2026-03", "confirm": "yes"}
    )
    assert refused.status_code == 400 and not CloseRun.objects.exists()
    bad = client.post("/dashboard/hold/", {"discipline": "fido", "action": "release", "reason": ""})
    assert bad.status_code == 400 and "Give a reason" in bad.content.decode()
    assert "Nothing was held or released:" in bad.content.decode()  # not "The close was refused"
    odd = client.post(
        "/dashboard/hold/", {"discipline": "fido", "action": "explode", "reason": "x"}
    )
    assert odd.status_code == 400
    ok = client.post(
        "/dashboard/hold/", {"discipline": "fido", "action": "release", "reason": "fine"}
    )
    assert ok.status_code == 303 and close_hold("fido") is None


def test_strangers_cannot_hold(client: Client) -> None:
    assert (
        client.post(
            "/dashboard/hold/", {"discipline": "fido", "action": "hold", "reason": "x"}
        ).status_code
        == 302
    )
    client.force_login(UserFactory(is_staff=False))
    assert (
        client.post(
            "/dashboard/hold/", {"discipline": "fido", "action": "hold", "reason": "x"}
        ).status_code
        == 403
    )
    assert not CloseHold.objects.exists()


def test_secretaries_see_that_the_close_is_held(client: Client, march) -> None:
    secretary = SecretaryFactory(club=march)
    client.force_login(secretary.user)
    assert "is held by the federation" not in client.get("/secretary/").content.decode()
    close_hold_set(discipline="fido", reason="internal reason", by=None)
    page = client.get("/secretary/").content.decode()
    assert "is held by the federation" in page
    assert "internal reason" not in page  # the admin's reason stays on the dashboard
    german = client.get("/secretary/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "is held by the federation" not in german and "vom Verband angehalten" in german
