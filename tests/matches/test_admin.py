"""The admin site: results are read-only; void and merge go through the services."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from matches.models import MatchEvent, Player, PlayerMerge
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
    # In German: the confirmation, and the count of what was done (ngettext, issue 15 item 8).
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "de"
    page = client.post("/admin/matches/match/", data).content.decode()
    assert "1 ausgewählt:" in page and "(bereits annulliert: bleibt, wie sie ist)" in page
    assert ">Bestätigen</button>" in page and "Partien annullieren" in page
    done = client.post("/admin/matches/match/", {**data, "apply": "1", "reason": "x"}, follow=True)
    assert "0 Partien annulliert." in done.content.decode()


def test_merge_action_opens_the_merge_form_with_the_two_selected_records(setup) -> None:
    client, _, _, (a, _b, c) = setup
    data = {"action": "merge_players", "_selected_action": [a.pk, c.pk]}
    response = client.post("/admin/matches/player/", data)
    first, second = sorted([a.player_id, c.player_id])
    assert response.status_code == 302
    assert response["Location"] == f"/admin/matches/player/merge/?source={first}&target={second}"
    page = client.get(response["Location"]).content.decode()
    assert f'name="source" id="id_source" value="{first}"' in page
    assert f'name="target" id="id_target" value="{second}"' in page
    assert 'data-player-search="/api/players"' in page


def merge_post(client, **fields):
    return client.post("/admin/matches/player/merge/", fields)


def test_the_merge_form_shows_both_records_then_merges(setup) -> None:
    client, admin, match, (a, _b, c) = setup
    check = merge_post(client, source=a.player_id.lower(), target=c.player_id, reason="duplicate")
    assert check.status_code == 200
    page = check.content.decode()
    assert f"Merge {a.player_id} ({a.name}) into {c.player_id} ({c.name})" in page
    summary = re.sub(r"<[^>]+>", " ", page.split('id="merge-summary"')[1].split("</table>")[0])
    assert " ".join(summary.split()).endswith(
        f"Duplicate {a.player_id} {a.name} {a.club.name} Germany 1 "
        f"Surviving {c.player_id} {c.name} {c.club.name} Germany 0"
    )
    assert not PlayerMerge.objects.exists()  # the check stores nothing
    done = client.post(
        "/admin/matches/player/merge/",
        {"source": a.player_id, "target": c.player_id, "reason": "duplicate", "confirm": "1"},
    )
    assert done.status_code == 302 and done["Location"] == "/admin/matches/player/"
    merge = PlayerMerge.objects.get()
    assert (merge.source, merge.target, merge.results_moved, merge.merged_by) == (a, c, 1, admin)
    assert merge.reason == "duplicate"
    assert MatchEvent.objects.filter(kind="merged", match=match).count() == 1


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        (
            {"source": "P-999999", "target": "{c}"},
            "source",
            "There is no player P-999999: type part of the name, club or country and pick the "
            "player from the list.",
        ),
        (
            {"source": "{a}", "target": "{a}"},
            "target",
            "Choose two different records: this is the duplicate.",
        ),
        ({"source": "{a}", "target": "{c}", "reason": ""}, "reason", "This field is required."),
    ],
)
def test_a_wrong_merge_form_is_a_400_that_says_what_to_do_and_changes_nothing(
    setup, fields, field, message
) -> None:
    client, _, _, (a, _b, c) = setup
    ids = {"a": a.player_id, "c": c.player_id}
    data = {"reason": "duplicate", **{k: v.format(**ids) for k, v in fields.items()}}
    for confirm in ({}, {"confirm": "1"}):
        response = merge_post(client, **data, **confirm)
        assert response.status_code == 400
        errors = re.search(
            rf'<div class="form-row errors">\s*<ul class="errorlist"[^>]*>(.*?)</ul>'
            rf'.*?name="{field}"',
            response.content.decode(),
            re.S,
        )
        assert errors and message in errors.group(1)
    assert not PlayerMerge.objects.exists()


def test_the_merge_form_refuses_what_the_service_refuses_and_already_merged_records(setup) -> None:
    client, _, _, (a, b, c) = setup
    # a and b met in one match: the service refuses; nothing changes.
    response = merge_post(client, source=a.player_id, target=b.player_id, reason="dup", confirm="1")
    assert response.status_code == 400
    assert "both players played in the same match" in response.content.decode()
    assert not PlayerMerge.objects.exists()
    merge_post(client, source=a.player_id, target=c.player_id, reason="dup", confirm="1")
    response = merge_post(client, source=a.player_id, target=b.player_id, reason="dup")
    assert response.status_code == 400
    assert f"{a.player_id} was already merged into {c.player_id}: use {c.player_id}." in (
        response.content.decode()
    )
    assert Player.objects.filter(merged_into__isnull=False).count() == 1


def test_the_merge_form_speaks_german(setup) -> None:
    client, _, _, (_a, _b, c) = setup
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "de"
    page = client.get("/admin/matches/player/merge/").content.decode()
    assert "Doppelter Eintrag (seine Ergebnisse wandern)" in page
    response = merge_post(client, source="P-999999", target=c.player_id, reason="x")
    assert "Es gibt keinen Spieler P-999999" in response.content.decode()


def _carried(page) -> tuple[str, list[str]]:
    """The action and the selected rows a confirmation page posts back."""
    html = page.content.decode()
    action = re.search(r'name="action" value="([^"]+)"', html)
    assert action is not None
    return action.group(1), re.findall(r'name="_selected_action" value="([^"]+)"', html)
