"""The world ranking page: content, movement, shared ranks, search, filters, paging, errors,
and a fixed number of queries whatever the size of the list."""

from __future__ import annotations

import pytest
from django.test import Client

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
        *("1", "▲ 3", "Anna Müller P-000001", "DE", "Dominoclub Berlin", "431.07", "23")
    ]
    assert rows[3] == ["4", "new", "Cléo Martin P-000003", "FR", "", "12.50", "1"]
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
        ("country=AT", ["P-000002", "P-000005"]),
        ("country=at", ["P-000002", "P-000005"]),
        ("club=CLUB-BER", ["P-000001", "P-000004"]),
        ("q=m%C3%BCller&country=DE&club=CLUB-BER", ["P-000001", "P-000004"]),
        ("q=gruber&country=DE", []),
        ("club=CLUB-NONE", []),
    ],
)
def test_search_and_filters(client: Client, march, query: str, expected: list[str]) -> None:
    response = client.get(f"/ranking/fido/?{query}")
    assert response.status_code == 200
    html = response.content.decode()
    if expected:
        assert [r[2].split()[-1] for r in ranking_rows(html)] == expected
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
    groups straddle the page boundaries; inserted in reverse order."""
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
    return publish("2026-04", list(reversed(rows))), players


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


def test_filtered_pages(client: Client, big) -> None:
    _, players = big
    germans = [p.player_id for p in players if p.country == "DE"]
    assert len(germans) == 65
    assert ids_on(client, "/ranking/fido/?country=DE") == germans[:50]
    assert ids_on(client, "/ranking/fido/?country=DE&page=2") == germans[50:]
    assert client.get("/ranking/fido/?country=DE&page=3").status_code == 404


def test_pager_links_keep_the_filters(client: Client, big) -> None:
    html = client.get("/ranking/fido/?country=DE&q=Player").content.decode()
    assert 'href="/ranking/fido/?q=Player&amp;country=DE&amp;page=2" rel="next"' in html
    html = client.get("/ranking/fido/?page=2").content.decode()
    assert 'href="/ranking/fido/" rel="prev"' in html
    assert 'href="/ranking/fido/?page=3" rel="next"' in html
    assert "page 2 of 3" in text(html)


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


def test_download_links(client: Client, march) -> None:
    html = client.get("/ranking/fido/").content.decode()
    assert 'href="/ranking/fido/2026-03.csv"' in html
    assert 'href="/ranking/fido/2026-03.json"' in html


def test_csv_download(client: Client, march) -> None:
    response = client.get("/ranking/fido/2026-03.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    body = b"".join(response.streaming_content).decode()
    lines = body.splitlines()
    assert lines[0] == "rank,player_id,name,country,fladub,results_counted,previous_rank"
    assert lines[1] == "1,P-000001,Anna Müller,DE,431.07,23,4"
    assert lines[4] == "4,P-000003,Cléo Martin,FR,12.50,1,"
    assert len(lines) == 6


def test_json_download(client: Client, march) -> None:
    import json

    response = client.get("/ranking/fido/2026-03.json")
    assert response.status_code == 200
    rows = json.loads(b"".join(response.streaming_content))
    assert rows[0]["player_id"] == "P-000001" and rows[0]["fladub"] == 431.07
    assert rows[3]["previous_rank"] is None


@pytest.mark.parametrize("url", ["/ranking/fido/2026-02.csv", "/ranking/x/2026-03.json"])
def test_download_of_a_missing_list_is_404(client: Client, march, url: str) -> None:
    assert client.get(url).status_code == 404


def test_download_of_a_malformed_month_is_400(client: Client, march) -> None:
    assert client.get("/ranking/fido/2026-99.csv").status_code == 400


# The list, the page (an anchor or a bounded count, then the rows), the months, countries
# and clubs of the switcher and filters, and for an archived month the current list: no
# query per row, however long the list.
QUERIES = 7


@pytest.mark.parametrize(
    "url",
    [
        "/ranking/fido/",
        "/ranking/fido/?page=3",
        "/ranking/fido/?country=DE&page=2&q=player",
        "/ranking/fido/2026-04/?page=2",
    ],
)
def test_queries_do_not_grow_with_the_list(
    client: Client, big, url: str, django_assert_max_num_queries
) -> None:
    with django_assert_max_num_queries(QUERIES):
        assert client.get(url).status_code == 200
