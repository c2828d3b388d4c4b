"""The list's CSV rows written by NumPy (rankings.list_csv) against a plain Python writer
of the same bytes: PostgreSQL's quoting of the players' fields (a field holding a comma,
a double quote, a line feed or a carriage return quoted, its quotes doubled; an empty
field NULL, so nothing), cents with two places (``rankings.numbers.cents_text``), a
previous rank of 0 written as nothing; and the refusals. The bytes against PostgreSQL
itself: tests/rankings/test_seal_csv.py."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankings import list_csv
from rankings.numbers import cents_text

SPECIAL = (",", '"', "\n", "\r")


def pg_field(text: str) -> str:
    """A text field as PostgreSQL's CSV writes ``NULLIF(field, '')``."""
    if text == "":
        return ""
    if any(ch in text for ch in SPECIAL):
        return '"' + text.replace('"', '""') + '"'
    return text


def players_csv(players: dict[int, tuple[str, str, str]], seed: int) -> bytes:
    """PostgreSQL's CSV of the players, in a shuffled order."""
    ids = list(players)
    random.Random(seed).shuffle(ids)
    return "".join(
        f"{pk}," + ",".join(pg_field(field) for field in players[pk]) + "\n" for pk in ids
    ).encode()


def reference(players: dict[int, tuple[str, str, str]], rows: list[tuple[int, ...]]) -> bytes:
    return "".join(
        f"{rank},"
        + ",".join(pg_field(field) for field in players[player])
        + f",{cents_text(cents)},{counted},{previous or ''}\n"
        for rank, player, cents, counted, previous in rows
    ).encode()


def written(fields: list_csv.PlayerFields, rows: list[tuple[int, ...]], block_rows: int) -> bytes:
    columns = np.array(rows, dtype=np.int64).reshape(-1, 5).T
    return b"".join(
        list_csv.csv_rows(
            fields,
            rank=columns[0],
            player=columns[1],
            fladub_cents=columns[2],
            results_counted=columns[3],
            previous_rank=columns[4],
            block_rows=block_rows,
        )
    )


text = st.text(alphabet=st.sampled_from("aZ ;é߀中🁣-\u2013\u00a0,\"'\\.N0"), max_size=12)


@settings(max_examples=150, deadline=None)
@given(
    names=st.lists(st.tuples(text, text, st.sampled_from(["DE", "AT", "NO"])), max_size=40),
    data=st.data(),
)
def test_numpy_writes_the_rows_python_writes(names, data) -> None:
    # Ids dense (a sequence: a table by id) or sparse (a binary search).
    top = data.draw(st.sampled_from([4 * len(names) + 1024, 10**12]))
    ids = data.draw(
        st.lists(st.integers(1, top), min_size=len(names), max_size=len(names), unique=True)
    )
    players = dict(zip(ids, names, strict=True))
    rows = (
        [
            (
                data.draw(st.integers(1, 10**7)),
                pk,
                data.draw(
                    st.one_of(st.integers(-(10**9), 10**9), st.sampled_from([0, 1, 99, 100]))
                ),
                data.draw(st.integers(0, 10**6)),
                data.draw(st.one_of(st.just(0), st.integers(1, 10**7))),
            )
            for pk in data.draw(st.lists(st.sampled_from(ids), max_size=60))
            if ids
        ]
        if ids
        else []
    )
    fields = list_csv.player_fields(players_csv(players, seed=len(rows)), len(players))
    assert fields is not None
    block = data.draw(st.integers(1, 7))
    assert written(fields, rows, block_rows=block) == reference(players, rows)


@given(st.lists(st.one_of(st.integers(0, 2**62), st.sampled_from([0, 9, 10, 99, 100]))))
def test_decimal_digits_are_str(values) -> None:
    digits, length = list_csv.decimal_digits(np.array(values, dtype=np.int64))
    width = digits.shape[1]
    assert [row[width - n :].tobytes().decode() for row, n in zip(digits, length, strict=True)] == [
        str(v) for v in values
    ]


def test_a_line_feed_in_a_field_leaves_the_players_unindexed() -> None:
    players = {1: ("P-1", "two\nlines", "DE"), 2: ("P-2", "plain", "DE")}
    assert list_csv.player_fields(players_csv(players, seed=1), 2) is None
    # A comma, a quote and a carriage return stay on their line: indexed.
    players[1] = ("P-1", 'a,"b"\rc', "DE")
    fields = list_csv.player_fields(players_csv(players, seed=1), 2)
    assert fields is not None
    assert written(fields, [(1, 1, 917, 3, 0)], 10) == b'1,P-1,"a,""b""\rc",DE,9.17,3,\n'


def test_refusals() -> None:
    assert list_csv.player_fields(b"1,P-1,a,DE", 1) is None  # no final line feed
    assert list_csv.player_fields(b"1,P-1,a,DE\n", 2) is None  # fewer lines than players
    with pytest.raises(ValueError, match="does not begin with an id"):
        list_csv.player_fields(b"x1,P-1,a,DE\n", 1)
    with pytest.raises(ValueError, match="negative"):
        list_csv.decimal_digits(np.array([-1]))
    fields = list_csv.player_fields(b"7,P-7,a,DE\n", 1)
    assert fields is not None
    for missing in (3, 8, -1):
        with pytest.raises(KeyError):
            written(fields, [(1, missing, 100, 1, 0)], 10)


def test_an_empty_list_writes_nothing() -> None:
    fields = list_csv.player_fields(b"", 0)
    assert fields is not None
    assert written(fields, [], 10) == b""


@given(st.binary(max_size=200), st.integers(1, 50))
def test_line_feeds_are_found_a_chunk_at_a_time(data: bytes, chunk: int) -> None:
    found = list_csv._line_ends(np.frombuffer(data, dtype=np.uint8), chunk=chunk)
    assert found.tolist() == [i for i, byte in enumerate(data) if byte == 10]
