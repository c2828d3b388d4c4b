"""Find a player by name in the match form (issue 15, item 1): typing part of a name offers
the matching players with club and country (namesakes told apart); the chosen suggestion
puts the federation id in the field, joined with "+" to the ids already there."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from matches.models import Match
from tests.browser.conftest import log_in
from tests.matches.factories import ClubFactory, PlayerFactory, SecretaryFactory, UserFactory
from tests.rankings.factories import BERLIN

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
    field.fill(partner.player_id + " + cast")
    options = page.locator("#player-suggestions option")
    options.first.wait_for(state="attached")
    offered = [(o.get_attribute("value"), o.get_attribute("label")) for o in options.all()]
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
