"""Packs of a busy player's match points (rankings.player_packs): a player's points read
with their pack are, bit for bit, the points read by scoring every result, for every span
a page asks for, through voids, corrections, merges, late results, edits by hand and an
erratum of a strength list; the writer packs the busy players once and replaces older
packs; the change log keeps what a pack does not see; the close's task sends the writer."""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.audit import recording
from matches.models import Club, Match, Player, SideMember
from matches.months import Month
from matches.services import match_void, player_merge
from rankings import player_packs, result_packs
from rankings.dispatch import PLAYER_PACKS_WRITE, player_packs_send
from rankings.models import PlayerPointsPack, RankingEntry, RankingList
from rankings.selectors.counting_results import counting_results, player_points
from rankings.selectors.strength_lists import published_ids
from rankings.services.errata import erratum_request
from rankings.services.packs import member_changes_prune
from rankings.services.player_packs import (
    _writer_lock,
    player_changes_prune,
    player_packs_write,
)
from tests.matches.factories import AdminFactory
from tests.rankings.factories import after_deadline, close, random_results, submit_table
from tests.rankings.test_commands import run
from tests.rankings.test_errata import _run_task, sent  # noqa: F401 (a fixture)
from tests.rankings.test_result_packs import correct, seat_beside, two_strangers

MONTHS = [Month(2025, 3) + i for i in range(6)]  # 2025-03 .. 2025-08
SEED = 41


# --- the format (no database) --------------------------------------------------------------------


def some_columns(n: int, seed: int = 1) -> player_packs.Columns:
    rng = np.random.default_rng(seed)
    return player_packs.Columns(
        match_id=rng.choice(10**12, n, replace=False).astype(np.int64),
        month_played=rng.integers(24_289, 24_301, n).astype(np.int32),
        counting_month=rng.integers(24_289, 24_301, n).astype(np.int32),
        void_month=np.where(rng.random(n) < 0.2, 24_300, player_packs.NOT_VOIDED).astype(np.int32),
        points=rng.random(n) * 320,
    )


def test_a_pack_reads_back_bit_for_bit_in_match_order() -> None:
    columns = some_columns(300)
    data = player_packs.encode(columns)
    assert len(data) == 300 * player_packs.ROW_BYTES
    back = player_packs.decode(data, 300)
    order = np.argsort(columns.match_id)
    for name in ("match_id", "month_played", "counting_month", "void_month", "points"):
        assert np.array_equal(getattr(back, name), getattr(columns, name)[order]), name
    assert back.points.tobytes() == columns.points[order].tobytes()
    with pytest.raises(ValueError, match="holds 27 bytes"):
        player_packs.decode(data[:27], 1)


# --- packs against the scoring of every result (PostgreSQL) ---------------------------------------


def busy_players(count: int = 8) -> list[int]:
    counts: dict[int, int] = {}
    for pk in SideMember.objects.filter(player__merged_into=None).values_list(
        "player_id", flat=True
    ):
        counts[pk] = counts.get(pk, 0) + 1
    return sorted(counts, key=lambda pk: (-counts[pk], pk))[:count]


def spans(latest: Month) -> list[list[Month]]:
    """What the pages ask for once L(``latest``) is published: the player page (L(R - 1)
    .. the open month), the API's list, the open month's projection, the previous list."""
    return [[latest.prev(), latest, latest.next()], [latest], [latest.next()], [latest.prev()]]


def assert_packs_read_what_scoring_reads(players: list[int], latest: Month) -> int:
    """Every player's points of every span, with and without their pack, bit for bit, and
    the tables and facts of their results (the pack's tables read with the points or after
    them); return how many players had a pack."""
    packed = 0
    for pk in players:
        packed += PlayerPointsPack.objects.filter(player_id=pk).exists()
        for k, span in enumerate(spans(latest)):
            fast = player_points(pk, discipline="fido", months=span, tables=k % 2 == 0)
            slow = player_points(pk, discipline="fido", months=span, packs=False)
            a, b = fast.columns(), slow.columns()
            for name in ("match_id", "month_played", "counting_month", "void_month"):
                assert np.array_equal(getattr(a, name), getattr(b, name)), (pk, span, name)
            assert a.points.tobytes() == b.points.tobytes(), (pk, span)
            for month in span:
                x, y = fast.breakdown(month), slow.breakdown(month)
                assert np.array_equal(x.match_id, y.match_id), (pk, month)
                assert x.fladub_cents == y.fladub_cents, (pk, month)
                shown = counting_results(pk, discipline="fido", month=month, points=fast)
                read = counting_results(pk, discipline="fido", month=month, points=slow)
                assert shown.results == read.results, (pk, month)
            assert fast.facts() == slow.facts(), (pk, span)
    return packed


def seated_beside(player_pk: int, month: Month) -> int:
    """Another player at one of the player's tables counting in L(``month``)."""
    match_ids = SideMember.objects.filter(
        player_id=player_pk, counting_month=month.first_day, void_effective_month=None
    ).values_list("match_id", flat=True)
    return (
        SideMember.objects.filter(match_id__in=match_ids)
        .exclude(player_id=player_pk)
        .order_by("player_id")
        .values_list("player_id", flat=True)
        .first()
    )


@contextlib.contextmanager
def writer_at_work(discipline: str) -> Iterator[None]:
    """A pack writer of ``discipline`` at work in another session, while in the block."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with _writer_lock(discipline):
                held.set()
                release.wait(30)
        finally:
            connection.close()

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    assert held.wait(10)
    try:
        yield
    finally:
        release.set()
        holder.join(10)


def stale_packs(month: Month) -> list[int]:
    """The players whose pack of ``month`` read a strength list replaced since."""
    stale = []
    with connection.cursor() as cursor:
        for pk in PlayerPointsPack.objects.filter(month=month.first_day).values_list(
            "player_id", flat=True
        ):
            stored = player_packs.read(cursor, pk, "fido", month)
            assert stored is not None
            lists = published_ids("fido", {Month.from_index(m - 1) for m in stored.strengths})
            if result_packs.stale_months(stored.strengths, lists):
                stale.append(pk)
    return sorted(stale)


@pytest.fixture
def packed_history(set_now: Any) -> tuple[list[int], Month]:
    """Results of 2025-03 .. 2025-08, four lists closed (to 2025-06), the busy players'
    packs of 2025-06 written: (the busy players, 2025-06)."""
    random_results(seed=SEED, matches=300, players=70, months=MONTHS)
    for month in MONTHS[:4]:
        set_now(after_deadline(month))
        close(month)
    players = busy_players()
    assert (
        player_packs_write("fido", at_least=1)
        == RankingEntry.objects.filter(ranking_list__month=MONTHS[3].first_day).count()
    )
    return players, MONTHS[3]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fast_passwords")
def test_points_from_packs_are_the_points_scored_through_every_change(
    packed_history: tuple[list[int], Month],
    set_now: Any,
    sent: Any,  # noqa: F811
) -> None:
    players, june = packed_history
    assert assert_packs_read_what_scoring_reads(players, june) == len(players)
    admin = AdminFactory()
    now = after_deadline(june) + dt.timedelta(days=1)
    set_now(now)
    mine = Match.objects.filter(voided_at=None, discipline="fido", members__player_id=players[0])
    # A void and a correction of packed results; a merge; an edit by hand; a late result.
    voided = mine.filter(counting_month=MONTHS[2].first_day).first()
    match_void(match=voided, by=admin, reason="wrong table", now=now)
    fixed = mine.filter(counting_month=MONTHS[1].first_day).exclude(pk=voided.pk).first()
    correct(fixed, by=admin, now=now)
    source, target = two_strangers()
    player_merge(source=source, target=target, by=admin, reason="one person", now=now)
    edited = mine.filter(counting_month=MONTHS[3].first_day).first()
    with recording():
        SideMember.objects.filter(match_id=edited.pk).update(score=99)
    others = list(Player.objects.filter(merged_into=None).exclude(pk=players[0])[:2])
    submit_table(
        voided.club,
        [([Player.objects.get(pk=players[0])], 9), ([others[0]], 4), ([others[1]], 4)],
        id="late-1",
        date=f"{MONTHS[3]}-20",
        now=now,
    )
    # A player seated beside the busiest gets a new name and id, a club a new name.
    beside = seated_beside(players[0], june)
    Player.objects.filter(pk=beside).update(name="Renamed Since", player_id="P-RENAMED")
    Club.objects.filter(pk=edited.club_id).update(name="Club Renamed Since")
    assert assert_packs_read_what_scoring_reads([*players, target.pk, beside], june) > 0

    # An erratum of 2025-05: L(2025-05) v2 is the strength list of the matches played in
    # 2025-06, whose points in the packs read v1.
    may = Match.objects.filter(voided_at=None, counting_month=MONTHS[2].first_day).first()
    correct(may, by=admin, now=now)
    erratum = erratum_request(discipline="fido", month=MONTHS[2], reason="sheet", by=admin, now=now)
    _run_task(erratum)
    assert RankingList.objects.get(month=MONTHS[2].first_day, status="published").edition == 2
    assert PLAYER_PACKS_WRITE in [name for name, _kw in sent]  # the task sends the writer
    assert assert_packs_read_what_scoring_reads(players, june) > 0
    # The writer packs again the packs that read L(2025-05) v1, and only those, once.
    stale = stale_packs(june)
    assert stale and len(stale) < PlayerPointsPack.objects.count()
    before = dict(PlayerPointsPack.objects.values_list("player_id", "created_at"))
    assert player_packs_write("fido", at_least=1) == len(stale)
    assert stale_packs(june) == []
    after = dict(PlayerPointsPack.objects.values_list("player_id", "created_at"))
    assert {pk for pk in after if after[pk] != before[pk]} == set(stale)
    assert player_packs_write("fido", at_least=1) == 0
    assert assert_packs_read_what_scoring_reads(players, june) > 0

    # The next list closes: the packs of 2025-06 still serve its pages until replaced.
    set_now(after_deadline(MONTHS[4]))
    close(MONTHS[4])
    assert assert_packs_read_what_scoring_reads(players, MONTHS[4]) > 0
    assert player_packs_write("fido", at_least=1) > 0
    assert set(PlayerPointsPack.objects.values_list("month", flat=True)) == {MONTHS[4].first_day}
    assert assert_packs_read_what_scoring_reads(players, MONTHS[4]) > 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_pack_spares_the_reading_of_its_results(
    packed_history: tuple[list[int], Month], copies: list[str]
) -> None:
    players, june = packed_history
    # No later counting month, no change since: the pack alone, no row read.
    player_points(players[0], discipline="fido", months=[june.prev(), june])
    assert copies == []
    # The open month's results are read as rows, and only those.
    player_points(players[0], discipline="fido", months=[june.prev(), june, june.next()])
    assert len(copies) == 1 and "s.counting_month >" in copies[0]
    # A span beginning before the pack's results (L(R - 2)): every result read.
    copies.clear()
    player_points(players[0], discipline="fido", months=[june + (-2)])
    assert len(copies) == 1 and "s.counting_month >" not in copies[0]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_open_month_s_results_are_a_range_of_the_player_s_index(
    packed_history: tuple[list[int], Month], copies: list[str]
) -> None:
    """The usual case (no match changed, no month stale): the results after the pack's
    month are found by the range of ``member_player`` (player, discipline, counting_month),
    not by fetching every result of the player and checking its month."""
    from rankings import sql

    players, june = packed_history
    player_points(players[0], discipline="fido", months=[june, june.next()])
    assert len(copies) == 1 and "s.counting_month >" in copies[0] and "ANY(" not in copies[0]
    made = sql.player_match_sides_columns(
        players[0], "fido", june, june.next(), sql.Unpacked(packed=june.index, changed=[], stale=[])
    )
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")  # the test's table is small
        try:
            cursor.execute("EXPLAIN " + made.sql, made.params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("RESET enable_seqscan")
    conditions = [line for line in plan.splitlines() if "Index Cond" in line]
    assert any("player_id =" in c and "counting_month >" in c for c in conditions), plan
    # A changed match or a stale month adds its arm, and only then.
    changed = sql.player_match_sides_columns(
        players[0], "fido", june, june.next(), sql.Unpacked(june.index, [7], [june.index])
    )
    assert "ANY(CAST(%(changed)s" in changed.sql and "ANY(CAST(%(stale)s" in changed.sql


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_truncate_makes_every_pack_unusable(packed_history: tuple[list[int], Month]) -> None:
    players, june = packed_history
    with connection.cursor() as cursor:
        assert player_packs.read(cursor, players[0], "fido", june) is not None
        cursor.execute("TRUNCATE matches_sidemember CASCADE")
        assert player_packs.read(cursor, players[0], "fido", june) is None
    assert len(player_points(players[0], discipline="fido", months=[june]).columns()) == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_writer_packs_the_busy_players_once(set_now: Any, settings: Any) -> None:
    random_results(seed=SEED + 1, matches=120, players=20, months=MONTHS[:2])
    assert player_packs_write("fido") == 0  # no list yet
    for month in MONTHS[:2]:
        set_now(after_deadline(month))
        close(month)
    entries = RankingEntry.objects.filter(ranking_list__month=MONTHS[1].first_day)
    threshold = sorted(entries.values_list("results_counted", flat=True))[-5]
    busy = set(entries.filter(results_counted__gte=threshold).values_list("player_id", flat=True))
    assert player_packs_write("fido", at_least=threshold) == len(busy) >= 5
    assert set(PlayerPointsPack.objects.values_list("player_id", flat=True)) == busy
    assert player_packs_write("fido", at_least=threshold) == 0  # done already
    pack = PlayerPointsPack.objects.first()
    assert pack.rows == len(player_packs.decode(bytes(pack.data), pack.rows))
    assert pack.rows >= threshold
    # Another writer at work: this one returns at once.
    with writer_at_work("fido"):
        assert player_packs_write("fido", at_least=1) == 0
    # The command packs the rest, down to the setting's threshold.
    settings.FIDO_PLAYER_PACK_MIN_RESULTS = 1
    rest = entries.count() - len(busy)
    assert f"packed the points of {rest} player(s) of fido" in run("pack_lists")[0]
    assert PlayerPointsPack.objects.count() == entries.count()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_prune_keeps_the_changes_a_player_pack_does_not_see(
    packed_history: tuple[list[int], Month],
) -> None:
    players, june = packed_history
    match_id = (
        SideMember.objects.filter(player_id=players[0], counting_month=june.first_day)
        .values_list("match_id", flat=True)
        .first()
    )
    with recording():
        SideMember.objects.filter(match_id=match_id).update(score=55)
    member_changes_prune()
    with connection.cursor() as cursor:
        stored = player_packs.read(cursor, players[0], "fido", june)
    assert stored is not None and match_id in stored.changed.tolist()
    assert_packs_read_what_scoring_reads(players[:1], june)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_insert_into_a_month_a_player_pack_covers_is_logged(
    packed_history: tuple[list[int], Month],
) -> None:
    players, june = packed_history
    with connection.cursor() as cursor:  # no result pack to log it: the player packs do
        cursor.execute("TRUNCATE rankings_resultpack CASCADE")
    me = Player.objects.get(pk=players[0])
    row = (
        SideMember.objects.exclude(match__members__player=me)
        .filter(counting_month=june.prev().first_day)
        .first()
    )
    seat_beside(row, me)
    with connection.cursor() as cursor:
        stored = player_packs.read(cursor, me.pk, "fido", june)
    assert stored is not None and row.match_id in stored.changed.tolist()
    assert_packs_read_what_scoring_reads([me.pk], june)


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_worker_packs_the_points_the_close_s_task_asks_for(
    live_worker: Any, set_now: Any, settings: Any
) -> None:
    random_results(seed=SEED + 2, matches=80, players=20, months=MONTHS[:2])
    for month in MONTHS[:2]:
        set_now(after_deadline(month))
        close(month)
    settings.FIDO_PLAYER_PACK_MIN_RESULTS = 1
    assert player_packs_send(discipline="fido")
    listed = RankingEntry.objects.filter(ranking_list__month=MONTHS[1].first_day).count()
    give_up = time.monotonic() + 60
    while PlayerPointsPack.objects.count() < listed:
        assert time.monotonic() < give_up, "the worker did not pack the players' points"
        time.sleep(0.2)
    assert set(PlayerPointsPack.objects.values_list("month", flat=True)) == {MONTHS[1].first_day}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_span_of_fewer_months_than_the_pack_reads_no_row(set_now: Any, copies: list[str]) -> None:
    """The API's span, L(R) alone, holds 12 of the pack's 13 months played: the month it
    leaves out (R - 12, whose strength list L(R - 13) the pack names) is no reason to read
    anything."""
    june = Month(2025, 6)
    months = [june + k for k in range(-13, 1)]
    random_results(seed=SEED + 3, matches=150, players=20, months=months)
    for month in months:  # every list from L(R - 13) on
        set_now(after_deadline(month))
        close(month)
    assert player_packs_write("fido", at_least=1) > 0
    [pk] = busy_players(1)
    with connection.cursor() as cursor:
        stored = player_packs.read(cursor, pk, "fido", june)
    assert stored is not None and stored.first_played in stored.columns.month_played.tolist()
    copies.clear()
    fast = player_points(pk, discipline="fido", months=[june])
    assert copies == []
    slow = player_points(pk, discipline="fido", months=[june], packs=False)
    assert fast.columns().points.tobytes() == slow.columns().points.tobytes()
    assert np.array_equal(fast.columns().match_id, slow.columns().match_id)


# --- the tables of a page of results -------------------------------------------------------------


def _tables_read(queries: list[dict[str, Any]]) -> list[str]:
    """The statements that read matches, their members or players (a page's tables read
    as rows)."""
    return [
        q["sql"]
        for q in queries
        if any(t in q["sql"] for t in ("matches_sidemember", "matches_match", "matches_player"))
    ]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_page_of_results_reads_its_tables_from_the_pack(
    packed_history: tuple[list[int], Month], copies: list[str]
) -> None:
    players, june = packed_history
    me = players[0]
    with CaptureQueriesContext(connection) as seen:
        points = player_points(me, discipline="fido", months=[june.prev(), june], tables=True)
        page = counting_results(me, discipline="fido", month=june, points=points)
        points.facts()
    assert page.results and copies == []
    assert _tables_read(seen.captured_queries) == []  # the pack, its lists, the clubs only
    assert len(seen.captured_queries) <= 5

    # A player renamed since the pack: the matches seating them are read as rows, and only
    # those; the page shows the new name.
    beside = seated_beside(me, june)
    Player.objects.filter(pk=beside).update(name="Renamed Since")
    theirs = set(SideMember.objects.filter(player_id=beside).values_list("match_id", flat=True))
    with CaptureQueriesContext(connection) as seen:
        points = player_points(me, discipline="fido", months=[june.prev(), june], tables=True)
        again = counting_results(me, discipline="fido", month=june, points=points)
    [members] = _tables_read(seen.captured_queries)
    shown = {r.match_pk for r in again.results}
    assert f"{{{','.join(str(m) for m in sorted(theirs & shown))}}}" in members
    named = {p.name for r in again.results for s in r.opponents for p in s.players}
    named |= {p.name for r in again.results for p in r.team}
    assert "Renamed Since" in named
    slow = player_points(me, discipline="fido", months=[june], packs=False)
    assert again.results == counting_results(me, discipline="fido", month=june, points=slow).results
    # An update that changes no name or id logs nothing.
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM rankings_playerchange")
        logged = cursor.fetchone()[0]
        Player.objects.filter(pk=beside).update(country="AT")
        cursor.execute("SELECT count(*) FROM rankings_playerchange")
        assert cursor.fetchone()[0] == logged


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_pack_without_tables_reads_them_as_rows_and_is_packed_again(
    packed_history: tuple[list[int], Month], caplog: pytest.LogCaptureFixture
) -> None:
    """A pack made before tables were packed (migration 0019), or after a TRUNCATE of the
    players: its pages read the tables as rows; the writer packs it again, and only it."""
    players, june = packed_history
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE rankings_playerpointspack SET tables = NULL WHERE player_id = %s",
            [players[1]],
        )
    with CaptureQueriesContext(connection) as seen:
        points = player_points(players[1], discipline="fido", months=[june], tables=True)
        counting_results(players[1], discipline="fido", month=june, points=points)
    assert len(_tables_read(seen.captured_queries)) == 1
    assert_packs_read_what_scoring_reads(players[1:2], june)
    assert player_packs_write("fido", at_least=1) == 1
    assert PlayerPointsPack.objects.filter(tables=None).count() == 0
    assert_packs_read_what_scoring_reads(players[1:2], june)
    # Tables this code cannot read (another format) are read as rows, and logged.
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE rankings_playerpointspack SET tables = %s WHERE player_id = %s",
            [b"\x02\x00\x00\x00 of another format", players[2]],
        )
    with (
        caplog.at_level(logging.WARNING, logger="rankings.player_packs"),
        CaptureQueriesContext(connection) as seen,
    ):
        points = player_points(players[2], discipline="fido", months=[june], tables=True)
        counting_results(players[2], discipline="fido", month=june, points=points)
    assert len(_tables_read(seen.captured_queries)) == 1
    assert "tables are unreadable" in caplog.text
    assert_packs_read_what_scoring_reads(players[2:3], june)
    # A TRUNCATE of the players (logged as NULL) makes every pack's tables unusable.
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO rankings_playerchange (player_id) VALUES (NULL)")
        assert player_packs.read_tables(cursor, players[0], "fido", june.index) is None
        assert player_packs.read(cursor, players[0], "fido", june, tables=True).tables is None
    assert_packs_read_what_scoring_reads(players[:1], june)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_prune_keeps_the_renames_a_pack_does_not_see(
    packed_history: tuple[list[int], Month],
) -> None:
    players, june = packed_history
    beside = seated_beside(players[0], june)
    assert player_changes_prune() is not None  # earlier tests' flushes (TRUNCATE), logged
    Player.objects.filter(pk=beside).update(player_id="P-RENAMED")
    assert player_changes_prune() == 0  # the packs were made before it

    def renamed() -> frozenset[int]:
        with connection.cursor() as cursor:
            stored = player_packs.read_tables(cursor, players[0], "fido", june.index)
        assert stored is not None
        return stored.renamed

    assert renamed() == {beside}
    # A writer at work (its snapshot may be older than a rename): nothing pruned.
    with writer_at_work("allfives"):
        assert player_changes_prune() is None
    # Packed again, every pack sees the rename: the log forgets it.
    PlayerPointsPack.objects.update(tables=None)
    assert player_packs_write("fido", at_least=1) == PlayerPointsPack.objects.count()
    assert renamed() == frozenset()
    assert player_changes_prune() == 1
    assert_packs_read_what_scoring_reads([*players[:2], beside], june)
