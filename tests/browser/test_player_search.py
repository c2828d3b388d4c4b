"""Find a player by name (issue 15, item 1) in the match form, the CSV preview and the
admin's merge form: typing part of a name offers the matching players with club and country
(namesakes told apart); the chosen suggestion puts the federation id in the field (in the
match form joined with "+" to the ids already there) or says which id to write."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from matches.models import Match, PlayerMerge
from tests.browser.conftest import log_in, suggestions
from tests.clock import BERLIN
from tests.matches.factories import ClubFactory, PlayerFactory, SecretaryFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_typing_a_name_suggests_players_and_stores_the_chosen_id(page: Any, set_now: Any) -> None:
    set_now(dt.datetime(2026, 3, 20, 12, 0, tzinfo=BERLIN))
    club = ClubFactory(club_id="CLUB-HAV", name="Club de Dominó La Habana", country="CU")
    other = ClubFactory(club_id="CLUB-SJU", name="Dominó San Juan", country="PR")
    user = UserFactory(username="sec", password="a-long-secretary-password")
    SecretaryFactory(user=user, club=club)
    partner = PlayerFactory(player_id="P-000101", name="Rosa Vidal", country="CU", club=club)
    PlayerFactory(player_id="P-000102", name="Ana Castro", country="CU", club=club)
    PlayerFactory(player_id="P-000103", name="Ana Castro", country="PR", club=other)
    opponent = PlayerFactory(player_id="P-000104", name="Juan Pérez", country="CU", club=club)

    log_in(page, "sec", "a-long-secretary-password")
    page.goto("/secretary/submit/")
    form = page.locator("#match-form")
    form.get_by_label("Date played").fill("2026-03-14")
    form.get_by_label("Match id").fill("CLUB-HAV/2026-03-14/t1")
    field = page.locator("#sides-0-players")
    offered = suggestions(
        field, partner.player_id + " + cast", page.locator("#player-suggestions option")
    )
    assert offered == [
        ("P-000101 + P-000102", "Ana Castro · Club de Dominó La Habana · Cuba"),
        ("P-000101 + P-000103", "Ana Castro · Dominó San Juan · Puerto Rico"),
    ]
    assert field.get_attribute("list") == "player-suggestions"
    field.fill(offered[0][0])  # what choosing the first suggestion does
    page.locator("#sides-0-score").fill("57")
    page.locator("#sides-1-players").fill(opponent.player_id)
    page.locator("#sides-1-score").fill("31")
    form.get_by_role("button", name="Submit the match").click()
    page.wait_for_url("**/secretary/")
    match = Match.objects.get(external_id="CLUB-HAV/2026-03-14/t1")
    first = match.sides.get(position=1)
    assert sorted(m.player.player_id for m in first.members.all()) == ["P-000101", "P-000102"]


def test_the_csv_preview_finds_the_player_a_row_names_wrongly(page: Any, set_now: Any) -> None:
    """The preview of a file whose row has a name where a federation id belongs lists the
    players it finds and, in the lookup box, says which id to write in which row."""
    set_now(dt.datetime(2026, 3, 20, 12, 0, tzinfo=BERLIN))
    club = ClubFactory(club_id="CLUB-HAV", name="Club de Dominó La Habana", country="CU")
    other = ClubFactory(club_id="CLUB-SJU", name="Dominó San Juan", country="PR")
    user = UserFactory(username="sec", password="a-long-secretary-password")
    SecretaryFactory(user=user, club=club)
    PlayerFactory(player_id="P-000101", name="Rosa Vidal", country="CU", club=club)
    PlayerFactory(player_id="P-000102", name="Ana Castro", country="CU", club=club)
    PlayerFactory(player_id="P-000103", name="Ana Castro", country="PR", club=other)
    content = (
        "id,date,discipline,category,side,players,score\n"
        "t1,2026-03-14,fido,club,1,P-000101,57\n"
        "t1,2026-03-14,fido,club,2,Castro,31\n"
    )

    log_in(page, "sec", "a-long-secretary-password")
    page.goto("/secretary/upload/")
    page.get_by_label("CSV file").set_input_files(
        files=[{"name": "results.csv", "mimeType": "text/csv", "buffer": content.encode()}]
    )
    page.get_by_role("button", name="Check the file").click()
    candidates = page.locator(".player-lookup .candidates li")
    assert candidates.all_inner_texts() == [
        "P-000102: Ana Castro, Club de Dominó La Habana, Cuba",
        "P-000103: Ana Castro, Dominó San Juan, Puerto Rico",
    ]
    lookup = page.get_by_label("Find the player for “Castro” by name, club or country:")
    offered = suggestions(lookup, "castro juan", page.locator("#lookup-3-1-list option"))
    assert offered == [("P-000103", "Ana Castro · Dominó San Juan · Puerto Rico")]
    lookup.fill("P-000103")  # what choosing the suggestion does
    answer = page.locator('output[for="lookup-3-1"]')
    answer.filter(has_text="P-000103").wait_for()
    assert answer.inner_text() == (
        "Write P-000103 (Ana Castro, Dominó San Juan, Puerto Rico) in row 3 instead of “Castro”."
    )
    assert not Match.objects.exists()


def test_the_admin_merge_form_finds_both_records_by_name(page: Any) -> None:
    """The admin's merge form: each record found by name (namesakes told apart by club and
    country), both shown before the merge, the merge recorded."""
    club = ClubFactory(club_id="CLUB-HAV", name="Club de Dominó La Habana", country="CU")
    other = ClubFactory(club_id="CLUB-SJU", name="Dominó San Juan", country="PR")
    UserFactory(username="boss", password="a-long-admin-password", is_staff=True, is_superuser=True)
    keep = PlayerFactory(player_id="P-000102", name="Ana Castro", country="CU", club=club)
    dup = PlayerFactory(player_id="P-000103", name="Ana Castro", country="PR", club=other)

    log_in(page, "boss", "a-long-admin-password")
    page.goto("/admin/matches/player/")
    page.get_by_role("link", name="Merge two player records").click()
    source = page.get_by_label("Duplicate record (its results move)")
    assert suggestions(source, "castro san juan", page.locator("#id_source-list option")) == [
        ("P-000103", "Ana Castro · Dominó San Juan · Puerto Rico")
    ]
    source.fill("P-000103")
    page.locator('output[for="id_source"]').filter(has_text="P-000103").wait_for()
    assert page.locator('output[for="id_source"]').inner_text() == (
        "P-000103: Ana Castro, Dominó San Juan, Puerto Rico"
    )
    target = page.get_by_label("Surviving record (keeps the results)")
    target.fill("castro cu")
    page.locator("#id_target-list option").first.wait_for(state="attached")
    target.fill("P-000102")
    page.get_by_label("Reason").fill("the same person, registered twice")
    page.get_by_role("button", name="Check the two records").click()
    page.get_by_role(
        "button", name="Merge P-000103 (Ana Castro) into P-000102 (Ana Castro)"
    ).click()
    page.wait_for_url("**/admin/matches/player/")
    merge = PlayerMerge.objects.get()
    assert (merge.source, merge.target) == (dup, keep)
    assert merge.reason == "the same person, registered twice"
