"""Who may open the secretary pages: login required, secretaries and admins only, own clubs only."""

from __future__ import annotations

import pytest
from django.test import Client

from matches.models import Match
from matches.services import match_submit
from tests.clock import NOW
from tests.matches.factories import AdminFactory, SecretaryFactory, UserFactory, match_payload

from .conftest import form_fields, text

pytestmark = pytest.mark.django_db

PAGES = [
    "/secretary/",
    "/secretary/submit/",
    "/secretary/upload/",
    "/secretary/upload/template.csv",
]


@pytest.mark.parametrize("url", [*PAGES, "/secretary/matches/1/correct/"])
def test_anonymous_is_sent_to_login(client: Client, url: str) -> None:
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={url}"


@pytest.mark.parametrize("url", PAGES)
def test_a_user_who_is_no_secretary_gets_403_with_a_reason(client: Client, club, url: str) -> None:
    client.force_login(UserFactory(username="reader"))
    response = client.get(url)
    assert response.status_code == 403
    assert "is not the secretary of any club" in text(response.content.decode())


def test_a_user_who_is_no_secretary_cannot_post_either(client: Client, club, players) -> None:
    client.force_login(UserFactory(username="reader"))
    response = client.post(
        "/secretary/submit/",
        _table_of_two(club.club_id),
    )
    assert response.status_code == 403
    assert not Match.objects.exists()


@pytest.mark.parametrize("url", PAGES)
def test_secretary_and_admin_open_every_page(client: Client, secretary, set_now, url) -> None:
    client.force_login(secretary)
    assert client.get(url).status_code == 200
    client.force_login(AdminFactory(username="boss"))
    assert client.get(url).status_code == 200


def _stored(club, players, external_id: str) -> Match:
    payload = match_payload(club, [([players[0]], 3), ([players[1]], 1)], id=external_id)
    return match_submit(club=club, payload=payload, submitted_by=None, now=NOW, channel="api").match


def test_another_clubs_match_is_neither_listed_nor_correctable(
    sec_client: Client, club, other_club, players
) -> None:
    mine = _stored(club, players, "mine-1")
    theirs = _stored(other_club, players, "theirs-1")

    listing = sec_client.get("/secretary/").content.decode()
    assert "mine-1" in listing
    assert "theirs-1" not in listing
    assert sec_client.get(f"/secretary/matches/{mine.pk}/correct/").status_code == 200
    assert sec_client.get(f"/secretary/matches/{theirs.pk}/correct/").status_code == 404
    response = sec_client.post(
        f"/secretary/matches/{theirs.pk}/correct/",
        {
            "date": "2026-03-14",
            "discipline": "fido",
            "category": "club",
            "sides-0-players": "P-000001",
            "sides-0-score": "9",
            "sides-1-players": "P-000002",
            "sides-1-score": "1",
        },
    )
    assert response.status_code == 404
    assert Match.objects.filter(club=other_club).count() == 1
    assert sec_client.get("/secretary/?club=CLUB-9").status_code == 404


def test_a_secretary_cannot_submit_for_another_club(
    sec_client: Client, other_club, players
) -> None:
    response = sec_client.post(
        "/secretary/submit/",
        _table_of_two(other_club.club_id),
    )
    assert response.status_code == 400
    assert "your own clubs only" in text(response.content.decode())
    assert not Match.objects.exists()


def test_a_secretary_of_two_clubs_sees_both_and_can_filter(
    client: Client, club, other_club, players, set_now
) -> None:
    user = UserFactory(username="twohats")
    SecretaryFactory(user=user, club=club)
    SecretaryFactory(user=user, club=other_club)
    _stored(club, players, "mine-1")
    _stored(other_club, players, "theirs-1")
    client.force_login(user)
    both = client.get("/secretary/").content.decode()
    assert "mine-1" in both and "theirs-1" in both
    only = client.get("/secretary/?club=CLUB-9").content.decode()
    assert "theirs-1" in only and "mine-1" not in only


def test_an_admin_sees_every_club(client: Client, club, other_club, players, set_now) -> None:
    _stored(club, players, "mine-1")
    _stored(other_club, players, "theirs-1")
    client.force_login(AdminFactory(username="boss"))
    html = client.get("/secretary/").content.decode()
    assert "mine-1" in html and "theirs-1" in html
    assert 'name="club"' in html  # the club filter


def _table_of_two(club_id: str) -> dict[str, str]:
    """The submit form's fields for a table of two of ``club_id``."""
    sides = [("P-000001", "3"), ("P-000002", "1")]
    return form_fields(sides, club=club_id, external_id="x1")
