"""The window (rankings.selectors.window, through rankings.loader) and rankings.writer: the
window rules, and the PostgreSQL COPY paths give exactly what the portable path gives."""

from __future__ import annotations

import threading
from concurrent.futures import Future

import numpy as np
import pytest
from django.db import connection

from matches.audit import recording
from matches.models import SideMember
from matches.months import Month
from rankings import fladub, loader, writer
from rankings.models import RankingEntry, RankingList
from rankings.selectors.counting_results import counting_results
from rankings.selectors.window import Window, window
from tests.matches.factories import ClubFactory, PlayerFactory
from tests.rankings.factories import after_deadline, close, random_results, submit_table

MONTHS = [Month(2025, 3) + i for i in range(15)]  # 2025-03 .. 2026-05


def assert_same_sides(a: fladub.Sides, b: fladub.Sides) -> None:
    a, b = a.canonical(), b.canonical()
    names = ("match_id", "month_played", "counting_month", "base", "side_no", "score", "player")
    for name in names:
        left, right = getattr(a, name), getattr(b, name)
        assert left.dtype == right.dtype, name
        assert np.array_equal(left, right), name


def assert_same_window(a: Window, b: Window) -> None:
    assert_same_sides(a.sides, b.sides)
    assert sorted(a.published) == sorted(b.published)
    for month, listed in a.published.items():
        other = b.published[month]
        mine, theirs = np.argsort(listed.player), np.argsort(other.player)
        assert np.array_equal(listed.player[mine], other.player[theirs])
        assert np.array_equal(listed.fladub_cents[mine], other.fladub_cents[theirs])
    assert a.player_order is not None and b.player_order is not None
    assert np.array_equal(a.player_order, b.player_order)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_copy_loader_equals_the_portable_path_on_postgres() -> None:
    random_results(seed=7, matches=400, players=120, months=MONTHS)
    for month in MONTHS[:13]:
        close(month)
    target = MONTHS[13]  # 2026-04: a full window of 12 months and 12 published lists before it
    portable = window(discipline="fido", month=target, portable=True)
    assert len(portable.sides) > 1000
    assert len(portable.published) == 12
    for streams in (1, 2, 3):
        fast = window(discipline="fido", month=target, streams=streams, portable=False)
        assert_same_window(fast, portable)
    # And the lists computed from either are the same list.
    one = fladub.compute_list(
        portable.sides, target.index, portable.published, player_order=portable.player_order
    )
    fast = window(discipline="fido", month=target, streams=2, portable=False)
    two = fladub.compute_list(
        fast.sides, target.index, fast.published, player_order=fast.player_order
    )
    assert one.equals(two)
    assert len(one) > 50


@pytest.mark.django_db
def test_the_window_keeps_exactly_the_results_that_count() -> None:
    club = ClubFactory()
    a, b = PlayerFactory(club=club), PlayerFactory(club=club)
    submit_table(club, [([a], 2), ([b], 1)], id="old", date="2025-04-30")  # age 12 in 2026-04
    submit_table(club, [([a], 2), ([b], 1)], id="edge", date="2025-05-01")  # age 11
    submit_table(club, [([a], 2), ([b], 1)], id="now", date="2026-04-30")  # age 0
    submit_table(club, [([a], 2), ([b], 1)], id="voided", date="2026-01-10")
    submit_table(club, [([a], 2), ([b], 1)], id="voided-later", date="2026-02-10")
    SideMember.objects.filter(match__external_id="voided").update(void_effective_month="2026-04-01")
    SideMember.objects.filter(match__external_id="voided-later").update(
        void_effective_month="2026-05-01"
    )
    # A result counting only from May on (late) is not in April's window.
    SideMember.objects.filter(match__external_id="now").update(counting_month="2026-05-01")
    inputs = window(discipline="fido", month=Month(2026, 4), portable=True)
    kept = set(inputs.sides.match_id.tolist())
    names = dict(SideMember.objects.values_list("match_id", "match__external_id"))
    assert {names[m] for m in kept} == {"edge", "voided-later"}
    assert (
        inputs.sides.counting_month.tolist()
        == [Month(2025, 5).index] * 2 + [Month(2026, 2).index] * 2
    )
    # A player's counting results read the same window (one definition of it).
    for player in (a, b):
        found = counting_results(player.pk, discipline="fido", month=Month(2026, 4))
        assert sorted(r.match_id for r in found.results) == ["edge", "voided-later"]


def test_the_binary_parser_refuses_a_null_or_a_foreign_stream() -> None:
    header = loader.PGCOPY_SIGNATURE + bytes(8)
    good = header + b"\x00\x01" + b"\x00\x00\x00\x08" + (5).to_bytes(8, "big") + b"\xff\xff"
    parsed = loader.parse_binary_copy(good, [("id", ">i8")])
    assert parsed["id"].tolist() == [5]
    null = header + b"\x00\x01" + b"\xff\xff\xff\xff" + bytes(8) + b"\xff\xff"
    with pytest.raises(ValueError, match="length of id"):
        loader.parse_binary_copy(null, [("id", ">i8")])
    with pytest.raises(ValueError, match="not a binary COPY"):
        loader.parse_binary_copy(b"rank,player\n" + bytes(20), [("id", ">i8")])
    # The records as a block of a stream arrives (a view, not yet checked): the stream's
    # check, block by block, refuses them.
    unchecked = np.frombuffer(null[len(header) : -2], dtype=loader.record_dtype([("id", ">i8")]))
    with pytest.raises(ValueError, match="length of id"):
        loader.check_binary_records(unchecked[:1], [("id", ">i8")])


def test_pg_dates_become_month_indices() -> None:
    # 2000-01-01 is day 0; 2026-03-01 is day 9556; 1999-12-01 is day -31.
    days = np.array([0, 9556, -31], dtype=">i4")
    assert loader.pg_dates_to_month_index(days).tolist() == [
        Month(2000, 1).index,
        Month(2026, 3).index,
        Month(1999, 12).index,
    ]


def test_pg_dates_by_table_equal_the_calendar_row_by_row() -> None:
    # The lookup table of a window's span, and the row-by-row path of a span too long for
    # a table, give what the calendar gives for every day (leap years, month ends).
    rng = np.random.default_rng(11)
    window_days = rng.integers(9000, 9600, 5000).astype(">i4")
    wide = np.concatenate([window_days, np.array([-80000, 80000], dtype=">i4")])
    for days in (window_days, wide):
        expected = loader._month_index_of_days(days.astype(np.int64))
        assert np.array_equal(loader.pg_dates_to_month_index(days), expected)
        out = np.full(len(days), -1, dtype=np.int32)
        assert loader.pg_dates_to_month_index(days, out) is out
        assert np.array_equal(out, expected)
    assert len(loader.pg_dates_to_month_index(np.zeros(0, dtype=">i4"))) == 0


def test_the_order_check_works_across_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    # Checked in blocks: a disorder right at a block's edge is found, and the answer is
    # remembered per instance (a new instance from take() checks again).
    monkeypatch.setattr(fladub, "BLOCK_ROWS", 4)
    n = 17
    sides = fladub.Sides(
        match_id=np.arange(n) // 2,
        month_played=np.zeros(n),
        counting_month=np.zeros(n),
        base=np.full(n, 10.0),
        side_no=np.arange(n) % 2,
        score=np.zeros(n),
        player=np.arange(n),
    )
    assert sides.is_canonical()
    for edge in (3, 4, 7, 8, 15):
        swapped = np.arange(n)
        swapped[[edge, edge + 1]] = swapped[[edge + 1, edge]]
        assert not sides.take(swapped).is_canonical(), edge
    twice = sides.take(np.r_[np.arange(9), 8, np.arange(9, n)])  # a member twice
    assert not twice.is_canonical()


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_copy_writer_stores_what_bulk_create_would() -> None:
    players = [PlayerFactory() for _ in range(5)]
    pks = np.array([p.pk for p in players], dtype=np.int64)
    ranking = fladub.RankingList(
        month=Month(2026, 3).index,
        player=pks,
        fladub_cents=np.array([1000, 917, 917, 5, 1], dtype=np.int64),
        rank=np.array([1, 2, 2, 4, 5], dtype=np.int64),
        results_counted=np.array([3, 1, 25, 2, 1], dtype=np.int64),
        previous_rank=np.array([0, 1, 0, 7, 0], dtype=np.int64),
    )
    with recording():
        stored = RankingList.objects.create(
            discipline="fido", month="2026-03-01", created_at=after_deadline("2026-03")
        )
    assert writer.write_entries(ranking_list=stored, ranking=ranking) == 5
    got = list(
        RankingEntry.objects.filter(ranking_list=stored)
        .order_by("rank", "player_id")
        .values_list(
            "player_id", "rank", "fladub_cents", "results_counted", "previous_rank", "movement"
        )
    )
    assert got == [
        (pks[0], 1, 1000, 3, None, None),
        (pks[1], 2, 917, 1, 1, -1),
        (pks[2], 2, 917, 25, None, None),
        (pks[3], 4, 5, 2, 7, 3),
        (pks[4], 5, 1, 1, None, None),
    ]


def test_canonical_orders_rows_like_fladub_does() -> None:
    rng = np.random.default_rng(3)
    n_matches = 500
    k = rng.integers(2, 6, n_matches)
    team = np.where(rng.random(n_matches) < 0.3, 2, 1)
    members = k * team
    match = np.repeat(np.arange(n_matches) * 3 + 5, members)
    position = np.arange(len(match)) - np.repeat(np.cumsum(members) - members, members)
    side = position % np.repeat(k, members)
    player = rng.permutation(len(match) * 2)[: len(match)]
    sides = fladub.Sides(
        match_id=match,
        month_played=np.zeros(len(match)),
        counting_month=np.zeros(len(match)),
        base=np.full(len(match), 10.0),
        side_no=side,
        score=rng.integers(0, 5, len(match)),
        player=player,
    )
    shuffled = sides.take(rng.permutation(len(match)))
    assert not shuffled.is_canonical()
    ordered = loader.canonical(shuffled)
    assert ordered.is_canonical()
    expected = shuffled.canonical()
    for name in ("match_id", "side_no", "player", "score"):
        assert np.array_equal(getattr(ordered, name), getattr(expected, name))
    assert loader.canonical(ordered) is ordered


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_player_order_read_later_sees_the_window_snapshot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The close reads the player order in the background while it computes: in the
    # window's snapshot, so that a player created after the window returned (here: while
    # the read is held back) is not in it, and the order equals the one read at once.
    random_results(seed=5, matches=60, players=40, months=MONTHS[:3])
    target = MONTHS[2]
    at_once = window(discipline="fido", month=target, streams=2, portable=False)
    release = threading.Event()
    read_copy = loader._read_copy

    def held_back(conn: object, statement: str) -> bytearray:
        if "ORDER BY player_id" in statement:
            assert release.wait(30)
        return read_copy(conn, statement)

    monkeypatch.setattr(loader, "_read_copy", held_back)
    later = window(discipline="fido", month=target, streams=2, portable=False, order_later=True)
    assert isinstance(later.order, Future) and not later.order.done()
    newcomer = PlayerFactory(player_id="A-000001")  # sorts before every generated id
    release.set()
    assert later.player_order is not None and at_once.player_order is not None
    assert np.array_equal(later.player_order, at_once.player_order)
    assert newcomer.pk >= len(later.player_order)
    assert_same_sides(later.sides, at_once.sides)


def test_the_months_present_are_those_np_unique_finds() -> None:
    from rankings.selectors.window import _months_present

    rng = np.random.default_rng(2)
    months = rng.integers(24300, 24312, 10_000).astype(np.int32)
    assert np.array_equal(_months_present(months), np.unique(months))
    assert _months_present(np.array([9, 3, 9], dtype=np.int32)).tolist() == [3, 9]
    assert len(_months_present(np.zeros(0, dtype=np.int32))) == 0


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_drained_copy_comes_in_blocks_that_join_to_the_whole_read() -> None:
    statement = "COPY (SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g) TO STDOUT"
    connection.ensure_connection()
    whole = loader._read_copy(connection.connection, statement)
    blocks: list[bytes] = []
    loader._drain_copy(
        connection.connection, statement, lambda b: blocks.append(bytes(b)), block_bytes=65536
    )
    assert len(whole) > 4_000_000 and b"".join(blocks) == whole
    assert len(blocks) > 1 and all(len(b) >= 65536 for b in blocks[:-1])


def _side_messages(rows: int) -> tuple[bytes, list[bytes]]:
    """A binary COPY stream of the window's columns, whole and as the server's messages
    (the header travels with the first tuple, the trailer alone)."""
    rng = np.random.default_rng(5)
    records = np.zeros(rows, dtype=loader.record_dtype(loader.SIDE_COLUMNS))
    records["_count"] = len(loader.SIDE_COLUMNS)
    for name, code in loader.SIDE_COLUMNS:
        records[f"_len_{name}"] = np.dtype(code).itemsize
        records[name] = rng.integers(0, 9000, rows)
    header = loader.PGCOPY_SIGNATURE + bytes(8)
    tuples = [records[i : i + 1].tobytes() for i in range(rows)]
    return header + b"".join(tuples) + b"\xff\xff", [header + tuples[0], *tuples[1:], b"\xff\xff"]


def test_the_window_parsed_block_by_block_equals_the_whole_parse() -> None:
    whole, messages = _side_messages(50)
    expected = loader.parse_binary_copy(whole, loader.SIDE_COLUMNS)
    for per_block in (1, 3, 7, len(messages)):
        stream = loader._SideStream(capacity=4)  # too small: the columns grow
        for i in range(0, len(messages), per_block):
            stream.feed(bytearray(b"".join(messages[i : i + per_block])))
        assert stream.rows == 50
        for name, (column, _) in loader._SIDE_OUT.items():
            got, raw = stream.take(name), expected[column]
            want = loader.pg_dates_to_month_index(raw) if "month" in name else raw
            assert np.array_equal(got, want), (per_block, name)
    # The first stream's columns take the others' rows after its own.
    head = loader._SideStream(capacity=4)
    head.feed(bytearray(b"".join(messages)))
    column = head.take("player", rows=80)
    assert len(column) == 80 and np.array_equal(column[:50], expected["player_id"])


def test_a_window_stream_refuses_a_null_a_cut_stream_and_data_after_the_end() -> None:
    _, messages = _side_messages(3)
    short = loader._SideStream(capacity=10)
    with pytest.raises(ValueError, match="fixed-size tuples"):
        short.feed(bytearray(messages[0] + messages[1][:-8]))  # a NULL: 8 bytes missing
    cut = loader._SideStream(capacity=10)
    cut.feed(bytearray(b"".join(messages[:-1])))
    with pytest.raises(ValueError, match="without its trailer"):
        cut.take("player")
    after = loader._SideStream(capacity=10)
    after.feed(bytearray(b"".join(messages)))
    with pytest.raises(ValueError, match="after its trailer"):
        after.feed(bytearray(messages[1]))
    with pytest.raises(ValueError, match="not a binary COPY"):
        loader._SideStream(capacity=10).feed(bytearray(b"rank,player\n"))
