"""Packs of counted results (rankings.result_packs): a close reads the points of the months
earlier closes packed, and the rows of the rest, and publishes exactly the list a close
reading every result as a row publishes; through voids, corrections, merges and their
undo, late results and an erratum of a strength list; the change log and the packs'
guards on PostgreSQL; the format and the stream parser refuse what is not a pack."""

from __future__ import annotations

import datetime as dt
import re
import struct
import threading
from typing import Any

import numpy as np
import pytest
from django.db import IntegrityError, connection, transaction

from matches.audit import recording
from matches.models import Match, Player, Side, SideMember
from matches.months import Month
from matches.services import match_correct, match_void, player_merge, player_merge_undo
from rankings import fladub, loader, result_packs, seal
from rankings.models import RankingEntry, RankingList, ResultPack, ResultPackChunk
from rankings.selectors.strength_lists import published_ids
from rankings.selectors.window import packed_window, window
from rankings.services.close import close_lock
from rankings.services.errata import erratum_request
from rankings.services.packs import member_changes_prune, result_packs_backfill
from tests.matches.factories import AdminFactory, match_payload
from tests.processes import run_python
from tests.rankings.factories import after_deadline, close, random_results, submit_table
from tests.rankings.test_commands import run
from tests.rankings.test_errata import _run_task, sent  # noqa: F401 (a fixture)

MONTHS = [Month(2025, 3) + i for i in range(8)]  # 2025-03 .. 2025-10
SEED = 23


# --- the format and the stream (no database) -----------------------------------------------------


def columns(n_matches: int, seed: int = 1) -> result_packs.Columns:
    rng = np.random.default_rng(seed)
    rows = rng.integers(2, 9, n_matches)
    n = int(rows.sum())
    return result_packs.Columns(
        month=24_300,
        match={
            "match_id": np.sort(rng.choice(10**9, n_matches, replace=False)),
            "month_played": rng.integers(24_289, 24_301, n_matches),
            "void_month": np.where(rng.random(n_matches) < 0.1, 24_302, result_packs.NO_VOID),
            "base": rng.choice([10, 20, 40, 80, 160], n_matches),
            "rows": rows,
        },
        row={
            "points": rng.random(n) * 320,
            "player": rng.integers(1, 2**31 - 1, n),
            "score": rng.integers(-500, 500, n),
            "side_no": rng.integers(1, 10, n),
        },
    )


def test_a_pack_reads_back_bit_for_bit() -> None:
    packed = columns(500)
    match_bytes, row_bytes = result_packs.encode(packed)
    assert len(match_bytes) == 500 * result_packs.MATCH_BYTES
    assert len(row_bytes) == packed.rows * result_packs.ROW_BYTES
    back = result_packs.decode(packed.month, 500, packed.rows, match_bytes + row_bytes)
    for part in ("match", "row"):
        for name, values in getattr(packed, part).items():
            stored = getattr(back, part)[name]
            assert np.array_equal(stored, values), name
            assert stored.dtype.kind == np.asarray(values).dtype.kind
    # Floats exactly: the bits of every point.
    assert back.row["points"].tobytes() == packed.row["points"].astype("<f8").tobytes()


def test_a_value_beyond_the_format_is_refused() -> None:
    packed = columns(3)
    packed.row["player"][0] = 2**31  # a player key beyond int32
    with pytest.raises(ValueError, match="player does not fit int32"):
        result_packs.encode(packed)
    with pytest.raises(ValueError, match="not its size"):
        result_packs.decode(24_300, 3, 10, b"\x00" * 7)


def copy_stream(rows: list[tuple[int, bytes]], *, trailer: bool = True) -> list[bytes]:
    """The messages PostgreSQL sends for ``COPY (SELECT pack_id, data ...) TO STDOUT (FORMAT
    binary)``: the header with the first row, a row a message, the trailer."""
    messages = [
        struct.pack(">hiqi", 2, 8, pack_id, len(data)) + data for pack_id, data in rows
    ] or [b""]
    messages[0] = loader.PGCOPY_SIGNATURE + bytes(8) + messages[0]
    return messages + ([b"\xff\xff"] if trailer else [])


def info(pack_id: int, nbytes: int) -> result_packs.PackInfo:
    # matches * 20 + rows * 18: nbytes in whole matches of no rows, for the parser's count.
    assert nbytes % result_packs.MATCH_BYTES == 0
    return result_packs.PackInfo(
        id=pack_id,
        month=24_300 + pack_id,
        played_from=24_289,
        snapshot="1:1:",
        strengths={},
        matches=nbytes // result_packs.MATCH_BYTES,
        rows=0,
    )


def test_the_pack_stream_is_cut_into_its_packs_as_it_arrives() -> None:
    first, second = bytes(range(200)) * 2, b"\x07" * 60
    seen: list[tuple[int, bytes]] = []
    sink = result_packs.PackSink(
        [info(3, 400), info(5, 60), info(9, 0)], lambda i, b: seen.append((i.id, bytes(b)))
    )
    for message in copy_stream([(3, first[:240]), (3, first[240:]), (5, second)]):
        sink.feed(message)
    assert seen == [(9, b""), (3, first), (5, second)]  # the empty pack at once


@pytest.mark.parametrize(
    ("rows", "trailer", "message"),
    [
        ([(5, b"\x00" * 60), (3, b"\x00" * 400)], True, "out of order"),
        ([(3, b"\x00" * 380), (5, b"\x00" * 60)], True, "not its size"),
        ([(3, b"\x00" * 420)], True, "whole chunks of its size"),
        ([(3, b"\x00" * 400)], True, r"packs \[5\] have no chunks"),
        ([(3, b"\x00" * 400), (7, b"\x00" * 20)], True, "was not asked for"),
    ],
)
def test_a_stream_that_is_not_the_packs_asked_for_is_refused(rows, trailer, message) -> None:
    sink = result_packs.PackSink([info(3, 400), info(5, 60)], lambda i, b: None)
    with pytest.raises(ValueError, match=message):
        for chunk in copy_stream(rows, trailer=trailer):
            sink.feed(chunk)


def test_packs_are_dealt_to_the_streams_by_size() -> None:
    packs = [info(i, size) for i, size in enumerate([400, 100, 300, 200, 60], start=1)]
    groups = result_packs.pack_groups(packs, 2)
    sizes = sorted(sum(p.bytes for p in group) for group in groups)
    assert sizes == [500, 560]  # largest first, each to the lighter stream
    assert all([p.id for p in g] == sorted(p.id for p in g) for g in groups)
    assert result_packs.pack_groups(packs[:1], 4) == [packs[:1]]


# --- the close from packs (PostgreSQL) -----------------------------------------------------------


def reference(month: Month) -> tuple[list[tuple[int, ...]], seal.InputsDigest]:
    """L(month) as a close that reads every result as a row computes it, and the digest
    of its inputs."""
    inputs = window(discipline="fido", month=month)
    ranking = fladub.compute_list(
        inputs.sides, month.index, inputs.published, player_order=inputs.player_order
    )
    names = ("player", "rank", "fladub_cents", "results_counted", "previous_rank")
    rows = list(zip(*(getattr(ranking, name).tolist() for name in names), strict=True))
    return rows, seal.inputs_digest(inputs.sides)


def published_rows(ranking_list: RankingList) -> list[tuple[int, ...]]:
    return [
        (p, r, c, n, prev or 0)
        for p, r, c, n, prev in RankingEntry.objects.filter(ranking_list=ranking_list)
        .order_by("rank", "id")
        .values_list("player_id", "rank", "fladub_cents", "results_counted", "previous_rank")
    ]


def compare_close(month: Month) -> RankingList:
    published = close(month)
    rows, digest = reference(month)
    assert published_rows(published) == rows, month
    assert (published.inputs_sha256, published.inputs_count) == (digest.sha256, digest.count)
    return published


def plan_now(month: Month) -> result_packs.Plan:
    played = {month + (1 - fladub.WINDOW_MONTHS + i) for i in range(fladub.WINDOW_MONTHS)}
    with transaction.atomic():
        return result_packs.plan_read(
            "fido", month, published_ids("fido", {m.prev() for m in played})
        )


def packed_months() -> list[str]:
    return [
        f"{m:%Y-%m}" for m in ResultPack.objects.order_by("month").values_list("month", flat=True)
    ]


def corrected(match: Match) -> dict[str, Any]:
    """The payload of ``match`` with its first two sides' scores swapped."""
    sides = list(Side.objects.filter(match=match).order_by("position"))
    members = {
        side.pk: list(Player.objects.filter(results__side=side).order_by("player_id"))
        for side in sides
    }
    scores = [side.score for side in sides]
    scores[0], scores[1] = scores[1], scores[0]
    return match_payload(
        match.club,
        [(members[side.pk], score) for side, score in zip(sides, scores, strict=True)],
        id=match.external_id,
        date=match.date_played.isoformat(),
        category=match.category,
    )


def correct(match: Match, *, by: Any, now: dt.datetime) -> None:
    """The federation corrects ``match``: its first two sides' scores swapped."""
    match_correct(
        match=match,
        payload=corrected(match),
        by=by,
        now=now,
        reason="scores swapped on the scoresheet",
        as_admin=True,
        channel="web",
    )


def two_strangers() -> tuple[Player, Player]:
    """Two players with results in the window who never sat at one table."""
    players = list(Player.objects.filter(merged_into=None, results__isnull=False).distinct())
    tables = {
        p.pk: set(SideMember.objects.filter(player=p).values_list("match_id", flat=True))
        for p in players
    }
    for a in players:
        for b in players:
            if a.pk < b.pk and not tables[a.pk] & tables[b.pk]:
                return a, b
    raise AssertionError("no two players who never met")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fast_passwords")
def test_closes_from_packs_equal_closes_from_rows_through_every_change(sent, set_now) -> None:  # noqa: F811
    random_results(seed=SEED, matches=320, players=70, months=MONTHS)
    admin = AdminFactory()

    def close_and_compare(month: Month) -> RankingList:  # on the federation's clock
        set_now(after_deadline(month))
        return compare_close(month)

    # The first close packs every month of its window; each later one its own month.
    close_and_compare(MONTHS[0])
    assert packed_months()[0] == "2024-04" and packed_months()[-1] == "2025-03"
    close_and_compare(MONTHS[1])
    assert packed_months()[-1] == "2025-04" and len(packed_months()) == 13
    plan = plan_now(MONTHS[2])
    assert plan.covered == list(range(MONTHS[2].index - 11, MONTHS[2].index))
    assert plan.uncovered == (MONTHS[2].index,) and not len(plan.changed)
    close_and_compare(MONTHS[2])

    # Changes to packed months, before the close of 2025-06: a void, a correction, a merge,
    # a late result.
    now = after_deadline(MONTHS[2]) + dt.timedelta(days=1)
    counted = Match.objects.filter(voided_at=None, discipline="fido")
    voided = counted.filter(counting_month=MONTHS[1].first_day).first()
    match_void(match=voided, by=admin, reason="wrong table", now=now)
    fixed = counted.filter(counting_month=MONTHS[0].first_day).exclude(pk=voided.pk).first()
    correct(fixed, by=admin, now=now)
    source, target = two_strangers()
    moved = set(SideMember.objects.filter(player=source).values_list("match_id", flat=True))
    player_merge(source=source, target=target, by=admin, reason="one person", now=now)
    late_players = list(Player.objects.filter(merged_into=None)[:3])
    submit_table(
        voided.club,
        [([late_players[0]], 9), ([late_players[1]], 4), ([late_players[2]], 4)],
        id="late-1",
        date=f"{MONTHS[2]}-20",
        now=now,
    )
    plan = plan_now(MONTHS[3])
    assert {voided.pk, fixed.pk} <= set(plan.changed.tolist())
    assert moved <= set(plan.changed.tolist())
    close_and_compare(MONTHS[3])

    # A merge undone within its month: the results move back; then a merge that stays.
    now = after_deadline(MONTHS[3]) + dt.timedelta(days=1)
    source, target = two_strangers()
    merge = player_merge(source=source, target=target, by=admin, reason="dup?", now=now)
    player_merge_undo(merge=merge, by=admin, reason="two people after all", now=now)
    close_and_compare(MONTHS[4])
    source, target = two_strangers()
    player_merge(
        source=source,
        target=target,
        by=admin,
        reason="dup",
        now=after_deadline(MONTHS[4]) + dt.timedelta(days=1),
    )
    close_and_compare(MONTHS[5])

    # An erratum of 2025-06 (a correction of one of its matches): L(2025-06) v2 is the
    # strength list of the matches played in 2025-07, whose points in the pack of 2025-07
    # read v1: they are computed again.
    now = after_deadline(MONTHS[5]) + dt.timedelta(days=2)
    set_now(now)
    june = Match.objects.filter(
        voided_at=None, counting_month=MONTHS[3].first_day, date_played__month=6
    ).first()
    correct(june, by=admin, now=now)
    _run_task(
        erratum_request(discipline="fido", month=MONTHS[3], reason="scoresheet", by=admin, now=now)
    )
    assert RankingList.objects.get(month=MONTHS[3].first_day, status="published").edition == 2
    plan = plan_now(MONTHS[6])
    july = next(p for p in plan.packs if p.month == MONTHS[4].index)
    assert MONTHS[4].index in plan.stale_months(july)
    close_and_compare(MONTHS[6])
    close_and_compare(MONTHS[7])


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_close_retried_after_its_packs_were_stored_publishes_the_same_list(monkeypatch) -> None:
    random_results(seed=SEED + 1, matches=120, players=40, months=MONTHS[:3])
    close(MONTHS[0])
    close(MONTHS[1])

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the seal failed")

    from rankings.services import close as close_service

    monkeypatch.setattr(close_service.seal, "list_seal", broken)
    with pytest.raises(RuntimeError, match="the seal failed"):
        close(MONTHS[2])
    monkeypatch.undo()
    assert str(MONTHS[2]) in packed_months()  # stored by the failed attempt
    assert plan_now(MONTHS[2]).uncovered == ()
    published = compare_close(MONTHS[2])
    assert ResultPack.objects.filter(month=MONTHS[2].first_day).count() == 1
    assert published.version == 2  # the failed attempt was version 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_change_log_names_what_a_pack_can_no_longer_be_trusted_for() -> None:
    random_results(seed=SEED + 2, matches=60, players=30, months=MONTHS[:2])
    close(MONTHS[0])
    plan = plan_now(MONTHS[1])
    assert not len(plan.changed) and plan.packs
    some = Match.objects.filter(counting_month=MONTHS[0].first_day).values_list("pk", flat=True)
    first, second, third = list(some[:3])
    with recording():
        SideMember.objects.filter(match_id=first).update(score=99)  # by hand: logged too
    # An insert into a packed month is logged; into an open month it is not.
    row = SideMember.objects.filter(match_id=second).first()
    seat_beside(row, Player.objects.exclude(results__match_id=second).first())
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM matches_sidemember WHERE match_id = %s", [third])
    assert set(plan_now(MONTHS[1]).changed.tolist()) == {first, second, third}
    # The close reads those matches as rows: the list is the one from rows.
    compare_close(MONTHS[1])
    # A TRUNCATE makes every pack untrustworthy: the next close reads every row.
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE matches_sidemember")
    assert plan_now(MONTHS[2]).packs == ()


def seat_beside(row: SideMember, player: Player) -> SideMember:
    """``player`` added to the side of ``row`` by hand (an INSERT no service makes)."""
    return SideMember.objects.create(
        match_id=row.match_id,
        side=row.side,
        player=player,
        discipline=row.discipline,
        month_played=row.month_played,
        counting_month=row.counting_month,
        base=row.base,
        side_position=row.side_position,
        score=row.score,
    )


def logged() -> list[int | None]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT match_id FROM rankings_memberchange ORDER BY match_id")
        return [row[0] for row in cursor.fetchall()]


def hand_edit(match_id: int) -> None:
    with recording():
        SideMember.objects.filter(match_id=match_id).update(score=77)


def fake_pack(discipline: str, month: Month, snapshot: str) -> None:
    """A pack row with no chunks (what the prune reads of a pack: its discipline, month
    and snapshot)."""
    ResultPack.objects.create(
        discipline=discipline,
        month=month.first_day,
        played_from=(month + (-11)).first_day,
        snapshot=snapshot,
        strengths={},
        matches=0,
        rows=0,
        created_at=dt.datetime(2025, 1, 1, tzinfo=dt.UTC),
    )


@pytest.fixture
def close_lock_elsewhere() -> Any:
    """Hold a discipline's close lock elsewhere, as a close under way does: the close's own
    ``close_lock``, in a thread (its own database connection) until the test ends."""
    release = threading.Event()
    holders: list[threading.Thread] = []

    def hold(discipline: str) -> None:
        taken = threading.Event()

        def run() -> None:
            try:
                with close_lock(discipline):
                    taken.set()
                    release.wait(60)
            finally:
                connection.close()

        holder = threading.Thread(target=run, daemon=True)
        holder.start()
        holders.append(holder)
        assert taken.wait(10)

    yield hold
    release.set()
    for holder in holders:
        holder.join(10)


def edited_around_a_close() -> tuple[int, int]:
    """Two matches of 2025-03 edited by hand, one before its close (every pack the close
    makes sees it) and one after (none does: the next close must read that match again);
    and a pack of a month no close reads any more (before L(2025-03) - 11) whose snapshot
    sees nothing, which must hold nothing back."""
    random_results(seed=SEED + 5, matches=60, players=30, months=MONTHS[:2])
    early, later = list(
        Match.objects.filter(counting_month=MONTHS[0].first_day).values_list("pk", flat=True)[:2]
    )
    hand_edit(early)
    close(MONTHS[0])
    hand_edit(later)
    fake_pack("fido", MONTHS[0] + (-12), "1:1:")
    return early, later


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_change_log_is_pruned_of_what_every_pack_already_sees(close_lock_elsewhere) -> None:
    early, later = edited_around_a_close()
    before = logged()
    assert early in before and later in before
    # While a close holds a discipline's lock (its packs may be made in a snapshot older
    # than a change not yet logged here), nothing is pruned.
    close_lock_elsewhere("austrian")
    assert member_changes_prune() is None
    assert logged() == before
    assert run("pack_lists", "--discipline", "fido")[0].strip().splitlines()[-2] == (
        "a close is under way: the change log is left for the nightly prune"
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_prune_keeps_what_a_pack_does_not_see_and_the_next_close_still_reads_it() -> None:
    _early, later = edited_around_a_close()
    before = logged()
    assert member_changes_prune() == len(before) - 1
    assert logged() == [later]
    assert plan_now(MONTHS[1]).changed.tolist() == [later]
    compare_close(MONTHS[1])  # the changed match read as rows: the list from rows
    assert member_changes_prune() == 0  # the packs of 2025-03 and before still miss it
    assert logged() == [later]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_pack_of_a_discipline_with_no_list_counts_whatever_its_month() -> None:
    random_results(seed=SEED + 5, matches=60, players=30, months=MONTHS[:2])
    early = Match.objects.filter(counting_month=MONTHS[0].first_day).values_list("pk", flat=True)[0]
    hand_edit(early)
    close(MONTHS[0])
    # As in the test above, every fido pack sees the change; a pack of a discipline that
    # has published nothing yet (so no month is out of every close's reach) does not.
    fake_pack("allfives", MONTHS[0] + (-30), "1:1:")
    before = logged()
    assert early in before
    assert member_changes_prune() == 0
    assert logged() == before


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_packs_never_change_and_the_backfill_packs_the_latest_window(monkeypatch) -> None:
    random_results(seed=SEED + 3, matches=60, players=30, months=MONTHS[:2])
    with transaction.atomic():  # as a close from before the packs: no pack written
        close(MONTHS[0])
    assert packed_months() == []
    assert result_packs_backfill("fido") == 12

    def unread(**kwargs: Any) -> None:
        raise AssertionError("the window was read with nothing to pack")

    from rankings.services import packs as packs_service

    monkeypatch.setattr(packs_service, "packed_window", unread)
    assert result_packs_backfill("fido") == 0  # again: nothing left to pack, nothing read
    monkeypatch.undo()
    out = run("pack_lists", "--discipline", "fido")[0].strip().splitlines()
    assert out[-4] == "every result of fido is packed"
    assert out[-3] == "every busy player of fido has a pack of points"  # none has 100
    # Every change random_results made (voids, corrections) came before the packs.
    assert re.fullmatch(r"pruned [1-9]\d* logged change\(s\) of results no pack needs", out[-2])
    # Earlier tests' flushes of the players (TRUNCATE) are logged, before every pack.
    assert re.fullmatch(r"pruned \d+ logged rename\(s\) of players every pack sees", out[-1])
    assert logged() == []
    pack = ResultPack.objects.get(month=MONTHS[0].first_day)
    assert pack.rows > 0 and ResultPackChunk.objects.filter(pack=pack).exists()
    for statement in (
        "UPDATE rankings_resultpack SET rows = rows + 1",
        "DELETE FROM rankings_resultpack",
        "UPDATE rankings_resultpackchunk SET seq = seq + 1000",
        "DELETE FROM rankings_resultpackchunk",
    ):
        with (
            pytest.raises(IntegrityError, match="a result pack is immutable"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement)
    compare_close(MONTHS[1])


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_window_from_packs_is_the_window_read_whole() -> None:
    random_results(seed=SEED + 4, matches=200, players=50, months=MONTHS[:5])
    for month in MONTHS[:4]:
        close(month)
    # Lists published from packs verify against the results (verify_list reads no pack).
    for month in MONTHS[:4]:
        assert "verified" in run("verify_list", str(month), "--discipline", "fido")[0]
    month = MONTHS[4]
    packed = packed_window(discipline="fido", month=month)
    assert packed is not None and len(packed.plan.packs) == 11
    whole = window(discipline="fido", month=month).sides
    columns = packed.columns
    order = columns.canonical_order()
    rows = (
        np.arange(len(columns))
        if order is None
        else np.concatenate([np.arange(len(columns))[s] for s in order])
        if isinstance(order, list)
        else order
    )
    for name in (
        "match_id",
        "month_played",
        "counting_month",
        "base",
        "side_no",
        "score",
        "player",
    ):
        assert np.array_equal(getattr(columns, name)[rows], getattr(whole, name)), name
    assert columns.score_missing(packed.published) == int(
        (columns.counting_month == month.index).sum()
    )
    expected = fladub.match_points(whole, packed.published).points
    assert columns.points[rows].tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ({}, "False"),
        ({"FIDO_NUMPY_HUGEPAGES": "1"}, "True"),
        ({"NUMPY_MADVISE_HUGEPAGE": "1"}, "True"),
    ],
)
def test_numpy_huge_pages_are_off_in_the_service_unless_asked_for(environment, expected) -> None:
    import os

    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NUMPY_MADVISE_HUGEPAGE", "FIDO_NUMPY_HUGEPAGES")
    }
    done = run_python(
        "manage.py",
        "shell",
        "-c",
        "from numpy._core import multiarray; print(multiarray._get_madvise_hugepage())",
        env={**env, "DJANGO_SETTINGS_MODULE": "fido.settings.base", **environment},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == expected


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_without_result_packs_the_close_reads_every_result_as_a_row(settings) -> None:
    settings.FIDO_CLOSE_RESULT_PACKS = False
    random_results(seed=SEED + 5, matches=60, players=30, months=MONTHS[:2])
    compare_close(MONTHS[0])
    compare_close(MONTHS[1])
    assert packed_months() == []


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "failing", ["player_fields_read", "arrays_content_digest", "partition_content_digest"]
)
def test_the_seal_computed_during_the_write_fails_the_close_cleanly(
    monkeypatch, failing: str
) -> None:
    """The digest from the arrays (the players' read, the rows written), or read back
    from PostgreSQL when the arrays cannot tell: a failure of either fails the close."""
    random_results(seed=SEED + 6, matches=60, players=30, months=MONTHS[:1])

    def broken(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("the digest's connection dropped")

    if failing == "partition_content_digest":
        monkeypatch.setattr(seal, "arrays_content_digest", lambda *args: None)
    monkeypatch.setattr(seal, failing, broken)
    with pytest.raises(RuntimeError, match="connection dropped"):
        close(MONTHS[0])
    assert not RankingList.objects.filter(status="published").exists()
    monkeypatch.undo()
    published = compare_close(MONTHS[0])
    assert published.content_sha256 == seal.export_digest(published)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_month_the_format_cannot_hold_is_left_unpacked_and_read_as_rows(monkeypatch) -> None:
    random_results(seed=SEED + 7, matches=80, players=30, months=MONTHS[:3])
    compare_close(MONTHS[0])
    encode = result_packs.encode

    def refuses_april(columns: result_packs.Columns) -> tuple[bytes, bytes]:
        if columns.month == MONTHS[1].index:
            raise ValueError("a pack's player does not fit int32")
        return encode(columns)

    monkeypatch.setattr(result_packs, "encode", refuses_april)
    compare_close(MONTHS[1])  # published all the same
    assert str(MONTHS[1]) not in packed_months()
    assert MONTHS[1].index not in plan_now(MONTHS[2]).covered
    compare_close(MONTHS[2])  # April read as rows, the rest from packs
    assert str(MONTHS[1]) not in packed_months() and str(MONTHS[2]) in packed_months()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_command_line_close_ends_at_once_with_its_output_whole() -> None:
    import os

    random_results(seed=SEED + 8, matches=40, players=20, months=MONTHS[:1])
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "fido.settings.base"}
    env.pop("REDIS_URL", None)
    args = ("manage.py", "close_month", str(MONTHS[0]), "--discipline", "fido", "--inline")
    done = run_python(*args, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[1].startswith(f"fido {MONTHS[0]}: published (list ")
    assert [line.split()[0] for line in lines[2:]] == ["load", "compute", "write", "publish"]
    assert RankingList.objects.filter(status="published").count() == 1
    again = run_python(*args, env=env)  # the answer of a retried command, ended as quickly
    assert again.returncode == 0 and "already published" in again.stdout
    refused = run_python("manage.py", "close_month", "2099-01", "--inline", env=env)
    assert refused.returncode == 1 and "cannot be closed before its deadline" in refused.stderr
