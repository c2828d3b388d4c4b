"""A player's name or country changes through its service, as an event with who, when and
why (matches/services/players.py): from the admin (a reason required), from the registry
import (its reason), never by hand; bad input is refused and changes nothing."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import OperationalError, connection

from matches.audit import AuditRecordRefused
from matches.models import Player, PlayerDetailsChange
from matches.services.players import NewDetails, player_details_change, players_details_change
from matches.validation import InvalidSubmission
from tests.matches.factories import AdminFactory, ClubFactory, PlayerFactory
from tests.rankings.test_result_packs import close_lock_elsewhere  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def test_a_change_is_recorded_with_both_values_who_when_and_why() -> None:
    admin, player = AdminFactory(), PlayerFactory(name="Anna Huber", country="AT")
    before = dt.datetime.now(dt.UTC)
    change = player_details_change(
        player=player, name="Anna Gruber", country="DE", by=admin, reason="married"
    )
    assert change is not None
    assert (change.name_before, change.country_before) == ("Anna Huber", "AT")
    assert (change.name_after, change.country_after) == ("Anna Gruber", "DE")
    assert (change.changed_by, change.reason, change.player) == (admin, "married", player)
    assert change.changed_at >= before
    assert Player.objects.values_list("name", "country").get(pk=player.pk) == ("Anna Gruber", "DE")
    assert (player.name, player.country) == ("Anna Gruber", "DE")


def test_the_same_values_record_nothing() -> None:
    player = PlayerFactory(name="Anna Huber", country="AT")
    assert (
        player_details_change(
            player=player, name="Anna Huber", country="AT", by=None, reason="typo?"
        )
        is None
    )
    assert not PlayerDetailsChange.objects.exists()


@pytest.mark.parametrize(
    ("name", "country", "reason", "path", "message"),
    [
        ("Anna Gruber", "AT", "  ", "reason", "a change of name or country needs a reason"),
        ("   ", "AT", "married", "name", "a player needs a name"),
        ("x" * 201, "AT", "married", "name", "a name has at most 200 characters"),
        ("Anna\x07Gruber", "AT", "married", "name", "control character"),
        ("=HYPERLINK()", "AT", "married", "name", "formula"),
        ("Anna Gruber", "at", "married", "country", "two capital letters"),
        ("Anna Gruber", "AUT", "married", "country", "two capital letters"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    name: str, country: str, reason: str, path: str, message: str
) -> None:
    player = PlayerFactory(name="Anna Huber", country="AT")
    with pytest.raises(InvalidSubmission) as refused:
        player_details_change(player=player, name=name, country=country, by=None, reason=reason)
    assert [p.path for p in refused.value.problems] == [path]
    assert message in refused.value.problems[0].message
    assert Player.objects.values_list("name", "country").get(pk=player.pk) == ("Anna Huber", "AT")
    assert not PlayerDetailsChange.objects.exists()


def test_one_bad_player_of_many_changes_none() -> None:
    a, b = PlayerFactory(name="A", country="AT"), PlayerFactory(name="B", country="AT")
    with pytest.raises(InvalidSubmission):
        players_details_change(
            [NewDetails(a.pk, "A2", "AT"), NewDetails(b.pk, "", "AT")], by=None, reason="x"
        )
    assert sorted(Player.objects.values_list("name", flat=True)) == ["A", "B"]
    assert not PlayerDetailsChange.objects.exists()


def test_the_events_cannot_be_edited_or_deleted_by_hand() -> None:
    player = PlayerFactory(name="Anna Huber")
    change = player_details_change(
        player=player, name="Anna Gruber", country="DE", by=None, reason="married"
    )
    assert change is not None
    change.reason = "something else"
    with pytest.raises(AuditRecordRefused):
        change.save()
    with pytest.raises(AuditRecordRefused):
        change.delete()


@pytest.mark.postgres
def test_a_change_waits_for_a_close_under_way(close_lock_elsewhere: Any) -> None:  # noqa: F811
    # The close holds its lock from before it reads the names it seals until after it has
    # published: a change made meanwhile must wait (here: give up after 0.3 s of waiting).
    player = PlayerFactory(name="Anna Huber", country="AT")
    close_lock_elsewhere("austrian")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL lock_timeout = '300ms'")
    with pytest.raises(OperationalError, match="lock timeout"):
        player_details_change(player=player, name="Anna Gruber", country="AT", by=None, reason="x")
    assert Player.objects.values_list("name", flat=True).get(pk=player.pk) == "Anna Huber"
    assert not PlayerDetailsChange.objects.exists()


# --- the admin ----------------------------------------------------------------------------


@pytest.fixture
def admin_client(client: Any) -> Any:
    client.force_login(AdminFactory(username="secretary-general"))
    return client


def _form(player: Player, **over: Any) -> dict[str, Any]:
    return {
        "name": player.name,
        "country": player.country,
        "club": player.club_id or "",
        "reason": "",
        **over,
    }


def test_the_admin_changes_a_name_with_a_reason(admin_client: Any) -> None:
    player = PlayerFactory(name="Anna Huber", country="AT")
    url = f"/admin/matches/player/{player.pk}/change/"
    response = admin_client.post(url, _form(player, name="Anna Gruber", reason="married"))
    assert response.status_code == 302, response.content.decode()
    change = PlayerDetailsChange.objects.get()
    assert (change.name_before, change.name_after, change.reason) == (
        "Anna Huber",
        "Anna Gruber",
        "married",
    )
    assert change.changed_by.username == "secretary-general"
    assert Player.objects.get(pk=player.pk).name == "Anna Gruber"
    history = admin_client.get("/admin/matches/playerdetailschange/")
    assert history.status_code == 200
    assert "Anna Gruber" in history.content.decode()


def test_the_admin_refuses_a_change_of_name_without_a_reason(admin_client: Any) -> None:
    player = PlayerFactory(name="Anna Huber", country="AT")
    url = f"/admin/matches/player/{player.pk}/change/"
    response = admin_client.post(url, _form(player, country="DE"))
    assert response.status_code == 200  # the form again, with the error
    assert "A change of name or country needs a reason." in response.content.decode()
    assert Player.objects.get(pk=player.pk).country == "AT"
    assert not PlayerDetailsChange.objects.exists()
    admin_client.defaults["HTTP_ACCEPT_LANGUAGE"] = "de"
    german = admin_client.post(url, _form(player, country="DE")).content.decode()
    assert "Eine Änderung von Name oder Land braucht eine Begründung." in german


def test_the_admin_refuses_a_name_no_list_could_show(admin_client: Any) -> None:
    player = PlayerFactory(name="Anna Huber", country="AT")
    url = f"/admin/matches/player/{player.pk}/change/"
    response = admin_client.post(url, _form(player, name="=HYPERLINK(1)", reason="typo"))
    assert response.status_code == 200
    assert "formula" in response.content.decode()
    assert Player.objects.get(pk=player.pk).name == "Anna Huber"


def test_the_admin_moves_a_player_to_another_club_without_a_reason(admin_client: Any) -> None:
    player, club = PlayerFactory(), ClubFactory()
    url = f"/admin/matches/player/{player.pk}/change/"
    assert admin_client.post(url, _form(player, club=club.pk)).status_code == 302
    assert Player.objects.get(pk=player.pk).club == club
    assert not PlayerDetailsChange.objects.exists()


def test_the_admin_never_changes_a_federation_id(admin_client: Any) -> None:
    player = PlayerFactory(player_id="P-000777")
    url = f"/admin/matches/player/{player.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert 'name="player_id"' not in page  # shown, not editable
    admin_client.post(url, _form(player, player_id="P-000778", reason="x"))
    assert Player.objects.get(pk=player.pk).player_id == "P-000777"


def test_the_admin_adds_a_player_without_a_reason(admin_client: Any) -> None:
    club = ClubFactory()
    form = {"player_id": "P-000999", "name": "New", "country": "AT", "club": club.pk}
    assert admin_client.post("/admin/matches/player/add/", form).status_code == 302
    assert Player.objects.get(player_id="P-000999").name == "New"
    assert not PlayerDetailsChange.objects.exists()


# --- the registry import ------------------------------------------------------------------


def test_the_registry_import_records_each_change_of_name_or_country(tmp_path: Path) -> None:
    club = ClubFactory(club_id="CLUB-7")
    PlayerFactory(player_id="P-000001", name="Anna Huber", country="AT", club=club)
    PlayerFactory(player_id="P-000002", name="Bert", country="AT", club=club)
    PlayerFactory(player_id="P-000003", name="Cleo", country="AT", club=None)
    registry = tmp_path / "players.csv"
    registry.write_text(
        "player_id,name,country,club_id\n"
        "P-000001,Anna Gruber,AT,CLUB-7\n"  # renamed
        "P-000002,Bert,DE,CLUB-7\n"  # another country
        "P-000003,Cleo,AT,CLUB-7\n",  # another club only: no event
        encoding="utf-8",
    )
    call_command("import_players", str(registry), stdout=open(tmp_path / "out", "w"))  # noqa: SIM115
    assert (tmp_path / "out").read_text().strip() == (
        "created 0, updated 3, unchanged 0, rejected 0"
    )
    changes = {
        c.player.player_id: (c.name_before, c.country_before, c.name_after, c.country_after)
        for c in PlayerDetailsChange.objects.select_related("player")
    }
    assert changes == {
        "P-000001": ("Anna Huber", "AT", "Anna Gruber", "AT"),
        "P-000002": ("Bert", "AT", "Bert", "DE"),
    }
    assert {c.reason for c in PlayerDetailsChange.objects.all()} == {
        "import of the player registry (import_players)"
    }
    assert Player.objects.get(player_id="P-000003").club == club
