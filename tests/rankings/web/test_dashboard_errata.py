"""The cycle dashboard's errata (issue 14, item 3): the button to publish a corrected version
appears when a correction or void touched a closed month, with those corrections listed;
pressing it (with a reason) hands an erratum run to a worker, whose progress the card shows;
"recompute later months" appears once a newer version leaves later lists behind. Bad input
is a 400 with the reason in English or German, and records nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from fido.celery import app as celery_app
from matches import clock
from matches.models import Match
from matches.services import match_void
from rankings import tasks
from rankings.models import CloseRun, Erratum, RankingList
from tests.matches.factories import AdminFactory, UserFactory
from tests.rankings.factories import close, submit_table
from tests.rankings.test_commands import march_results  # noqa: F401 (a fixture)

from .test_dashboard import card, text

URL = "/dashboard/"
ERRATUM = "/dashboard/erratum/"
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fast_passwords")]


@pytest.fixture
def staff(client: Client) -> Client:
    client.force_login(UserFactory(is_staff=True, username="sec-gen"))
    return client


@pytest.fixture
def voided(march_results):  # noqa: F811
    """March and April closed, then the March table t1 voided by the federation."""
    a, _b, c, _d = march_results
    submit_table(a.club, [([a], 20), ([c], 3)], id="t2", date="2026-04-02")
    close("2026-03"), close("2026-04")
    match_void(
        match=Match.objects.get(external_id="t1"),
        by=AdminFactory(username="federation"),
        reason="not a FIDO table",
        now=clock.now(),
    )


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any) -> Any:
    calls: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(celery_app, "send_task", lambda name, **kw: calls.append((name, kw)))
    return calls


def test_no_correction_no_erratum_button(staff: Client, march_results) -> None:  # noqa: F811
    close("2026-03")
    page = card(staff.get(URL).content.decode(), "fido")
    assert "Publish a corrected version" not in page


def test_the_button_lists_the_corrections_that_touched_the_month(staff: Client, voided) -> None:
    page = card(staff.get(URL).content.decode(), "fido")
    words = text(page)
    assert "1 correction or void touched 2026-03 since its version 1:" in words
    assert "voided · CLUB-7/t1 · federation: not a FIDO table" in words
    assert "Publish a corrected version of 2026-03" in words
    assert "Publish a corrected version of 2026-04" in words


def test_pressing_it_publishes_v2_and_the_card_follows_the_run(
    staff: Client, voided, sent, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(
            ERRATUM,
            {"discipline": "fido", "action": "erratum", "month": "2026-03", "reason": "t1 void"},
        )
    assert response.status_code == 303
    run = CloseRun.objects.get(erratum__isnull=False)
    erratum = Erratum.objects.get()
    assert (erratum.reason, erratum.by.username) == ("t1 void", "sec-gen")
    assert [kw["args"] for _name, kw in sent] == [("2026-03", "fido", run.pk)]
    page = staff.get(URL).content.decode()
    assert f"The new version of 2026-03 is being computed as run {run.pk}." in text(page)
    assert "A new version of 2026-03 is being computed" in text(card(page, "fido"))
    tasks.month_close.apply(args=("2026-03", "fido", run.pk), task_id=run.task_id).get()
    assert RankingList.objects.get(month="2026-03-01", status="published").edition == 2
    words = text(card(staff.get(URL).content.decode(), "fido"))
    assert "Publish a corrected version of 2026-03" not in words
    assert "The list of 2026-04 was computed before version 2 of 2026-03, which it reads" in words
    assert "Recompute later months" in words


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"action": "erratum", "month": "2026-03", "reason": " "}, "Give a reason"),
        ({"action": "erratum", "month": "March", "reason": "x"}, "Not a month (expected YYYY-MM)"),
        ({"action": "erratum", "month": "2026-07", "reason": "x"}, "has no published list"),
        (
            {"action": "erratum", "month": "2026-03", "reason": "x", "discipline": "chess"},
            "Unknown discipline.",
        ),
        ({"action": "later", "reason": "x"}, "No later month of the FIDO divisor game"),
        ({"action": "delete", "reason": "x"}, "Choose an erratum or the recomputation"),
    ],
)
def test_bad_input_is_a_400_and_records_nothing(
    staff: Client, voided, sent, data: dict[str, str], message: str
) -> None:
    response = staff.post(ERRATUM, {"discipline": "fido", **data})
    assert response.status_code == 400
    assert message in text(response.content.decode())
    # Headed as what was refused, not as a close (acceptance of issue 14).
    assert "No corrected version was started:" in text(response.content.decode())
    assert "The close was refused" not in text(response.content.decode())
    assert not Erratum.objects.exists() and not sent


def test_a_refusal_speaks_german(staff: Client, voided, sent) -> None:
    response = staff.post(
        ERRATUM,
        {"discipline": "fido", "action": "erratum", "month": "2026-03", "reason": ""},
        HTTP_ACCEPT_LANGUAGE="de",
    )
    assert response.status_code == 400
    assert "Geben Sie einen Grund an" in text(response.content.decode())


def test_only_staff_may_ask(client: Client, voided) -> None:
    client.force_login(UserFactory(is_staff=False))
    data = {"discipline": "fido", "action": "erratum", "month": "2026-03", "reason": "x"}
    assert client.post(ERRATUM, data).status_code == 403
    assert not Erratum.objects.exists()
