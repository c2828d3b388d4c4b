"""The player page: standing, history chart (well-formed SVG) and table, every result that
counts with its weight now and next month, merged records, badge snippet, query count."""

from __future__ import annotations

import datetime as dt
import re
from types import SimpleNamespace

import pytest
from django.test import Client

from matches.models import Player
from tests.matches.factories import ClubFactory, PlayerFactory
from tests.rankings.factories import submit_table

from .conftest import page_text, parse_xml, publish, results_rows, svg_elements, text, visible_text

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def club():
    return ClubFactory(club_id="CLUB-7", name="Domino Club Seven", country="DE")


@pytest.fixture
def abcd(club) -> list[Player]:
    return [
        PlayerFactory(player_id=f"P-{n}", name=f"Player {n}", country="DE", club=club)
        for n in "ABCD"
    ]


@pytest.fixture
def worked_example(club, abcd):
    """SPEC 4's worked example: A 57, B 31, C 31, D -4 in March; lists of March and April."""
    a, b, c, d = abcd
    submit_table(club, [([a], 57), ([b], 31), ([c], 31), ([d], -4)], id="t1", date="2026-03-14")
    publish("2026-03", [(a, 1, 1000, 1, None), (b, 2, 500, 1, None), (c, 2, 500, 1, None)])
    return publish("2026-04", [(a, 1, 917, 1, 1), (b, 2, 458, 1, 2), (c, 2, 458, 1, 2)])


def test_standing_club_and_country(client: Client, worked_example) -> None:
    response = client.get("/players/P-A/")
    assert response.status_code == 200
    page = visible_text(response.content.decode())
    assert "Player A" in page
    assert "Rank 1" in page and "FLADUB 9.17" in page
    assert "Home club Domino Club Seven" in page
    assert "Country Germany" in page


def test_every_counting_result_with_weight_now_and_next_month(
    client: Client, worked_example
) -> None:
    html = client.get("/players/P-A/").content.decode()
    [row] = results_rows(html)
    date, club, category, table, points, weight, weighted, weight_next, best = row
    assert (date, club, category) == ("2026-03-14", "Domino Club Seven", "Club")
    assert table == "1 of 4, score 57 against Player B (31), Player C (31), Player D (-4)"
    assert (points, weight, weighted) == ("10.00", "11/12", "9.17")
    assert weight_next == "10/12 = 8.33"
    assert best == "yes"
    page = text(html)
    assert "add up to FLADUB 9.17" in page
    assert "would give 8.33 next month" in page
    assert "changed after the list was published" not in page


def test_a_shared_place_and_a_result_in_the_list_of_another_month(
    client: Client, worked_example
) -> None:
    [row] = results_rows(client.get("/players/P-C/").content.decode())
    assert row[3].startswith("2 of 4, score 31 against Player A (57), Player B (31)")
    assert row[4:7] == ["5.00", "11/12", "4.58"]


def test_opponent_strength_reads_the_list_before_the_match(client: Client, club, abcd) -> None:
    """SPEC 4's second example, with a list top (Z) who is not at the table."""
    a = abcd[0]
    x, y, z = (PlayerFactory(player_id=f"P-{n}", name=f"Player {n}", club=club) for n in "XYZ")
    publish("2026-02", [(z, 1, 20000, 3, None), (x, 2, 10000, 2, None), (y, 3, 5000, 1, None)])
    submit_table(club, [([a], 30), ([x], 20), ([y], 10)], id="t1", date="2026-03-05")
    publish("2026-03", [(a, 1, 1375, 1, None), (x, 2, 625, 1, 2)])
    # q_X = 100 / 200, q_Y = 50 / 200: A gets 10 * ((1 + .5) + (1 + .25)) / 2 = 13.75.
    [row] = results_rows(client.get("/players/P-A/").content.decode())
    assert row[4:8] == ["13.75", "12/12", "13.75", "11/12 = 12.60"]
    [row] = results_rows(client.get("/players/P-X/").content.decode())
    assert row[4] == "6.25"


def test_history_chart_is_well_formed_svg_with_a_point_per_list(
    client: Client, worked_example
) -> None:
    html = client.get("/players/P-A/").content.decode()
    charts = [
        svg
        for svg in svg_elements(html)
        if svg.get("role") == "img" and not svg.get("id", "").startswith("chart-forecast")
    ]
    assert len(charts) == 2  # the history's two (the drop-out calendar has its own test)
    fladub, rank = charts
    for chart in charts:
        assert chart.find(f"{SVG}title").text
        assert chart.find(f"{SVG}desc").text
        assert len(list(chart.iter(f"{SVG}circle"))) == 2
    tips = [c.find(f"{SVG}title").text for c in fladub.iter(f"{SVG}circle")]
    assert tips == ["2026-03: 10.00", "2026-04: 9.17"]
    assert "FLADUB in each FIDO list from 2026-03 to 2026-04" in fladub.find(f"{SVG}desc").text
    assert [c.find(f"{SVG}title").text for c in rank.iter(f"{SVG}circle")] == [
        "2026-03: 1",
        "2026-04: 1",
    ]


def _history_table(html: str) -> str:
    """The history table of a player page, from its caption to its end."""
    found = re.search(r'<caption id="history-caption">.*?</table>', html, re.S)
    assert found, "no history table"
    return found.group(0)


def test_history_table_fallback(client: Client, worked_example) -> None:
    html = client.get("/players/P-B/").content.decode()
    table = _history_table(html)
    assert "April 2026 2 4.58 3" in visible_text(table)
    assert "March 2026 2 5.00 3" in visible_text(table)


def test_a_month_off_the_list_breaks_the_rank_line(client: Client, club, abcd) -> None:
    a, b = abcd[:2]
    publish("2026-01", [(a, 1, 500, 1, None), (b, 2, 100, 1, None)])
    publish("2026-02", [(a, 1, 400, 1, 1)])
    publish("2026-03", [(a, 1, 300, 1, 1), (b, 2, 90, 1, None)])
    html = client.get("/players/P-B/").content.decode()
    fladub, rank = (svg for svg in svg_elements(html) if svg.get("role") == "img")
    assert len(list(fladub.iter(f"{SVG}circle"))) == 3  # 1.00, 0.00, 0.90
    assert len(list(rank.iter(f"{SVG}circle"))) == 2
    assert len(list(rank.iter(f"{SVG}polyline"))) == 0  # two runs of one point each
    assert "not listed" in text(html)


def test_best_20_of_25_results(client: Client, club, abcd, django_assert_max_num_queries) -> None:
    a = abcd[0]
    rivals = [PlayerFactory(player_id=f"P-R{n:02d}", club=club) for n in range(25)]
    for n, rival in enumerate(rivals):
        category = "league" if n < 5 else "club"
        day = f"2026-03-{n + 1:02d}"
        submit_table(club, [([a], 10), ([rival], 0)], id=f"t{n}", date=day, category=category)
    # 5 league wins (20 points) and 20 club wins (10 points), all from March: the best 20
    # are the 5 league wins and 15 club wins: 5 * 20 + 15 * 10 = 250.
    publish("2026-03", [(a, 1, 25000, 25, None)])
    # The player; the current lists with their entry; the disciplines played; the
    # projection with the player's entry (none here); the player's match points over
    # every list the page shows (members of the player's matches, the lists before them,
    # the opponents' entries there: once for the page, the ledger and the drop-out
    # calendar); the shown results' tables; every published list with the player's entry
    # (the history, the ledgers' lists and entries, the open month); the facts of the
    # results (the counts of players above: none here, the player is new): ten, whatever
    # the number of results, months or players.
    with django_assert_max_num_queries(10):
        html = client.get("/players/P-A/").content.decode()
    rows = results_rows(html)
    assert len(rows) == 25
    assert [r[-1] for r in rows].count("yes") == 20
    assert [r[4] for r in rows[:5]] == ["20.00"] * 5
    assert "add up to FLADUB 250.00" in text(html)


def test_results_in_pages(
    client: Client, club, abcd, django_assert_max_num_queries, monkeypatch
) -> None:
    """10 results a page: the best 20 first, every page with the totals of all 25, the last
    page holding the rest, a page after it a 404."""
    from rankings.views import public

    monkeypatch.setattr(public, "RESULTS_PER_PAGE", 10)
    a = abcd[0]
    for n in range(25):
        rival = PlayerFactory(player_id=f"P-R{n:02d}", club=club)
        category = "league" if n < 5 else "club"
        day = f"2026-03-{n + 1:02d}"
        submit_table(club, [([a], 10), ([rival], 0)], id=f"t{n}", date=day, category=category)
    publish("2026-03", [(a, 1, 25000, 25, None)])
    shown = []
    for number in (1, 2, 3):
        # As a page of all: the ledger and the calendar read the results the page does not
        # show from the same match points (their facts only, no tables).
        with django_assert_max_num_queries(10):
            html = client.get("/players/P-A/", {"page": number}).content.decode()
        assert "25 results count in the list of March 2026" in text(html)
        assert "add up to FLADUB 250.00" in text(html)
        assert f"Results {10 * number - 9} to {min(25, 10 * number)} of 25." in text(html)
        assert (' rel="next"' in html) == (number < 3)
        assert (' rel="prev"' in html) == (number > 1)
        shown += results_rows(html)
    assert len(shown) == 25
    assert [r[-1] for r in shown] == ["yes"] * 20 + ["no"] * 5
    assert [r[4] for r in shown[:5]] == ["20.00"] * 5
    assert len({r[0] for r in shown}) == 25  # every result once
    assert client.get("/players/P-A/", {"page": 4}).status_code == 404
    assert client.get("/players/P-A/", {"page": "0"}).status_code == 400


def test_fifty_results_a_page_by_default(client: Client, club, abcd) -> None:
    """50 results a page (as a page of the ranking has rows), the rest on the next."""
    a = abcd[0]
    for n in range(52):
        rival = PlayerFactory(player_id=f"P-R{n:02d}", club=club)
        day = f"2026-03-{n % 28 + 1:02d}"
        submit_table(club, [([a], 10), ([rival], 0)], id=f"t{n}", date=day)
    publish("2026-03", [(a, 1, 20000, 52, None)])
    first = client.get("/players/P-A/").content.decode()
    assert "Results 1 to 50 of 52." in text(first)
    assert len(results_rows(first)) == 50
    second = client.get("/players/P-A/", {"page": 2}).content.decode()
    assert len(results_rows(second)) == 2


def test_the_disciplines_of_a_player(client: Client, worked_example, abcd) -> None:
    a = abcd[0]
    publish("2026-04", [(a, 7, 1234, 2, None)], discipline="austrian")
    html = client.get("/players/P-A/").content.decode()
    assert 'href="?discipline=austrian"' in html
    assert "Rank 7" in visible_text(html)
    response = client.get("/players/P-A/?discipline=austrian")
    assert response.status_code == 200
    assert "No result of Player A counts in the list of April 2026" in text(
        response.content.decode()
    )
    assert client.get("/players/P-A/?discipline=chess").status_code == 400
    response = client.get("/players/P-A/?discipline=allfives")
    assert "No list of this discipline has been published yet" in text(response.content.decode())


def test_an_unranked_player_without_results(client: Client, worked_example, abcd) -> None:
    page = page_text(client, "/players/P-D/")
    assert "Unranked" in page
    assert "not on the list of April 2026" in page


def test_merged_records_redirect_to_the_survivor(client: Client, worked_example, abcd) -> None:
    a = abcd[0]
    old = PlayerFactory(player_id="P-OLD", name="Player A (duplicate)", merged_into=a)
    PlayerFactory(player_id="P-OLDER", name="Older", merged_into=old)
    response = client.get("/players/P-OLDER/?discipline=fido")
    assert response.status_code == 301
    assert response["Location"] == "/players/P-A/?discipline=fido"
    response = client.get("/players/P-OLD/badge.svg")
    assert response.status_code == 301
    assert response["Location"] == "/players/P-A/badge.svg"


def test_unknown_player_is_404(client: Client, worked_example) -> None:
    assert client.get("/players/P-NOBODY/").status_code == 404
    assert client.get("/players/P-NOBODY/badge.svg").status_code == 404


def test_badge_snippet(client: Client, worked_example) -> None:
    html = client.get("/players/P-A/").content.decode()
    assert '<img src="/players/P-A/badge.svg" alt="FIDO world rank 1 · FLADUB 9.17"' in html
    assert (
        "&lt;a href=&quot;http://testserver/players/P-A/&quot;&gt;&lt;img "
        "src=&quot;http://testserver/players/P-A/badge.svg&quot; "
        "alt=&quot;FIDO world ranking of Player A&quot; height=&quot;20&quot;&gt;&lt;/a&gt;"
    ) in html
    assert (
        "[![FIDO world ranking of Player A](http://testserver/players/P-A/badge.svg)]"
        "(http://testserver/players/P-A/)"
    ) in html
    assert '<label for="badge-html">' in html and '<label for="badge-md">' in html


def test_badge_snippet_of_a_name_with_quotes_and_brackets(client: Client, club) -> None:
    PlayerFactory(player_id="P-Q", name='Jo "Tile" [O<b>]', club=club)
    html = client.get("/players/P-Q/").content.decode()
    # Escaped for the snippet's attribute, and again for the text field that shows it.
    attribute = "alt=&quot;FIDO world ranking of Jo &amp;quot;Tile&amp;quot; [O&amp;lt;b&amp;gt;]"
    assert attribute in html
    assert "[![FIDO world ranking of Jo &quot;Tile&quot; \\[O&lt;b&gt;\\]](" in html
    assert "<b>" not in html


def test_results_table_semantics(client: Client, worked_example) -> None:
    html = client.get("/players/P-A/").content.decode()
    assert '<caption id="results-caption">' in html
    svg = parse_xml(re.search(r"<svg\b.*?</svg>", html, re.S).group(0))
    assert svg.get("aria-labelledby")


def test_history_rows_link_each_list_and_write_the_readers_numbers(
    client: Client, club, abcd
) -> None:
    a, b = abcd[:2]
    publish("2026-01", [(a, 1, 500, 1, None), (b, 2, 100, 1, None)])
    publish("2026-02", [(a, 1, 400, 1, 1)])
    publish("2026-03", [(a, 1, 300, 1, 1), (b, 2, 90, 1, None)])
    html = client.get("/players/P-B/").content.decode()
    table = _history_table(html)
    links = re.findall(r'<a href="([^"]+)">([^<]+)</a>', table)
    assert links == [
        ("/ranking/fido/2026-03/", "March 2026"),
        ("/ranking/fido/2026-02/", "February 2026"),
        ("/ranking/fido/2026-01/", "January 2026"),
    ]
    assert "February 2026 not listed 0.00 1" in visible_text(table)
    german = client.get("/players/P-B/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    table = _history_table(german)
    assert "Februar 2026 nicht gelistet 0,00 1" in visible_text(table)
    assert "März 2026 2 0,90 2" in visible_text(table)


def test_history_rows_group_the_players_ranked_as_the_reader_writes_numbers() -> None:
    from django.utils import translation

    from rankings.templatetags.public_tags import history_rows

    point = SimpleNamespace(
        month=dt.date(2026, 3, 1), rank=7, fladub_cents=123456, entry_count=1234567
    )
    with translation.override("de"):
        row = history_rows([point], "/ranking/fido/")
    assert row.startswith('<tr><th scope="row"><a href="/ranking/fido/2026-03/">März 2026</a>')
    assert '<td class="num">1234,56</td>' in row
    assert '<td class="num">1.234.567</td>' in row
    with translation.override("en"):
        assert '<td class="num">1,234,567</td>' in history_rows([point], "/x/")
    unlisted = SimpleNamespace(month=dt.date(2026, 2, 1), rank=None, fladub_cents=0, entry_count=5)
    with translation.override("en"):
        assert '<span class="muted">not listed</span>' in history_rows([unlisted], "/x/")
