"""The admin site: results are read-only; void and merge go through the services."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from matches.models import Match, MatchEvent, Player, PlayerMerge
from matches.services import match_submit
from tests.matches.factories import AdminFactory, ClubFactory, PlayerFactory, match_payload

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(client):
    admin = AdminFactory()
    client.force_login(admin)
    club = ClubFactory()
    a, b, c = (PlayerFactory(club=club) for _ in range(3))
    now = dt.datetime(2026, 3, 20, tzinfo=dt.UTC)
    match = match_submit(
        club=club,
        payload=match_payload(club, [([a], 1), ([b], 0)]),
        submitted_by=admin,
        now=now,
        channel="web",
    ).match
    return client, admin, match, (a, b, c)


def test_match_pages_are_read_only(setup) -> None:
    client, _, match, _ = setup
    page = client.get(f"/admin/matches/match/{match.pk}/change/")
    assert page.status_code == 200
    assert b'name="date_played"' not in page.content  # shown, not editable
    assert client.post(f"/admin/matches/match/{match.pk}/delete/").status_code == 403


def test_void_action_asks_a_reason_then_voids(setup) -> None:
    client, admin, match, _ = setup
    data = {"action": "void_matches", "_selected_action": [match.pk]}
    page = client.post("/admin/matches/match/", data)
    assert page.status_code == 200 and b"reason" in page.content
    assert _carried(page) == ("void_matches", [str(match.pk)])
    # The confirmation lists what it voids: the match as people name it, its date, its
    # discipline and scores (issue 15, item 3).
    when, kind = match.date_played.isoformat(), match.get_discipline_display()
    listed = f"{match.label} · {when} · {kind} · 1 / 0"
    assert f"<li>{listed}</li>" in page.content.decode()
    client.post("/admin/matches/match/", {**data, "apply": "1", "reason": "forfeit"})
    match.refresh_from_db()
    assert (match.void_reason, match.voided_by) == ("forfeit", admin)
    assert MatchEvent.objects.filter(kind="voided").count() == 1


def test_merge_action(setup) -> None:
    client, _, _, (a, b, c) = setup
    data = {"action": "merge_players", "_selected_action": [a.pk, c.pk]}
    page = client.post("/admin/matches/player/", data)
    assert page.status_code == 200 and b"Surviving record" in page.content
    assert _carried(page) == ("merge_players", [str(a.pk), str(c.pk)])
    client.post(
        "/admin/matches/player/", {**data, "apply": "1", "target": str(c.pk), "reason": "duplicate"}
    )
    merge = PlayerMerge.objects.get()
    assert (merge.source, merge.target, merge.results_moved) == (a, c, 1)
    # Two players who met in one match cannot be merged: nothing changes.
    data = {
        "action": "merge_players",
        "_selected_action": [b.pk, c.pk],
        "apply": "1",
        "target": str(c.pk),
        "reason": "dup",
    }
    client.post("/admin/matches/player/", data)
    assert Player.objects.filter(merged_into__isnull=False).count() == 1
    assert Match.objects.count() == 1


def _carried(page) -> tuple[str, list[str]]:
    """The action and the selected rows a confirmation page posts back."""
    html = page.content.decode()
    action = re.search(r'name="action" value="([^"]+)"', html)
    assert action is not None
    return action.group(1), re.findall(r'name="_selected_action" value="([^"]+)"', html)
