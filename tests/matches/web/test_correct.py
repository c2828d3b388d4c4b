"""Corrections from the web: the club's secretary until the deadline, an admin at any time."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from matches.models import Channel, Match, MatchEvent
from matches.services import match_submit
from tests.clock import BERLIN, NOW
from tests.matches.factories import AdminFactory, match_payload

from .conftest import counts, error_of, form_fields, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored(club, players) -> Match:
    payload = match_payload(
        club, [([players[0], players[4]], 57), ([players[1]], 31)], id="CLUB-7/2026-03-14/t1"
    )
    return match_submit(club=club, payload=payload, submitted_by=None, now=NOW, channel="api").match


def corrected(**overrides: Any) -> dict[str, Any]:
    return form_fields(
        [("P-000001, P-000005", "57"), ("P-000002", "13")],
        reason="typo in the second score",
        **overrides,
    )


def test_the_form_is_prefilled_from_the_stored_match(sec_client: Client, stored: Match) -> None:
    response = sec_client.get(f"/secretary/matches/{stored.pk}/correct/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="sides-0-players" value="P-000001 + P-000005"' in html
    assert 'name="sides-1-score" value="31"' in html
    assert 'value="2026-03-14"' in html
    assert '<option value="fido" selected>' in html
    page = text(html)
    assert "Correct match CLUB-7/2026-03-14/t1" in page
    assert "You can correct this match until 1 April 2026, 00:00 Europe/Berlin." in page


def test_a_correction_before_the_deadline_is_a_new_revision(
    sec_client: Client, secretary, stored: Match, set_now
) -> None:
    set_now(dt.datetime(2026, 3, 25, 9, 0, tzinfo=BERLIN))
    response = sec_client.post(f"/secretary/matches/{stored.pk}/correct/", corrected())
    assert response.status_code == 302
    new = Match.objects.get(external_id=stored.external_id, revision=2)
    old = Match.objects.get(pk=stored.pk)
    assert new.replaces == old
    assert new.submission.channel == Channel.WEB
    assert list(new.sides.order_by("position").values_list("score", flat=True)) == [57, 13]
    assert old.voided_at is not None and old.voided_by == secretary
    event = MatchEvent.objects.get(match=new, kind=MatchEvent.Kind.CORRECTED)
    assert event.reason == "typo in the second score"

    listing = sec_client.get(response["Location"]).content.decode()
    page = text(listing)
    assert "Match CLUB-7/2026-03-14/t1 corrected: revision 2, on time, counts in 2026-03." in page
    new_row = _row(listing, new.pk)
    old_row = _row(listing, old.pk)
    assert "revision 2" in new_row and "voided" not in new_row
    assert "voided" in old_row and "corrected" in old_row
    assert "is-voided" in old_row
    assert f"/secretary/matches/{new.pk}/correct/" in new_row  # the new revision is correctable
    assert f"/secretary/matches/{old.pk}/correct/" not in old_row


def _row(html: str, pk: int) -> str:
    """The text of one match's table row, followed by its markup."""
    start = html.rindex("<tr", 0, html.index(f'data-match="{pk}"'))
    markup = html[start : html.index("</tr>", start)]
    return text(markup) + markup


def test_problems_of_a_correction_are_shown_and_nothing_changes(
    sec_client: Client, stored: Match
) -> None:
    before = counts()
    response = sec_client.post(
        f"/secretary/matches/{stored.pk}/correct/",
        corrected(**{"sides-1-players": "P-000001", "sides-1-score": "1.5"}),
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "appears twice" in error_of(html, "sides-1-players_error")
    assert "whole number" in error_of(html, "sides-1-score_error")
    assert counts() == before
    assert Match.objects.get(pk=stored.pk).voided_at is None


def test_after_the_deadline_the_page_says_why_and_a_post_is_403(
    sec_client: Client, stored: Match, set_now
) -> None:
    set_now(dt.datetime(2026, 4, 1, 0, 0, tzinfo=BERLIN))  # the first instant of April
    response = sec_client.get(f"/secretary/matches/{stored.pk}/correct/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "the deadline for corrections was 1 April 2026, 00:00 Europe/Berlin" in text(html)
    assert 'class="primary" disabled' in html

    before = counts()
    response = sec_client.post(f"/secretary/matches/{stored.pk}/correct/", corrected())
    assert response.status_code == 403
    assert counts() == before
    assert Match.objects.get(pk=stored.pk).voided_at is None
    listing = sec_client.get("/secretary/").content.decode()
    assert f"/secretary/matches/{stored.pk}/correct/" not in listing


def test_one_minute_before_the_deadline_is_still_allowed(
    sec_client: Client, stored: Match, set_now
) -> None:
    set_now(dt.datetime(2026, 3, 31, 23, 59, tzinfo=BERLIN))
    assert (
        sec_client.post(f"/secretary/matches/{stored.pk}/correct/", corrected()).status_code == 302
    )


def test_an_admin_corrects_after_the_deadline(client: Client, stored: Match, set_now) -> None:
    set_now(dt.datetime(2026, 4, 10, 9, 0, tzinfo=BERLIN))
    client.force_login(AdminFactory(username="boss"))
    response = client.post(f"/secretary/matches/{stored.pk}/correct/", corrected())
    assert response.status_code == 302
    new = Match.objects.get(revision=2)
    assert new.status == "late" and new.counting_month == dt.date(2026, 4, 1)


def test_a_replaced_revision_cannot_be_corrected_again(sec_client: Client, stored: Match) -> None:
    sec_client.post(f"/secretary/matches/{stored.pk}/correct/", corrected())
    response = sec_client.get(f"/secretary/matches/{stored.pk}/correct/")
    assert "already corrected" in text(response.content.decode())
    assert (
        sec_client.post(f"/secretary/matches/{stored.pk}/correct/", corrected()).status_code == 403
    )
    assert Match.objects.count() == 2
