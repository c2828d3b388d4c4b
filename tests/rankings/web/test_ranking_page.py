"""The world ranking page: content, movement, shared ranks, search, filters, paging, errors,
and a fixed number of queries whatever the size of the list."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client

from matches.audit import recording
from rankings import sql
from rankings.selectors import list_page as pages
from tests.matches.factories import ClubFactory, PlayerFactory

from .conftest import publish, ranking_rows, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def clubs():
    return (
        ClubFactory(club_id="CLUB-BER", name="Dominoclub Berlin", country="DE"),
        ClubFactory(club_id="CLUB-VIE", name="Wiener Runde", country="AT"),
    )


@pytest.fixture
def march(clubs):
    """L(2026-03): movement of every kind, a shared rank written out of id order."""
    berlin, vienna = clubs
    anna = PlayerFactory(player_id="P-000001", name="Anna Müller", country="DE", club=berlin)
    ben = PlayerFactory(player_id="P-000002", name="Ben Huber", country="AT", club=vienna)
    cleo = PlayerFactory(player_id="P-000003", name="Cléo Martin", country="FR", club=None)
    dirk = PlayerFactory(player_id="P-000004", name="Dirk Müller", country="DE", club=berlin)
    eva = PlayerFactory(player_id="P-000005", name="Eva Gruber", country="AT", club=vienna)
    return publish(
        "2026-03",
        [
            (anna, 1, 43107, 23, 4),  # up 3
            (dirk, 2, 30000, 5, 2),  # unchanged
            (ben, 2, 30000, 7, 1),  # down 1; shares rank 2 with Dirk, and P-000002 comes first
            (cleo, 4, 1250, 1, None),  # new
            (eva, 5, 917, 2, 9),  # up 4
        ],
    )


def test_rank_movement_name_country_club_fladub_results(client: Client, march) -> None:
    response = client.get("/ranking/fido/")
    assert response.status_code == 200
    html = response.content.decode()
    rows = ranking_rows(html)
    # rank, movement, player (name and id), country, club, FLADUB, results counted
    assert rows[0] == [
        *("1", "▲ 3", "Anna Müller P-000001", "Germany", "Dominoclub Berlin", "431.07", "23")
    ]
    assert rows[3] == ["4", "new", "Cléo Martin P-000003", "France", "", "12.50", "1"]
    # Countries by name in the reader's language (issue 15, item 8).
    german = ranking_rows(client.get("/ranking/fido/", HTTP_ACCEPT_LANGUAGE="de").content.decode())
    assert [row[3] for row in german[:4:3]] == ["Deutschland", "Frankreich"]
    assert rows[4][:2] == ["5", "▲ 4"] and rows[4][5] == "9.17"
    assert '<a href="/players/P-000001/">Anna Müller</a>' in html
    assert '<a href="/clubs/CLUB-BER/">Dominoclub Berlin</a>' in html
    assert "March 2026" in text(html)


def test_shared_rank_is_ordered_by_federation_id(client: Client, march) -> None:
    rows = ranking_rows(client.get("/ranking/fido/").content.decode())
    assert [(r[0], r[2].split()[-1]) for r in rows[:3]] == [
        ("1", "P-000001"),
        ("2", "P-000002"),
        ("2", "P-000004"),
    ]
    assert rows[1][1] == "▼ 1" and rows[2][1] == "—"


def test_movement_has_text_for_screen_readers(client: Client, march) -> None:
    html = client.get("/ranking/fido/").content.decode()
    assert (
        '<span aria-hidden="true">▲ 3</span><span class="visually-hidden">up 3 places</span>'
    ) in html
    assert '<span class="visually-hidden">down 1 place</span>' in html
    assert '<span class="visually-hidden">unchanged</span>' in html
    assert 'new<span class="visually-hidden"> on the list</span>' in html


def test_table_semantics(client: Client, march) -> None:
    html = client.get("/ranking/fido/").content.decode()
    assert '<caption id="ranking-caption">' in html
    assert html.count('<th scope="col"') >= 7
    assert '<th scope="row" class="player">' in html
    for field in ("f-q", "f-country", "f-club"):
        assert f'<label for="{field}">' in html and f'id="{field}"' in html


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("q=m%C3%BCller", ["P-000001", "P-000004"]),
        ("q=M%C3%BCLLER", ["P-000001", "P-000004"]),  # case does not matter (ASCII on SQLite)
        ("q=p-000003", ["P-000003"]),  # a federation id
        # several words: the longest is looked up, the whole text checked on what it found
        ("q=anna+m%C3%BCller", ["P-000001"]),
        ("q=m%C3%BCller+anna", []),
        ("q=dirk+m", ["P-000004"]),
        ("country=AT", ["P-000002", "P-000005"]),
        ("country=at", ["P-000002", "P-000005"]),
        ("club=CLUB-BER", ["P-000001", "P-000004"]),
        ("q=m%C3%BCller&country=DE&club=CLUB-BER", ["P-000001", "P-000004"]),
        ("q=gruber&country=DE", []),
        ("club=CLUB-NONE", []),
    ],
)
def test_search_and_filters(
    client: Client, march, plan: str, query: str, expected: list[str]
) -> None:
    response = client.get(f"/ranking/fido/?{query}")
    assert response.status_code == 200
    html = response.content.decode()
    if expected:
        assert [r[2].split()[-1] for r in ranking_rows(html)] == expected
        if plan == "by_player":
            assert f"{len(expected)} player" in text(html)
    else:
        assert '<table class="ranking">' not in html
        assert "No player on this list matches" in text(html)


def test_filters_stay_selected(client: Client, march) -> None:
    html = client.get("/ranking/fido/?q=M%C3%BCller&country=DE&club=CLUB-BER").content.decode()
    assert 'value="Müller"' in html
    assert '<option value="DE" selected>' in html
    assert '<option value="CLUB-BER" selected>' in html


@pytest.fixture
def big(clubs):
    """L(2026-04) of 130 players: ranks shared in groups of 7 (1, 1, .., 8, 8, ..), so that
    groups straddle the page boundaries."""
    berlin, vienna = clubs
    players = [
        PlayerFactory(
            player_id=f"P-{n:06d}",
            name=f"Player {n:03d}",
            country="DE" if n % 2 else "AT",
            club=berlin if n % 2 else vienna,
        )
        for n in range(1, 131)
    ]
    rows = [(p, 1 + (i // 7) * 7, 100_000 - (i // 7) * 100, 3, None) for i, p in enumerate(players)]
    return publish("2026-04", rows), players


def ids_on(client: Client, url: str) -> list[str]:
    response = client.get(url)
    assert response.status_code == 200, url
    return [r[2].split()[-1] for r in ranking_rows(response.content.decode())]


def test_pages_follow_list_order_across_shared_ranks(client: Client, big) -> None:
    _, players = big
    expected = [p.player_id for p in players]
    assert ids_on(client, "/ranking/fido/") == expected[:50]
    assert ids_on(client, "/ranking/fido/?page=2") == expected[50:100]
    assert ids_on(client, "/ranking/fido/?page=3") == expected[100:]
    page2 = ranking_rows(client.get("/ranking/fido/?page=2").content.decode())
    assert page2[0][0] == "50"  # position 51 shares rank 50 (positions 50..56)


def links(html: str) -> dict[str, str]:
    """rel -> href of the pager's links."""
    return {
        rel: unescape(href) for href, rel in re.findall(r'<a href="([^"]+)" rel="(\w+)">', html)
    }


def test_filtered_views_page_by_cursor(client: Client, big, plan: str) -> None:
    _, players = big
    germans = [p.player_id for p in players if p.country == "DE"]
    assert len(germans) == 65
    first = client.get("/ranking/fido/?country=DE").content.decode()
    assert [r[2].split()[-1] for r in ranking_rows(first)] == germans[:50]
    count = {
        "by_player": "65 players match",
        "id_set": "65 registered players match",
        "walked": "More than 4 registered players match",
    }[plan]
    assert count in text(first)
    assert "prev" not in links(first)
    second_url = links(first)["next"]
    assert re.fullmatch(r"/ranking/fido/\?country=DE&after=\d+-\d+", second_url)
    second = client.get(second_url).content.decode()
    assert [r[2].split()[-1] for r in ranking_rows(second)] == germans[50:]
    assert "next" not in links(second)
    back = client.get(links(second)["prev"]).content.decode()
    assert [r[2].split()[-1] for r in ranking_rows(back)] == germans[:50]


def test_going_back_to_the_start_shows_a_full_first_page(client: Client, big, plan) -> None:
    _, players = big
    germans = [p.player_id for p in players if p.country == "DE"]
    second = client.get("/ranking/fido/?country=DE&from=20").content.decode()
    shown = [r[2].split()[-1] for r in ranking_rows(second)]
    # Ranks go 1, 8, 15, 22 (each shared by 7): the first German from rank 20 on is P-000023.
    assert shown[0] == "P-000023" == germans[11]
    back = client.get(links(second)["prev"]).content.decode()
    assert [r[2].split()[-1] for r in ranking_rows(back)] == germans[:50]


def test_go_to_rank(client: Client, big, plan) -> None:
    _, players = big
    rows = ranking_rows(client.get("/ranking/fido/?from=120").content.decode())
    assert rows[0][2].split()[-1] == players[100].player_id  # page 3: positions 101..130
    rows = ranking_rows(client.get("/ranking/fido/?from=999999").content.decode())
    assert rows[-1][2].split()[-1] == players[-1].player_id  # past the end: the last page
    rows = ranking_rows(client.get("/ranking/fido/?country=AT&from=50").content.decode())
    assert [r[0] for r in rows][:3] == ["50", "50", "50"]  # positions 50..56 share rank 50


def test_name_search_pages(client: Client, big, plan: str) -> None:
    expected = [p.player_id for p in big[1] if "player 1" in p.name.lower()]
    assert len(expected) == 31  # Player 100 .. Player 130
    html = client.get("/ranking/fido/?q=player+1&from=120").content.decode()
    shown = [r[2].split()[-1] for r in ranking_rows(html)]
    assert shown == expected[20:]  # ranks 120 (Player 120..126) and 127 (Player 127..130)
    assert "next" not in links(html) and "prev" in links(html)


@pytest.mark.parametrize("cursor", ["after=12", "after=a-1", "before=1-2-3", "from=0", "from=x"])
def test_malformed_cursor_or_rank_is_400(client: Client, big, cursor: str) -> None:
    assert client.get(f"/ranking/fido/?country=DE&{cursor}").status_code == 400


@pytest.mark.parametrize("page", ["abc", "0", "-1", "1.5", "99999999", "2%00"])
def test_malformed_page_is_400(client: Client, march, page: str) -> None:
    assert client.get(f"/ranking/fido/?page={page}").status_code == 400


def test_page_after_the_last_is_404(client: Client, march) -> None:
    assert client.get("/ranking/fido/?page=2").status_code == 404


@pytest.mark.parametrize(
    "query", ["country=Germany", "country=D1", "club=Berlin", "q=" + "x" * 101]
)
def test_malformed_filters_are_400(client: Client, march, query: str) -> None:
    assert client.get(f"/ranking/fido/?{query}").status_code == 400


def test_archived_month(client: Client, march, big) -> None:
    response = client.get("/ranking/fido/2026-03/")
    assert response.status_code == 200
    page = text(response.content.decode())
    assert "This is the archived list of March 2026" in page
    assert "See the current list (April 2026)" in page
    assert ranking_rows(response.content.decode())[0][2] == "Anna Müller P-000001"


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/ranking/chess/", 404),
        ("/ranking/chess/2026-03/", 404),
        ("/ranking/fido/2026-02/", 404),  # no list of that month
        ("/ranking/fido/2026-13/", 400),
        ("/ranking/fido/2026-3/", 400),
        ("/ranking/fido/March/", 400),
        ("/ranking/fido/0000-01/", 400),
    ],
)
def test_unknown_and_malformed(client: Client, march, url: str, status: int) -> None:
    assert client.get(url).status_code == status


def test_a_discipline_without_a_list(client: Client, march) -> None:
    response = client.get("/ranking/austrian/")
    assert response.status_code == 200
    assert "No Austrian list has been published yet" in text(response.content.decode())


def test_download_links_point_at_the_api(client: Client, march) -> None:
    html = client.get("/ranking/fido/").content.decode()
    assert 'href="/api/rankings/fido/2026-03.csv"' in html
    assert 'href="/api/rankings/fido/2026-03.json"' in html
    response = client.get("/api/rankings/fido/2026-03.csv")
    assert response.status_code == 200
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert lines[0] == "rank,player_id,name,country,fladub,results_counted,previous_rank"
    assert lines[1] == "1,P-000001,Anna Müller,DE,431.07,23,4"


# The discipline's lists (current, the month's, the switcher's months); the page: one
# statement for a page of the whole list, two or three for a filtered view (the bounded
# look at the matching players, then their places and rows, or the walk); the countries
# and clubs of the filters; the current page's projection, if any (one). No query per row,
# however long the list.
QUERIES = {"whole": 5, "filtered": 7}


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("/ranking/fido/", "whole"),
        ("/ranking/fido/?page=3", "whole"),
        ("/ranking/fido/2026-04/?page=2", "whole"),
        ("/ranking/fido/?country=DE&q=player", "filtered"),
        ("/ranking/fido/?country=DE&after=22-5", "filtered"),
        ("/ranking/fido/?country=DE&before=99-500", "filtered"),
        ("/ranking/fido/?q=player&from=40", "filtered"),
    ],
)
def test_queries_do_not_grow_with_the_list(
    client: Client, big, plan: str, url: str, kind: str, django_assert_num_queries
) -> None:
    with django_assert_num_queries(QUERIES[kind], exact=False):
        response = client.get(url)
    assert response.status_code == 200
    assert len(ranking_rows(response.content.decode())) > 0


def test_publication_time_and_archive_notice(client: Client, march, big) -> None:
    """The lists come from one query written in SQL: their times arrive as the ORM gives
    them (aware, in the federation's time zone on the page), on every database."""
    html = client.get("/ranking/fido/2026-03/").content.decode()
    assert '<time datetime="2026-04-02T00:05:00+02:00">2 April 2026</time>' in html
    assert "This is the archived list of March 2026" in text(html)
    current = client.get("/ranking/fido/").content.decode()
    assert '<time datetime="2026-05-03T00:05:00+02:00">3 May 2026</time>' in current
    assert "archived" not in text(current)
    assert re.findall(r'href="/ranking/fido/(\d{4}-\d{2})/"', current)[:2] == ["2026-04", "2026-03"]


def test_names_and_clubs_are_escaped(client: Client) -> None:
    club = ClubFactory(club_id="CLUB-X", name='Club <i>"X"</i> & Co', country="DE")
    odd = PlayerFactory(player_id="P-000009", name="<b>Ann</b> O'Hara & Bo", club=club)
    publish("2026-03", [(odd, 1, 1000, 1, None)])
    for url in ("/ranking/fido/", "/ranking/fido/?q=hara"):
        html = client.get(url).content.decode()
        assert "<b>Ann</b>" not in html and "<i>" not in html
        assert "&lt;b&gt;Ann&lt;/b&gt; O&#x27;Hara &amp; Bo" in html
        assert "Club &lt;i&gt;&quot;X&quot;&lt;/i&gt; &amp; Co" in html
        assert ranking_rows(html)[0][2:5] == [
            "<b>Ann</b> O'Hara & Bo P-000009",
            "Germany",
            'Club <i>"X"</i> & Co',
        ]


def test_a_broad_filter_in_german_says_registered_players(
    client: Client, big, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "EXACT_MATCHES", 0)
    html = client.get("/ranking/fido/?country=DE", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "65 registrierte Spieler passen." in text(html)


def test_an_id_list_is_checked_before_it_is_written_into_sql() -> None:
    with pytest.raises(ValueError, match="digits"):
        sql.in_id_set("1,2); DROP TABLE x; --", sql.Condition("", {}))


def test_a_list_written_by_the_ranking_job_shows_in_export_order(client: Client, plan) -> None:
    """Pages order a shared rank by entry id: the writer stores entries in the order the
    FLADUB core ranked them (federation id within a rank), whatever the players' keys."""
    import datetime as dt

    import numpy as np

    from rankings import export, fladub, writer
    from rankings.models import CurrentList, RankingList

    # Created in reverse federation-id order: database keys disagree with federation ids.
    players = [PlayerFactory(player_id=f"P-00000{n}", name=f"Tied {n}") for n in (4, 3, 2, 1)]
    key: dict[str, int] = {p.player_id: p.pk for p in players}
    order = np.zeros(max(key.values()) + 1, dtype=np.int64)
    for position, player_id in enumerate(sorted(key)):
        order[key[player_id]] = position
    points = {"P-000001": 5, "P-000002": 10, "P-000003": 10, "P-000004": 10}
    ids: list[int] = sorted(int(v) for v in key.values())
    by_key = {v: k for k, v in key.items()}
    totals = fladub.PlayerTotals(
        player=np.array(ids, dtype=np.int64),
        units=np.array([points[by_key[i]] * fladub.UNITS_PER_POINT for i in ids], np.int64),
        results_counted=np.ones(len(ids), dtype=np.int64),
    )
    ranking = fladub.rank_list(totals, fladub.month_index(2026, 3), player_order=order)
    now = dt.datetime(2026, 4, 1, 0, 10, tzinfo=dt.UTC)
    with recording():
        ranking_list = RankingList.objects.create(
            discipline="fido", month=dt.date(2026, 3, 1), entry_count=len(ranking), created_at=now
        )
    writer.write_entries(ranking_list=ranking_list, ranking=ranking)
    RankingList.objects.filter(pk=ranking_list.pk).update(status="published", published_at=now)
    CurrentList.objects.create(discipline="fido", ranking_list=ranking_list, updated_at=now)

    shown = [r[2].split()[-1] for r in ranking_rows(client.get("/ranking/fido/").content.decode())]
    csv_lines = "".join(export.csv_pieces(ranking_list)).splitlines()[1:]
    exported = [line.split(",")[1] for line in csv_lines]
    assert shown == exported == ["P-000002", "P-000003", "P-000004", "P-000001"]
    filtered = client.get("/ranking/fido/?q=tied").content.decode()
    assert [r[2].split()[-1] for r in ranking_rows(filtered)] == shown


def test_a_name_search_needs_three_letters(client: Client, march) -> None:
    html = client.get("/ranking/fido/?q=m%C3%BC").content.decode()
    assert "Type at least 3 letters of a name, or a whole player id, to search" in text(html)
    assert len(ranking_rows(html)) == 5  # the whole list
    assert 'value="mü"' in html


def test_the_api_s_filtered_pages_are_cut_in_the_database(
    client: Client, big, django_assert_num_queries
) -> None:
    """A numbered page of a filtered view of up to MANY_PLAYERS players: their places
    counted, sorted and cut by one statement (only the page's rows joined to their players),
    the same pages as the whole filtered list cut by hand, ties straddling the pages."""
    _, players = big
    berlin = [p.player_id for p in players if p.club.club_id == "CLUB-BER"]
    url, query = "/api/rankings/fido", {"club": "CLUB-BER", "page_size": 6}
    pages = -(-len(berlin) // 6)
    shown = []
    for number in range(1, pages + 1):
        # The current list; the matching players; the page with the count of all.
        with django_assert_num_queries(3):
            body = client.get(url, {**query, "page": number}).json()
        assert (body["count"], body["pages"], body["page"]) == (len(berlin), pages, number)
        shown += [r["player_id"] for r in body["results"]]
    assert shown == berlin
    beyond = client.get(url, {**query, "page": pages + 1})
    assert beyond.status_code == 404
    assert (
        beyond.json()["errors"][0]["message"] == f"page {pages + 1} is after the last page, {pages}"
    )
