"""The seal's CSV hash as PostgreSQL writes it (rankings.loader.list_csv_sha256) equals the
hash of the bytes the download and ``export_ranking`` give, on lists made to differ:
quotes, commas, line feeds, empty and blank names, non-ASCII, ties, new players, moves
both ways, one-digit cents; and a carriage return, where the two writers quote
differently, falls back to the export itself."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

import numpy as np
import pytest

from matches.models import Player
from rankings import fladub, loader, seal
from rankings.export import csv_header
from rankings.models import RankingEntry, RankingList
from tests.matches.factories import ClubFactory
from tests.rankings.test_commands import run
from tests.rankings.web.conftest import Row, publish

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

AWKWARD = [
    'Anna "Domino" Keller',
    "Keller, Anna",
    'Quote at the end"',
    '"',
    ",",
    "two\nlines",
    "",
    " ",
    "  padded  ",
    "Jürgen Groß-Müller",
    "Ødegaard Ærø",
    "Łukasz Żółć",
    "王小明",
    "Zoë 🁣 Domino",
    "\\.",
    "\\N",
    "NULL",
    "=SUM(A1)",
    "tab\there",
    "semi;colon",
    "'single'",
]


def _published(rows: Sequence[Row]) -> RankingList:
    """L(2026-03) with these entries, published as the service does, with no current list."""
    return publish("2026-03", rows, current=False)


def _players(names: Sequence[str], countries: Sequence[str] = ("DE",)) -> list[Player]:
    club = ClubFactory()
    return Player.objects.bulk_create(
        Player(
            player_id=f"P-{n + 1:06d}",
            name=name,
            country=countries[n % len(countries)],
            club=club,
        )
        for n, name in enumerate(names)
    )


def _rows(players: Sequence[Player], seed: int) -> list[Row]:
    """Ranks with ties (equal cents share a rank), new players, moves up and down, cents
    of one and two digits and large ones."""
    rng = random.Random(seed)
    cents = sorted(
        (
            rng.choice([1, 9, 10, 99, 100, 101, 917, 5000, 123456, rng.randint(1, 40000)])
            for _ in players
        ),
        reverse=True,
    )
    rows = []
    rank = 0
    for n, (player, value) in enumerate(zip(players, cents, strict=True)):
        if n == 0 or value != cents[n - 1]:
            rank = n + 1
        previous = None if rng.random() < 0.3 else rng.randint(1, 2 * len(players))
        rows.append((player, rank, value, rng.randint(1, 20), previous))
    return rows


def _exported(ranking_list: RankingList) -> str:
    out, _ = run("export_ranking", "2026-03")
    return hashlib.sha256(out.encode("utf-8")).hexdigest()


def test_postgres_writes_the_bytes_of_the_download_for_awkward_names() -> None:
    players = _players(AWKWARD, countries=("DE", "AT", "CH", "NO"))
    ranking_list = _published(_rows(players, seed=1))
    expected = _exported(ranking_list)
    assert seal.export_digest(ranking_list) == expected
    fast = loader.list_csv_sha256(ranking_list.id, csv_header().encode())
    assert fast == expected
    assert seal.content_digest(ranking_list) == expected


def test_postgres_writes_the_bytes_of_the_download_for_random_names() -> None:
    rng = random.Random(7)
    pool = "aZ ,\"\n'\\.;é߀中🁣-\u2013\u00a0\u2028\u0085N"
    names = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 12))) for _ in range(400)]
    ranking_list = _published(_rows(_players(names), seed=2))
    expected = _exported(ranking_list)
    assert loader.list_csv_sha256(ranking_list.id, csv_header().encode()) == expected


def test_a_carriage_return_falls_back_to_the_export_itself() -> None:
    # Python's csv (line terminator \n) leaves "a\rb" unquoted, PostgreSQL quotes it.
    players = _players(["plain", "car\rriage", "return\r\nfeed"])
    ranking_list = _published(_rows(players, seed=3))
    assert loader.list_csv_sha256(ranking_list.id, csv_header().encode()) is None
    assert seal.content_digest(ranking_list) == _exported(ranking_list)


def test_an_empty_list_is_its_header() -> None:
    ranking_list = _published([])
    expected = hashlib.sha256(csv_header().encode()).hexdigest()
    assert loader.list_csv_sha256(ranking_list.id, csv_header().encode()) == expected
    assert seal.export_digest(ranking_list) == expected


def _arrays(ranking_list: RankingList) -> fladub.RankingList:
    """The list's columns in list order, as the close holds them when it writes them."""
    rows = list(
        RankingEntry.objects.filter(ranking_list=ranking_list)
        .order_by("rank", "id")
        .values_list("rank", "player_id", "fladub_cents", "results_counted", "previous_rank")
    )
    columns = np.array([[v or 0 for v in row] for row in rows], dtype=np.int64).reshape(-1, 5)
    return fladub.RankingList(
        month=0,
        rank=columns[:, 0],
        player=columns[:, 1],
        fladub_cents=columns[:, 2],
        results_counted=columns[:, 3],
        previous_rank=columns[:, 4],
    )


def _from_arrays(ranking_list: RankingList) -> str | None:
    conn = loader.extra_connection()
    try:
        fields = seal.player_fields_read(conn=conn)
        return seal.arrays_content_digest(_arrays(ranking_list), fields)
    finally:
        conn.close()


@pytest.mark.django_db(transaction=True)  # the digest reads the players on a connection of its own
def test_the_close_writes_the_bytes_of_the_download_from_its_arrays() -> None:
    # Every awkward name but those holding a line feed or a carriage return; players who
    # are in no list are in the players' CSV too.
    names = [name for name in AWKWARD if "\n" not in name and "\r" not in name]
    rng = random.Random(11)
    pool = "aZ ,\"'\\.;é߀中🁣-\u2013\u00a0\u2028\u0085N"
    names += ["".join(rng.choice(pool) for _ in range(rng.randint(0, 12))) for _ in range(300)]
    players = _players(names, countries=("DE", "AT", "CH", "NO"))
    ranking_list = _published(_rows(players[: len(players) - 40], seed=4))
    assert _from_arrays(ranking_list) == _exported(ranking_list)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("name", ["two\nlines", "car\rriage"])
def test_a_line_break_in_any_name_leaves_the_digest_to_postgresql(name: str) -> None:
    players = _players(["plain", "other", name])
    # A line feed anywhere in the players' fields: even a player the list does not hold.
    ranking_list = _published(_rows(players[: 3 if "\r" in name else 2], seed=5))
    assert _from_arrays(ranking_list) is None
    assert seal.content_digest(ranking_list) == _exported(ranking_list)


@pytest.mark.django_db(transaction=True)
def test_an_empty_list_from_its_arrays_is_its_header() -> None:
    _players(["plain"])
    ranking_list = _published([])
    assert _from_arrays(ranking_list) == hashlib.sha256(csv_header().encode()).hexdigest()
