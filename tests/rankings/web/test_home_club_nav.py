"""The home page, the club pages and the navigation."""

from __future__ import annotations

import datetime as dt
import re
from html import unescape

import pytest
from django.test import Client

from matches.models import Match
from tests.clock import BERLIN
from tests.matches.factories import AdminFactory, ClubFactory, PlayerFactory, SecretaryFactory
from tests.rankings.factories import received, submit_table

from .conftest import publish, text, visible_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def fido_and_austrian():
    club = ClubFactory(club_id="CLUB-7", name="Domino Club Seven", country="DE", city="Köln")
    players = [
        PlayerFactory(player_id=f"P-{n:06d}", name=f"Player {n:02d}", club=club)
        for n in range(1, 13)
    ]
    publish(
        "2026-04",
        [(p, n + 1, 10_000 - n * 100, 3, None) for n, p in enumerate(players)],
    )
    publish("2026-03", [(players[11], 1, 777, 1, None)], discipline="austrian")
    return club, players


def test_home_shows_the_top_10_of_every_current_list(client: Client, fido_and_austrian) -> None:
    html = client.get("/").content.decode()
    page = visible_text(html)
    assert "Latest list: April 2026" in page
    for n in range(1, 11):
        assert f'href="/players/P-{n:06d}/"' in html
    assert 'href="/players/P-000011/"' not in html  # 11th of FIDO
    assert "Full list: 12 players" in page
    assert "100.00" in page and "7.77" in page
    assert "No list published yet" in page  # All Fives
    assert 'href="/ranking/austrian/"' in html


def test_home_without_any_list(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert text(response.content.decode()).count("No list published yet") == 3


def test_home_queries(client: Client, fido_and_austrian, django_assert_max_num_queries) -> None:
    with django_assert_max_num_queries(3):  # the pointers, one top 10 per list
        client.get("/")


def nav(html: str) -> str:
    return re.search(r'<nav aria-label="Main">(.*?)</nav>', html, re.S).group(1)


def test_nav_for_a_visitor(client: Client) -> None:
    links = re.findall(r'href="([^"]+)"', nav(client.get("/").content.decode()))
    assert links[:6] == [
        "/",
        "/ranking/fido/",
        "/ranking/allfives/",
        "/ranking/austrian/",
        "/archive/",
        "/clubs/",
    ]
    assert "/secretary/" not in links and "/dashboard/" not in links
    assert "/accounts/login/" in links


def test_nav_marks_the_current_page(client: Client, fido_and_austrian) -> None:
    html = nav(client.get("/ranking/fido/2026-04/").content.decode())
    assert '<a href="/ranking/fido/" aria-current="page">' in html
    assert html.count('aria-current="page"') == 1


def test_nav_for_a_secretary_and_an_admin(client: Client) -> None:
    secretary = SecretaryFactory(club=ClubFactory(club_id="CLUB-1")).user
    client.force_login(secretary)
    links = re.findall(r'href="([^"]+)"', nav(client.get("/").content.decode()))
    assert "/secretary/" in links and "/dashboard/" not in links
    client.force_login(AdminFactory(username="boss"))
    links = re.findall(r'href="([^"]+)"', nav(client.get("/").content.decode()))
    assert "/secretary/" in links and "/dashboard/" in links


def test_nav_for_a_user_with_no_role(client: Client) -> None:
    from tests.matches.factories import UserFactory

    client.force_login(UserFactory(username="reader"))
    links = re.findall(r'href="([^"]+)"', nav(client.get("/").content.decode()))
    assert "/secretary/" not in links and "/dashboard/" not in links


def test_clubs_index(client: Client, fido_and_austrian) -> None:
    ClubFactory(club_id="CLUB-VIE", name="Wiener Runde", country="AT", city="Wien")
    html = client.get("/clubs/").content.decode()
    page = text(html)
    assert "2 member clubs" in page
    assert page.index("Wiener Runde") < page.index("Domino Club Seven")  # AT before DE
    assert 'href="/clubs/CLUB-7/"' in html


def test_countries_and_clubs_are_sorted_by_name_in_the_readers_language(
    client: Client, fido_and_austrian
) -> None:
    """Issue 15, item 8: by name, accents and case aside: in German Österreich comes between
    Niederlande and Vereinigte Staaten (not after them, as by code point or by code)."""
    for club_id, name, country in [
        ("CLUB-VIE", "Ömer's Wiener Runde", "AT"),
        ("CLUB-AMS", "amsterdamse dominoclub", "NL"),
        ("CLUB-NYC", "Five Up New York", "US"),
        ("CLUB-HAM", "Élan Hamburg", "DE"),
    ]:
        PlayerFactory(
            country=country, club=ClubFactory(club_id=club_id, name=name, country=country)
        )

    def headings(language: str) -> list[str]:
        html = client.get("/clubs/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        return [unescape(h) for h in re.findall(r'<h2 id="country-\w+-h">([^<]*)</h2>', html)]

    assert headings("de") == [
        "Deutschland",
        "Niederlande",
        "Österreich",
        "Vereinigte Staaten von Amerika",
    ]
    assert headings("en") == ["Austria", "Germany", "Netherlands", "United States of America"]
    german = text(client.get("/clubs/", HTTP_ACCEPT_LANGUAGE="de").content.decode())
    assert german.index("Domino Club Seven") < german.index("Élan Hamburg")

    page = client.get("/ranking/fido/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    countries = re.search(r'<select id="f-country" name="country">(.*?)</select>', page, re.S)
    assert countries
    names = re.findall(r"<option[^>]*>([^<]*)</option>", countries.group(1))
    assert names[1:] == [
        "Deutschland",
        "Niederlande",
        "Österreich",
        "Vereinigte Staaten von Amerika",
    ]
    clubs = re.search(r'<select id="f-club" name="club">(.*?)</select>', page, re.S)
    assert clubs
    names = [unescape(n) for n in re.findall(r"<option[^>]*>([^<]*)</option>", clubs.group(1))]
    assert names[1:] == [
        "amsterdamse dominoclub (NL)",
        "Domino Club Seven (DE)",
        "Élan Hamburg (DE)",
        "Five Up New York (US)",
        "Ömer's Wiener Runde (AT)",
    ]


@pytest.fixture
def punctual_club(fido_and_austrian, fixed_now):
    """CLUB-7 hosts: March 2026 three matches (two on time, one late), April one on time."""
    club, players = fido_and_austrian
    p = players
    submit_table(club, [([p[0]], 3), ([p[1]], 1)], id="m1", date="2026-03-05")
    submit_table(club, [([p[2]], 3), ([p[3]], 1)], id="m2", date="2026-03-20")
    submit_table(
        club,
        [([p[4]], 3), ([p[5]], 1)],
        id="m3",
        date="2026-03-30",
        now=received(dt.date(2026, 4, 2)),
    )
    submit_table(club, [([p[6], p[7]], 5), ([p[8], p[9]], 2)], id="a1", date="2026-04-11")
    return club


def test_club_page(client: Client, punctual_club) -> None:
    response = client.get("/clubs/CLUB-7/")
    assert response.status_code == 200
    html = response.content.decode()
    page = visible_text(html)
    assert "Domino Club Seven" in page and "Köln" in page
    assert "Members 12" in page
    assert "75% of the club's 4 matches were submitted before the deadline" in page
    assert "March 2026 3 2 1 67%" in page
    assert "April 2026 1 1 0 100%" in page
    assert "May 2026 0 0 0 no matches" in page
    assert page.index("June 2025") < page.index("May 2026")  # 12 months, oldest first
    assert "June 2025" in page and "May 2025" not in page


def test_club_members_with_their_ranks(client: Client, punctual_club) -> None:
    html = client.get("/clubs/CLUB-7/").content.decode()
    members = re.search(r'<table class="members">.*?<tbody>(.*?)</tbody>', html, re.S).group(1)
    rows = [visible_text(r) for r in re.findall(r"<tr>(.*?)</tr>", members, re.S)]
    assert (
        rows[0] == "Player 01 P-000001 Germany 1 (100.00) \N{EN DASH}"
    )  # not on the Austrian list
    assert rows[11] == "Player 12 P-000012 Germany 12 (89.00) 1 (7.77)"


def test_club_recent_results(client: Client, punctual_club) -> None:
    html = client.get("/clubs/CLUB-7/").content.decode()
    recent = re.search(r'<table class="recent">.*?<tbody>(.*?)</tbody>', html, re.S).group(1)
    rows = [visible_text(r) for r in re.findall(r"<tr>(.*?)</tr>", recent, re.S)]
    assert len(rows) == 4
    # Sides numbered as sides, their places from the scores.
    assert rows[0] == (
        "2026-04-11 FIDO Club Side 1: Player 07, Player 08 5 (place 1) "
        "Side 2: Player 09, Player 10 2 (place 2) on time"
    )
    assert rows[1].endswith("late")


def test_club_recent_results_leave_out_voided_matches(client: Client, punctual_club) -> None:
    from matches.services import match_void

    match_void(
        match=Match.objects.get(external_id="a1"),
        reason="wrong table",
        by=AdminFactory(username="boss"),
        now=dt.datetime(2026, 4, 20, tzinfo=BERLIN),
    )
    html = client.get("/clubs/CLUB-7/").content.decode()
    assert "2026-04-11" not in html


def test_club_page_queries(client: Client, punctual_club, django_assert_max_num_queries) -> None:
    # The club, the current lists, the members, their entries, the latest results' seats,
    # the punctuality.
    with django_assert_max_num_queries(6):
        client.get("/clubs/CLUB-7/")


def test_club_recent_results_share_a_place_on_equal_scores(
    client: Client, fido_and_austrian
) -> None:
    club, p = fido_and_austrian
    submit_table(club, [([p[0]], 3), ([p[1]], 1), ([p[2]], 3)], id="t1", date="2026-04-12")
    html = client.get("/clubs/CLUB-7/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    recent = re.search(r'<table class="recent">.*?<tbody>(.*?)</tbody>', html, re.S).group(1)
    (row,) = [visible_text(r) for r in re.findall(r"<tr>(.*?)</tr>", recent, re.S)]
    assert row == (
        "2026-04-12 FIDO Verein Seite 1: Player 01 3 (Platz 1) Seite 2: Player 02 1 (Platz 3) "
        "Seite 3: Player 03 3 (Platz 1) pünktlich"
    )


def test_unknown_club_is_404(client: Client) -> None:
    assert client.get("/clubs/CLUB-NONE/").status_code == 404


def test_club_members_link_their_pages_and_numbers_follow_the_language(
    client: Client, punctual_club
) -> None:
    html = client.get("/clubs/CLUB-7/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    members = re.search(r'<table class="members">.*?<tbody>(.*?)</tbody>', html, re.S).group(1)
    assert '<a href="/players/P-000001/">Player 01</a>' in members
    assert "(100,00)" in members and "(100.00)" not in members
    assert 'aria-label="ohne Platz"' in members  # Player 01 is not on the Austrian list


@pytest.mark.postgres
@pytest.mark.parametrize("statement", ["latest_seats", "played_days"])
def test_the_club_pages_reads_of_its_matches_use_their_index(punctual_club, statement) -> None:
    """Its latest matches and its punctuality find the club's matches by day played
    (``match_club_played``, migration 0007), not every match of the club. Index scans
    only, as on a large table: on these few rows PostgreSQL would read the table."""
    from django.db import connection

    from rankings import club_sql

    if statement == "latest_seats":
        found = club_sql.latest_seats(punctual_club.pk, matches=20)
    else:
        found = club_sql.played_days(punctual_club.pk, dt.date(2025, 6, 1), dt.date(2026, 5, 31))
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + found.sql, found.params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "match_club_played" in plan, plan
