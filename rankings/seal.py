"""The seal of a list: what anyone can check a published list against (issue 14, item 1).

A published :class:`~rankings.models.RankingList` carries:

- ``content_sha256``: SHA-256 of its canonical CSV download, the exact UTF-8 bytes that
  ``manage.py export_ranking YYYY-MM --discipline D`` prints and ``/api/rankings/D/M.csv``
  serves (:func:`content_digest`, which streams :func:`rankings.export.csv_pieces`);
- ``inputs_sha256`` and ``inputs_count``: SHA-256 and number of the result rows the close
  computed from (:func:`inputs_digest`): the window's rows in the canonical order
  ``(match_id, side_no, player)``, column after column, each column's values packed
  little-endian: ``match_id`` int64, ``month_played`` int32, ``counting_month`` int32,
  ``base`` float64, ``side_no`` int16, ``score`` float64, ``player`` int64 (months as
  ``year * 12 + month - 1``, the player as its ``Player`` primary key). Column after column
  so that the loader's arrays, already in that order, are hashed where they lie, with no
  copy;
- ``fladub_version``: the version of the FLADUB definition
  (:data:`rankings.fladub.DEFINITION_VERSION`);
- ``code_version``: the package version, ``+g<commit>`` when the commit is known
  (``FIDO_COMMIT`` in the environment, else ``git rev-parse`` of the checkout).

The close seals its attempt after writing the entries and before publishing it
(:func:`list_seal`), while the list is still ``computing``: once published, a list and its
seal never change (the database refuses). Hashing costs one pass over the CSV text and one
over the input arrays, in blocks (no second copy of the window in memory).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from . import fladub, list_csv
from .models import RankingList
from .sql import ListInfo

_BLOCK = 1 << 20  # rows per block of a permuted column's copy
INPUT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("match_id", "<i8"),
    ("month_played", "<i4"),
    ("counting_month", "<i4"),
    ("base", "<f8"),
    ("side_no", "<i2"),
    ("score", "<f8"),
    ("player", "<i8"),
)
_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class InputsDigest:
    sha256: str
    count: int


class InputColumns(Protocol):
    """What :func:`inputs_digest` hashes: the window's columns (any integer or float
    dtype the values fit; each is hashed as :data:`INPUT_COLUMNS` says)."""

    @property
    def match_id(self) -> np.ndarray: ...
    @property
    def month_played(self) -> np.ndarray: ...
    @property
    def counting_month(self) -> np.ndarray: ...
    @property
    def base(self) -> np.ndarray: ...
    @property
    def side_no(self) -> np.ndarray: ...
    @property
    def score(self) -> np.ndarray: ...
    @property
    def player(self) -> np.ndarray: ...
    def __len__(self) -> int: ...


def _canonical_order(sides: fladub.Sides) -> np.ndarray | None:
    """None when the rows already stand in ``(match_id, side_no, player)`` order (the
    loader's usual order, which it has already checked: :meth:`fladub.Sides.is_canonical`
    remembers), else the permutation that sorts them."""
    if sides.is_canonical():
        return None
    return np.lexsort((sides.player, sides.side_no, sides.match_id))


def inputs_digest(
    sides: fladub.Sides | InputColumns,
    *,
    order: Callable[[], np.ndarray | list[slice] | None] | None = None,
) -> InputsDigest:
    """SHA-256 and count of the window's rows in the canonical form (module docstring).
    ``order``: a function giving how to read the rows in canonical order (None: as they
    stand; slices: those runs of rows, one after the other; an array: that permutation),
    called here (the close's window from result packs knows it cheaper than a sort of
    three keys); without it, ``sides`` must be :class:`rankings.fladub.Sides`. A column of
    another dtype is converted block by block."""
    if order is not None:
        order_of = order()
    elif isinstance(sides, fladub.Sides):
        order_of = _canonical_order(sides)
    else:
        raise TypeError("the canonical order of these columns must be given")
    digest = hashlib.sha256()
    n = len(sides)
    runs = order_of if isinstance(order_of, list) else [slice(0, n)]
    permutation = order_of if isinstance(order_of, np.ndarray) else None
    for name, code in INPUT_COLUMNS:
        column = getattr(sides, name)
        dtype = np.dtype(code)
        for run in runs:
            part = column[run]
            if permutation is None and part.dtype == dtype:
                digest.update(np.ascontiguousarray(part).data)
                continue
            for start in range(0, len(part), _BLOCK):
                rows = slice(start, start + _BLOCK)
                block = part[rows] if permutation is None else part[permutation[rows]]
                digest.update(np.ascontiguousarray(block, dtype=dtype).data)
    return InputsDigest(digest.hexdigest(), n)


def content_digest(ranking_list: ListInfo | RankingList) -> str:
    """SHA-256 of the list's CSV download (the bytes ``export_ranking`` prints). On
    PostgreSQL the server writes the CSV (:func:`rankings.loader.list_csv_sha256`, some
    30 times faster than Python's ``csv``); elsewhere, or when a field holds a carriage
    return (quoted differently there), :func:`export_digest`."""
    from .loader import list_csv_sha256, uses_copy

    if uses_copy():
        fast = list_csv_sha256(ranking_list.id, _csv_header())
        if fast is not None:
            return fast
    return export_digest(ranking_list)


def export_digest(ranking_list: ListInfo | RankingList) -> str:
    """SHA-256 of the CSV download as the export itself streams it (row by row, in Python:
    what ``verify_list`` checks a seal against)."""
    from .export import csv_pieces

    digest = hashlib.sha256()
    for piece in csv_pieces(ranking_list):  # type: ignore[arg-type]
        digest.update(piece.encode("utf-8"))
    return digest.hexdigest()


def _csv_header() -> bytes:
    from .export import csv_header

    return csv_header().encode("utf-8")


@cache
def code_version() -> str:
    """``0.1.0+g1a2b3c4d5e6f`` (the package version and the commit, when known)."""
    with (_ROOT / "pyproject.toml").open("rb") as fh:
        version = str(tomllib.load(fh)["project"]["version"])
    commit = os.environ.get("FIDO_COMMIT", "").strip()
    if not commit:
        try:
            done = subprocess.run(  # noqa: S603
                ["git", "-C", str(_ROOT), "rev-parse", "--short=12", "HEAD"],  # noqa: S607
                capture_output=True,
                text=True,
                timeout=5,
                check=False,
            )
            commit = done.stdout.strip() if done.returncode == 0 else ""
        except (OSError, subprocess.SubprocessError):
            commit = ""
    return f"{version}+g{commit[:12]}" if commit else version


def partition_content_digest(list_id: int, *, conn: Any, table: str) -> str | None:
    """:func:`content_digest` of a list whose entries are in ``table`` (its partition,
    before it is attached), read on the psycopg connection ``conn`` (PostgreSQL); None
    when the CSV holds a carriage return (:func:`rankings.loader.list_csv_sha256`)."""
    from .loader import list_csv_sha256

    return list_csv_sha256(list_id, _csv_header(), conn=conn, table=table)


def player_fields_read(*, conn: Any) -> list_csv.PlayerFields | None:
    """Every player's fields as the list's CSV writes them, read on the psycopg connection
    ``conn`` (PostgreSQL) and indexed (:func:`rankings.list_csv.player_fields`): the input
    of :func:`arrays_content_digest`; None when a field holds a line feed."""
    from .loader import players_csv

    return list_csv.player_fields(*players_csv(conn))


def arrays_content_digest(
    ranking: fladub.RankingList, fields: list_csv.PlayerFields | None
) -> str | None:
    """:func:`content_digest` of a list about to be written, from its computed arrays and
    the players' fields (:func:`player_fields_read`): the rows written by
    :func:`rankings.list_csv.csv_rows`, byte for byte those of
    :func:`partition_content_digest`, without reading the list back. None when it cannot
    tell (no ``fields``: a player's field holds a line feed; a listed player's field holds
    a carriage return): the caller then uses :func:`partition_content_digest`."""
    if fields is None:
        return None
    digest = hashlib.sha256(_csv_header())
    for block in list_csv.csv_rows(
        fields,
        rank=ranking.rank,
        player=ranking.player,
        fladub_cents=ranking.fladub_cents,
        results_counted=ranking.results_counted,
        previous_rank=ranking.previous_rank,
    ):
        if b"\r" in block:
            return None  # quoted differently by the download (list_csv_sha256)
        digest.update(block)
    return digest.hexdigest()


def list_seal(list_id: int, inputs: InputsDigest, *, content: str | None = None) -> None:
    """Write the seal of a list that is still ``computing`` (before its publication);
    ``content``: its content digest if already known (computed from the same entries
    while they were indexed: :func:`partition_content_digest`)."""
    attempt = RankingList.objects.get(pk=list_id)
    RankingList.objects.filter(pk=list_id, status=RankingList.Status.COMPUTING).update(
        content_sha256=content or content_digest(attempt),
        inputs_sha256=inputs.sha256,
        inputs_count=inputs.count,
        fladub_version=fladub.DEFINITION_VERSION,
        code_version=code_version(),
    )
