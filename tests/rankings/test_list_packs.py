"""Packs of published lists (rankings.list_packs): the close stores each list it publishes
as a pack and reads the strength lists from the packs; they equal the entries bit for bit;
a list without a pack is read from its entries (and ``pack_lists`` packs it); packs never
change; errata and ``verify_list`` read the right version, ``verify_list`` from the
entries, so that a pack differing from its entries is caught."""

from __future__ import annotations

from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction

from matches import clock
from matches.audit import recording
from matches.models import Match
from matches.months import Month
from matches.services import match_correct
from rankings import fladub, list_packs, loader
from rankings.models import ListPack, RankingList
from rankings.selectors.strength_lists import strength_lists
from rankings.selectors.window import window
from rankings.services.errata import erratum_request
from rankings.services.packs import packs_backfill
from tests.matches.factories import AdminFactory, match_payload
from tests.rankings.factories import close, random_results, submit_table
from tests.rankings.test_commands import march_results, run  # noqa: F401 (a fixture)
from tests.rankings.test_errata import _run_task, sent  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db
MONTHS = [Month(2025, 3) + i for i in range(8)]  # 2025-03 .. 2025-10
POSTGRES = connection.vendor == "postgresql"


def by_player(listed: fladub.PublishedList) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(listed.player, kind="stable")
    return listed.player[order], listed.fladub_cents[order]


def assert_same_lists(
    a: dict[int, fladub.PublishedList], b: dict[int, fladub.PublishedList]
) -> None:
    assert sorted(a) == sorted(b)
    for index, listed in a.items():
        (players, cents), (others, their_cents) = by_player(listed), by_player(b[index])
        assert players.dtype == others.dtype == cents.dtype == their_cents.dtype == np.int64
        assert np.array_equal(players, others) and np.array_equal(cents, their_cents), index


def published_ids() -> dict[int, int]:
    rows = RankingList.objects.filter(status__in=["published", "superseded"])
    return {Month.of(r.month).index: r.pk for r in rows.order_by("month")}


def forget_packs() -> None:
    """Drop every pack, as for lists published before packs existed (TRUNCATE: the guard
    refuses DELETE on PostgreSQL; SQLite's test flush needs DELETE, so it allows it)."""
    with connection.cursor() as cursor:
        if POSTGRES:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the deferred foreign key checked
            cursor.execute("TRUNCATE rankings_listpack")
        else:
            cursor.execute("DELETE FROM rankings_listpack")


@pytest.fixture
def closed_months() -> dict[int, int]:
    random_results(seed=11, matches=250, players=90, months=MONTHS)
    for month in MONTHS[:6]:
        close(month)
    return published_ids()


def test_the_close_packs_the_list_it_publishes_as_its_entries_are(closed_months) -> None:
    assert len(closed_months) == 6
    packed = list_packs.packs_read(closed_months)
    assert sorted(packed) == sorted(closed_months)
    # From the entries: on PostgreSQL both by COPY and by the portable statements.
    assert_same_lists(packed, loader.whole_lists(closed_months, portable=True))
    if POSTGRES:
        assert_same_lists(packed, loader.whole_lists(closed_months, streams=1))
    for index, list_id in closed_months.items():
        pack = ListPack.objects.get(pk=list_id)
        assert pack.count == RankingList.objects.get(pk=list_id).entry_count > 10
        assert len(packed[index]) == pack.count
    # The close reads them: the window's strength lists are the entries'.
    target = MONTHS[6]
    assert_same_lists(
        window(discipline="fido", month=target).published,
        window(discipline="fido", month=target, packs=False).published,
    )


def test_a_list_without_a_pack_is_read_from_its_entries_until_it_is_packed(
    closed_months,
) -> None:
    target = MONTHS[6]
    with_packs = window(discipline="fido", month=target).published
    forget_packs()
    assert list_packs.packs_read(closed_months) == {}
    assert list_packs.lists_without_pack() == sorted(closed_months.values())
    assert_same_lists(window(discipline="fido", month=target).published, with_packs)
    # Some packed, some not: the same lists.
    first = min(closed_months)
    with transaction.atomic():
        list_packs.pack_insert(
            closed_months[first], loader.whole_lists({first: closed_months[first]})[first]
        )
    assert sorted(list_packs.packs_read(closed_months)) == [first]
    assert_same_lists(window(discipline="fido", month=target).published, with_packs)
    # The backfill packs the rest, once.
    out, _ = run("pack_lists")
    assert f"{len(closed_months) - 1} list(s) packed" in out
    assert run("pack_lists")[0].splitlines()[0] == "every published list has its pack"
    assert packs_backfill() == 0
    assert_same_lists(list_packs.packs_read(closed_months), with_packs)
    assert list_packs.lists_without_pack() == []


def test_a_pack_is_refused_for_an_unpublished_list_or_a_wrong_count(closed_months) -> None:
    index = min(closed_months)
    listed = list_packs.packs_read(closed_months)[index]
    with recording():
        attempt = RankingList.objects.create(
            discipline="fido", month=Month(2026, 1).first_day, created_at=clock.now()
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        list_packs.pack_insert(attempt.pk, listed)
    forget_packs()
    short = fladub.PublishedList(player=listed.player[1:], fladub_cents=listed.fladub_cents[1:])
    with pytest.raises(IntegrityError), transaction.atomic():
        list_packs.pack_insert(closed_months[index], short)
    # Arrays of another length than the count: the check constraint.
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO rankings_listpack (ranking_list_id, count, players, cents) "
            "VALUES (%s, %s, %s, %s)",
            [closed_months[index], len(listed), b"\0" * 8, b"\0" * 4],
        )
    assert not ListPack.objects.exists()


def test_a_pack_never_changes(closed_months) -> None:
    index = min(closed_months)
    list_id = closed_months[index]
    before = list_packs.packs_read(closed_months)
    changes = ["UPDATE rankings_listpack SET count = count WHERE ranking_list_id = %s"]
    if POSTGRES:  # SQLite allows DELETE: Django's test flush deletes rows
        changes.append("DELETE FROM rankings_listpack WHERE ranking_list_id = %s")
    for change in changes:
        refused = pytest.raises(IntegrityError, match="immutable")
        with refused, transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(change, [list_id])
    # A second pack of the same list (a concurrent backfill) is not stored.
    with transaction.atomic():
        assert not list_packs.pack_insert(list_id, before[index])
    assert_same_lists(list_packs.packs_read(closed_months), before)


def test_errata_and_verify_list_read_the_version_in_force(march_results, sent) -> None:  # noqa: F811
    a, b, c, d = march_results
    submit_table(a.club, [([a], 20), ([c], 3)], id="t2", date="2026-04-02")
    march, april = close("2026-03"), close("2026-04")
    match_correct(
        match=Match.objects.get(external_id="t1"),
        payload=match_payload(
            a.club, [([a], 57), ([b], 31), ([c], 31), ([d], 99)], id="t1", date="2026-03-14"
        ),
        by=(admin := AdminFactory()),
        now=clock.now(),
        reason="Di's score was 99",
        as_admin=True,
        channel="web",
    )
    outcome = _run_task(
        erratum_request(discipline="fido", month=Month(2026, 3), reason="t1", by=admin)
    )
    v2 = RankingList.objects.get(pk=outcome["ranking_list"])
    assert ListPack.objects.filter(pk__in=[march.pk, april.pk, v2.pk]).count() == 3
    index = Month(2026, 3).index
    entries = {
        m: loader.whole_lists({m: i}, portable=True)[m] for m, i in {1: march.pk, 2: v2.pk}.items()
    }
    assert not np.array_equal(*(by_player(entries[v])[1] for v in (1, 2)))
    # The next close reads v2's pack; the version in force before v2 (April v1's) is v1's.
    latest = strength_lists(discipline="fido", months=[Month(2026, 4)])
    assert_same_lists(latest, {index: entries[2]})
    april.refresh_from_db()
    then = strength_lists(discipline="fido", months=[Month(2026, 4)], as_of=april.published_at)
    assert_same_lists(then, {index: entries[1]})
    for month in ("2026-03", "2026-04"):
        assert "DOES NOT VERIFY" not in run("verify_list", month)[0]


@pytest.mark.postgres
def test_verify_list_reads_the_entries_so_a_pack_altered_past_the_guard_is_caught(
    march_results,  # noqa: F811
) -> None:
    a, _b, c, _d = march_results
    submit_table(a.club, [([a], 20), ([c], 3)], id="t2", date="2026-04-02")
    march = close("2026-03")
    listed = list_packs.packs_read({0: march.pk})[0]
    # The same players and cents, the cents given in reverse order: other ranks, other q.
    altered = fladub.PublishedList(player=listed.player, fladub_cents=listed.fladub_cents[::-1])
    assert len(np.unique(listed.fladub_cents)) > 1
    with connection.cursor() as cursor:  # as a superuser could: the guard off, one change
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("ALTER TABLE rankings_listpack DISABLE TRIGGER USER")
        cursor.execute("DELETE FROM rankings_listpack WHERE ranking_list_id = %s", [march.pk])
        list_packs.pack_insert(march.pk, altered)
        cursor.execute("ALTER TABLE rankings_listpack ENABLE TRIGGER USER")
    close("2026-04")  # computed from the altered pack
    with pytest.raises(CommandError, match="DOES NOT VERIFY"):
        call_command("verify_list", "2026-04", stdout=StringIO())
