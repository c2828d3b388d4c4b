"""The drop-out calendar (rankings.selectors.forecast): the next 12 numbers if the player
plays nothing are the numbers the closes then publish, and the results leave when due."""

from __future__ import annotations

import html
import re
from decimal import Decimal

import pytest
from django.test import Client

from matches.months import Month
from rankings.models import RankingEntry
from rankings.selectors.forecast import player_forecast
from rankings.views.public import LEAVING_NAMED_UP_TO
from tests.matches.factories import ClubFactory, PlayerFactory
from tests.rankings.factories import close, submit_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada():
    club = ClubFactory(club_id="CLUB-F")
    ada, bob, cy = (PlayerFactory(player_id=f"P-F{n}", club=club) for n in "ABC")
    submit_table(club, [([ada], 5), ([bob], 1)], id="m1", date="2026-03-10")
    close("2026-03")
    submit_table(club, [([ada], 5), ([cy], 1)], id="a1", date="2026-04-10")
    return ada


def _leaving_cells(page: str) -> list[str]:
    """The text of the drop-out calendar's "results leaving" cells, row by row."""
    table = page.split('class="forecast-table"', 1)[1].split("</table>", 1)[0]
    return [html.unescape(cell) for cell in re.findall(r"<td>([^<]*)</td></tr>", table)]


def test_by_hand(ada) -> None:
    found = player_forecast(ada.pk, discipline="fido")
    assert found.start == Month.parse("2026-04")  # the open month
    numbers = [m.fladub_cents for m in found.months]
    # April: 10 * 11/12 + 10 = 19.17; May: 8.33 + 9.17 = 17.50; ... March 2027: only April's
    # result is left, at 1/12: 0.83 (March's left the window then).
    assert numbers[:2] == [1917, 1750]
    assert numbers[-1] == 83
    assert [str(m.month) for m in found.months][-1] == "2027-03"
    leaving = {str(m.month): [r.match_id for r in m.leaving] for m in found.months}
    assert leaving["2027-03"] == ["m1"]
    assert sum(len(v) for v in leaving.values()) == 1
    assert sum(m.change_cents for m in found.months) == numbers[-1] - numbers[0]


def test_the_closes_publish_what_the_calendar_said(ada) -> None:
    found = player_forecast(ada.pk, discipline="fido")
    for m in found.months[:4]:
        published = close(m.month)
        entry = RankingEntry.objects.get(ranking_list=published, player=ada)
        assert entry.fladub_cents == m.fladub_cents, m.month


def test_api_and_page(client: Client, ada) -> None:
    body = client.get(f"/api/rankings/fido/players/{ada.player_id}/forecast").json()
    assert body["provisional"] is True and body["start"] == "2026-04"
    assert [m["fladub"] for m in body["months"][:2]] == ["19.17", "17.50"]
    assert Decimal(body["months"][1]["change"]) == Decimal("-1.67")
    assert body["months"][-1]["leaving"][0]["match_id"] == "m1"
    assert client.get("/api/rankings/fido/players/P-NOBODY/forecast").status_code == 404
    page = client.get(f"/players/{ada.player_id}/?discipline=fido").content.decode()
    assert "Drop-out calendar" in page and 'id="chart-forecast-fido' in page
    assert "CLUB-F/m1 (2026-03-10)" in page
    german = client.get(
        f"/players/{ada.player_id}/?discipline=fido", HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()
    assert "Drop-out calendar" not in german


def test_no_results_no_calendar(client: Client, ada) -> None:
    nobody = PlayerFactory()
    assert not any(m.fladub_cents for m in player_forecast(nobody.pk, discipline="fido").months)
    page = client.get(f"/players/{nobody.player_id}/?discipline=fido").content.decode()
    assert "Drop-out calendar" not in page


def test_a_match_id_that_names_its_club_is_shown_with_the_club_once(client: Client) -> None:
    """Issue 15, item 2: never a repeated id ("CLUB-F/CLUB-F/2026-03-10/t1")."""
    club = ClubFactory(club_id="CLUB-F")
    ada, bob = (PlayerFactory(player_id=f"P-F{n}", club=club) for n in "AB")
    submit_table(club, [([ada], 5), ([bob], 1)], id="CLUB-F/2026-03-10/t1", date="2026-03-10")
    close("2026-03")
    page = client.get(f"/players/{ada.player_id}/?discipline=fido").content.decode()
    assert "CLUB-F/2026-03-10/t1 (2026-03-10)" in page
    assert "CLUB-F/CLUB-F/" not in page


def test_the_numbers_without_objects_and_the_leaving_named_on_demand(client: Client) -> None:
    """Busy players: the calendar's numbers from the core's arrays, with no statement once
    the match points are read; the results leaving named (one statement for the facts)
    only when asked for; the page writes the same results leaving as the API names."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from matches.models import SideMember
    from matches.months import Month as M
    from rankings.selectors.counting_results import counted_results, player_points
    from tests.rankings.factories import random_results

    months = [M.parse("2025-09") + n for n in range(8)]  # .. 2026-04
    random_results(seed=53, matches=220, players=15, months=months)
    for month in months[:-1]:
        close(month)
    start = months[-1]
    busiest = SideMember.objects.values_list("player__player_id", "player_id").distinct()[:6]
    summarized = listed = 0
    for player_id, pk in busiest:
        points = player_points(pk, discipline="fido", months=[start])
        with CaptureQueriesContext(connection) as read:
            found = player_forecast(pk, discipline="fido", points=points, start=start)
        assert read.captured_queries == []
        counted = counted_results(pk, discipline="fido", month=start)
        assert found.months[0].fladub_cents == counted.fladub_cents
        with CaptureQueriesContext(connection) as named:
            leaving = [[r.match_pk for r in m.leaving] for m in found.months]
        assert len(named.captured_queries) <= 1
        by_month: dict[M, list[int]] = {}
        for result in counted.results:  # best first, as the calendar lists them
            by_month.setdefault(result.month_played, []).append(result.match_pk)
        assert leaving == [by_month.get(m.month + (-12), []) for m in found.months]
        body = client.get(f"/api/rankings/fido/players/{player_id}/forecast").json()
        page = client.get(f"/players/{player_id}/?discipline=fido").content.decode()
        cells = _leaving_cells(page)
        assert len(cells) == len(body["months"]) == 12
        for month, cell in zip(body["months"], cells, strict=True):
            leaving = month["leaving"]
            if len(leaving) > LEAVING_NAMED_UP_TO:  # how many, and when they were played
                played = M.parse(month["month"]) + (-12)
                assert cell == f"{len(leaving)} results played in {played}"
                summarized += 1
                continue
            named = [f"{r['club']}/{r['match_id']} ({r['date_played']})" for r in leaving]
            assert cell == (", ".join(named) or "\N{EM DASH}")
            listed += len(named)
    assert summarized and listed  # both kinds of cell were checked
