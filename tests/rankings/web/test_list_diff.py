"""Who moved between two published lists (issue 14, item 3, step 3, the API): two versions
of a month, and consecutive months."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rankings.models import RankingList
from tests.matches.factories import PlayerFactory

from .conftest import publish, table_rows, text

pytestmark = pytest.mark.django_db
URL = "/api/rankings/fido/2026-03/diff"


@pytest.fixture
def lists():
    """L(2026-02); L(2026-03) v1; its erratum v2: Ben overtakes Anna, Cleo drops out, Dirk
    comes in, Eva's FLADUB changes but not her place, Finn stays as he was."""
    anna, ben, cleo, dirk, eva, finn = (
        PlayerFactory(player_id=f"P-00000{n}", name=name)
        for n, name in enumerate(["Anna", "Ben", "Cleo", "Dirk", "Eva", "Finn"], start=1)
    )
    publish("2026-02", [(anna, 1, 6000, 3, None), (ben, 2, 5000, 3, None)], current=False)
    publish(
        "2026-03",
        [
            (anna, 1, 5000, 3, 1),
            (ben, 2, 4000, 2, 2),
            (cleo, 3, 3000, 1, None),
            (eva, 4, 2000, 1, None),
            (finn, 5, 1000, 1, None),
        ],
    )
    publish(
        "2026-03",
        [
            (ben, 1, 5100, 3, 2),
            (anna, 2, 5000, 3, 1),
            (dirk, 3, 2500, 1, None),
            (eva, 4, 2100, 1, None),
            (finn, 5, 1000, 1, None),
        ],
        version=2,
    )


def test_two_versions_of_a_month(client, lists) -> None:
    with CaptureQueriesContext(connection) as captured:
        body = client.get(URL).json()  # default: the latest version against the one before
    assert (body["old"]["version"], body["new"]["version"]) == (1, 2)
    assert body["old"]["superseded"] is True and body["new"]["superseded"] is False
    assert body["count"] == 5
    rows = [
        (r["player_id"], r["old_rank"], r["new_rank"], r["moved"], r["old_fladub"], r["new_fladub"])
        for r in body["results"]
    ]
    assert rows == [
        ("P-000002", 2, 1, 1, "40.00", "51.00"),
        ("P-000001", 1, 2, -1, "50.00", "50.00"),
        ("P-000004", None, 3, None, None, "25.00"),
        ("P-000005", 4, 4, 0, "20.00", "21.00"),
        ("P-000003", 3, None, None, "30.00", None),
    ]
    # two lists looked up, the page, the count (the fixture publishes both at one instant:
    # no span in which a correction could have been made, so none is looked up)
    assert len(captured.captured_queries) == 4


def test_named_versions_and_paging(client, lists) -> None:
    body = client.get(URL, {"version": 1, "from": 2, "page_size": 2, "page": 2}).json()
    assert (body["old"]["version"], body["new"]["version"], body["count"]) == (2, 1, 5)
    assert [r["player_id"] for r in body["results"]] == ["P-000003", "P-000005"]


def test_consecutive_months(client, lists) -> None:
    body = client.get(URL, {"from": "2026-02"}).json()
    assert body["old"]["month"] == "2026-02" and body["new"]["month"] == "2026-03"
    assert [(r["player_id"], r["moved"]) for r in body["results"][:2]] == [
        ("P-000002", 1),
        ("P-000001", -1),
    ]
    # The first version of a month is compared with the previous month by default.
    first = client.get(URL, {"version": 1}).json()
    assert first["old"]["month"] == "2026-02" and first["new"]["version"] == 1


@pytest.mark.parametrize(
    "query,status,says",
    [
        ({"from": "soon"}, 400, "version number"),
        ({"from": "2026-13"}, 400, "version number"),
        ({"page_size": "501"}, 400, "page_size"),
        ({"version": "x"}, 400, "version"),
        ({"from": "3"}, 404, "no version 3"),
        ({"from": "2025-01"}, 404, "no published fido list for 2025-01"),
        ({"version": "4"}, 404, "no version 4"),
    ],
)
def test_bad_input_is_a_clear_4xx_and_changes_nothing(client, lists, query, status, says) -> None:
    before = list(RankingList.objects.values_list("id", "status", "edition"))
    response = client.get(URL, query)
    assert response.status_code == status
    assert says in response.content.decode()
    assert list(RankingList.objects.values_list("id", "status", "edition")) == before


def test_unknown_month_or_discipline(client, lists) -> None:
    assert client.get("/api/rankings/fido/2026-05/diff").status_code == 404
    assert client.get("/api/rankings/nope/2026-03/diff").status_code == 404
    assert client.get("/api/rankings/fido/2026-3/diff").status_code == 400
    # February has no version before it and no list of January.
    answer = client.get("/api/rankings/fido/2026-02/diff")
    assert answer.status_code == 404 and "2026-01" in answer.content.decode()


PAGE = "/ranking/fido/2026-03/diff/"


def test_the_page_shows_who_moved(client, lists) -> None:
    html = client.get(PAGE).content.decode()
    words = text(html)
    assert "The list of March 2026: version 2 against version 1." in words
    assert "5 players' places or FLADUB differ." in words
    rows = table_rows(html, "diff-table")
    assert rows[0] == ["Ben P-000002", "2", "1", "▲ 1", "40.00", "51.00"]
    assert rows[1] == ["Anna P-000001", "1", "2", "▼ 1", "50.00", "50.00"]
    none = "\N{EN DASH}"  # not on that list
    assert rows[2] == ["Dirk P-000004", none, "3", "new", none, "25.00"]
    assert rows[4] == ["Cleo P-000003", "3", none, "left", "30.00", none]
    assert 'href="/ranking/fido/2026-03/v1/"' in html and 'href="/ranking/fido/2026-03/v2/"' in html
    # The latest version links its changes.
    assert f'href="{PAGE}"' in client.get("/ranking/fido/2026-03/").content.decode()


def test_the_page_against_the_previous_month_in_german(client, lists) -> None:
    html = client.get(PAGE, {"from": "2026-02"}, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Die Liste für März 2026 gegenüber der Liste für Februar 2026." in text(html)
    assert "Vorher" in html and "ausgeschieden" not in html.split("<tbody>")[0]
    # Rank movement is a "Veränderung"; "Zug" is a move in a game (issue 15, item 8).
    head = html.split("<thead>")[1].split("</thead>")[0]
    assert ">Veränderung<" in head and "Zug" not in head


@pytest.mark.parametrize(
    "query,status",
    [({"from": "soon"}, 400), ({"version": "0"}, 400), ({"from": "7"}, 404), ({"page": "x"}, 400)],
)
def test_the_page_refuses_bad_input(client, lists, query, status) -> None:
    response = client.get(PAGE, query)
    assert response.status_code == status
    assert "Traceback" not in response.content.decode()


def test_the_page_of_a_list_with_nothing_before_it(client, lists) -> None:
    response = client.get("/ranking/fido/2026-02/diff/")
    assert response.status_code == 404
    assert "Traceback" not in response.content.decode()
