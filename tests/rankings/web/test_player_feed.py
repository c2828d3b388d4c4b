"""A player's Atom feed "your rank changed" (rankings.player_feed and
rankings.selectors.rank_changes): an entry per list version that moved the player's rank or
FLADUB, errata included; ETag and 304 like the lists; bad input."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client

from rankings.selectors.rank_changes import rank_changes
from tests.clock import BERLIN
from tests.matches.factories import PlayerFactory

from .conftest import parse_xml, publish

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"
FEED = "/players/P-000012/feed.atom"


def at(day: str) -> dt.datetime:
    return dt.datetime.fromisoformat(day).replace(hour=0, minute=5, tzinfo=BERLIN)


@pytest.fixture
def ana():
    ana = PlayerFactory(player_id="P-000012", name="Ana Lima", country="PT")
    bo = PlayerFactory(player_id="P-000013", name="Bo Berg", country="SE")
    cy = PlayerFactory(player_id="P-000014", name="Cy Dahl", country="SE")
    # December: not listed yet (no entry). January: enters at 2. February: up to 1.
    # March: the same rank and number (no entry). March v2 (an erratum): down to 2.
    # April: off the list. All Fives, February: enters at 1.
    publish("2025-12", [(bo, 1, 900, 1, None)], published_at=at("2026-01-01"))
    publish(
        "2026-01", [(bo, 1, 2000, 2, 1), (ana, 2, 1000, 1, None)], published_at=at("2026-02-01")
    )
    publish("2026-02", [(ana, 1, 2500, 2, 2), (bo, 2, 2000, 2, 1)], published_at=at("2026-03-01"))
    publish("2026-03", [(ana, 1, 2500, 2, 1), (bo, 2, 2000, 2, 2)], published_at=at("2026-04-01"))
    publish(
        "2026-03",
        [(bo, 1, 2600, 3, 2), (ana, 2, 2400, 2, 1), (cy, 3, 100, 1, None)],
        published_at=at("2026-04-03"),
        version=2,
    )
    publish("2026-04", [(bo, 1, 2000, 2, 1)], published_at=at("2026-05-01"))
    publish(
        "2026-02",
        [(ana, 1, 700, 1, None)],
        discipline="allfives",
        published_at=at("2026-03-02"),
    )
    return ana


def test_the_changes(ana, django_assert_num_queries) -> None:
    with django_assert_num_queries(1):
        changes = rank_changes(ana.pk, limit=60)
    assert [(c.discipline, str(c.month), c.edition) for c in changes] == [
        ("fido", "2026-04", 1),
        ("fido", "2026-03", 2),
        ("allfives", "2026-02", 1),
        ("fido", "2026-02", 1),
        ("fido", "2026-01", 1),
    ]
    assert [(c.rank_from, c.rank_to, c.fladub_from_cents, c.fladub_to_cents) for c in changes] == [
        (2, None, 2400, 0),
        (1, 2, 2500, 2400),  # the erratum against the version it replaced
        (None, 1, 0, 700),
        (2, 1, 1000, 2500),
        (None, 2, 0, 1000),
    ]
    assert [c.places for c in changes] == [None, -1, None, 1, None]
    assert len(rank_changes(ana.pk, limit=2)) == 2


def test_feed(client: Client, ana) -> None:
    response = client.get(FEED)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = parse_xml(response.content)
    assert feed.tag == f"{ATOM}feed"
    assert feed.find(f"{ATOM}title").text == "FIDO world ranking: Ana Lima's rank"
    assert feed.find(f"{ATOM}link[@rel='self']").get("href") == f"http://testserver{FEED}"
    entries = feed.findall(f"{ATOM}entry")
    assert [e.find(f"{ATOM}title").text for e in entries] == [
        "FIDO world ranking, April 2026: rank not listed",
        "FIDO world ranking, March 2026 (version 2): rank 2",
        "All Fives world ranking, February 2026: rank 1",
        "FIDO world ranking, February 2026: rank 1",
        "FIDO world ranking, January 2026: rank 2",
    ]
    summaries = [e.find(f"{ATOM}summary").text for e in entries]
    assert summaries[0] == (
        "Left the list (it holds only players with FLADUB above 0). FLADUB 24.00 → 0.00 (-24.00)."
    )
    assert summaries[1] == "Rank 1 → 2 (-1 place) of 3. FLADUB 25.00 → 24.00 (-1.00)."
    assert summaries[4] == "Entered the list at rank 2 of 2. FLADUB 0.00 → 10.00 (+10.00)."
    assert entries[1].find(f"{ATOM}link").get("href") == (
        "http://testserver/ranking/fido/2026-03/v2/?from=2"
    )
    assert entries[1].find(f"{ATOM}id").text == "fido-rank:P-000012:fido:2026-03:v2"
    assert entries[1].find(f"{ATOM}updated").text == "2026-04-02T22:05:00+00:00"  # 00:05 Berlin


def test_feed_in_german(client: Client, ana) -> None:
    feed = parse_xml(client.get(FEED, HTTP_ACCEPT_LANGUAGE="de").content)
    summaries = [e.find(f"{ATOM}summary").text for e in feed.findall(f"{ATOM}entry")]
    assert (
        summaries[1] == "Rang 1 → 2 (-1 Platz) von 3. FLADUB 25,00 → 24,00 (-1,00)."
    )  # one place: singular


def test_linked_from_the_player_page(client: Client, ana) -> None:
    html = client.get("/players/P-000012/").content.decode()
    assert (
        '<link rel="alternate" type="application/atom+xml" '
        f'title="Ana Lima\'s rank changes (Atom)" href="{FEED}">'
    ) in html
    assert f'<a href="{FEED}">' in html


def test_etag_and_304(client: Client, ana) -> None:
    first = client.get(FEED)
    assert first["Cache-Control"] == "public, max-age=60"
    assert first["ETag"].startswith('W/"')
    assert "Accept-Language" in first["Vary"]
    again = client.get(FEED, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""
    other_player = client.get("/players/P-000013/feed.atom")
    assert other_player["ETag"] != first["ETag"]
    # A new list (here a list that does not even hold her) changes the tag.
    publish("2026-05", [(PlayerFactory(player_id="P-000015"), 1, 10, 1, None)])
    fresh = client.get(FEED, HTTP_IF_NONE_MATCH=first["ETag"])
    assert fresh.status_code == 200 and fresh["ETag"] != first["ETag"]
    lists = client.get("/feeds/lists.atom")
    assert (
        lists["ETag"]
        and client.get("/feeds/lists.atom", HTTP_IF_NONE_MATCH=lists["ETag"]).status_code == 304
    )


def test_unknown_player_and_empty_feed(client: Client, ana) -> None:
    missing = client.get("/players/P-NOBODY/feed.atom")
    assert missing.status_code == 404 and "ETag" not in missing
    newcomer = PlayerFactory(player_id="P-000099", name="New Comer")
    feed = parse_xml(client.get(f"/players/{newcomer.player_id}/feed.atom").content)
    assert feed.findall(f"{ATOM}entry") == []


def test_a_merged_players_feed_is_the_survivors(client: Client, ana) -> None:
    old = PlayerFactory(player_id="P-000077", name="Ana L.")
    old.merged_into = ana
    old.save(update_fields=["merged_into"])
    feed = parse_xml(client.get("/players/P-000077/feed.atom").content)
    assert feed.find(f"{ATOM}title").text == "FIDO world ranking: Ana Lima's rank"
    assert len(feed.findall(f"{ATOM}entry")) == 5
