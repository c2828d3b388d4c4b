"""Verifying a published list (issue 14, item 2): against its seal, its recomputation and a
downloaded file. Reads only; ``manage.py verify_list`` is its command.

:func:`verify_stored` checks, and reports every failed check as a :class:`Difference`:

1. the stored entries still give the CSV whose SHA-256 the seal holds (an entry altered
   past the immutability guard changes it);
2. the window recomputed from the stored results, as they stood at the list's close, has
   the seal's inputs count and SHA-256. For the close of the month (v1), results
   submitted, corrected or voided later count in later months only (the window's
   condition); for an erratum (v2, ...), the erratum's window after the events up to the
   sequence numbers the list records (:func:`rankings.sql.erratum_condition`), so that
   corrections made after it are left out. The strength lists are the versions in force
   when the list was published (a later erratum of an earlier month is left out), read
   from their entries, not from the packs the close read (:mod:`rankings.list_packs`), so
   that a pack that differed from its list's entries would fail this check. Merges
   and merge undos made after the publication moved results in place, so they are
   reversed on the loaded rows, newest first;
3. FLADUB recomputed from that window equals the stored list entry by entry (player,
   rank, FLADUB cents, results counted, previous rank), and the first differing rows are
   named.

:func:`verify_file` checks a downloaded CSV against the seal and names the first line
that differs from the list as stored.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from matches.models import Player, PlayerMerge, PlayerMergeUndo
from matches.months import Month

from . import fladub, seal
from .export import csv_pieces
from .models import RankingEntry, RankingList
from .selectors.list_export import EXPORT_HEADER
from .selectors.window import window
from .sql import ErratumBasis

_SHOWN = 5  # differing rows named


@dataclass(frozen=True)
class Difference:
    what: str
    detail: str

    def __str__(self) -> str:
        return f"{self.what}: {self.detail}"


def verify_stored(ranking_list: RankingList) -> list[Difference]:
    """Every check of the module docstring; an empty list when the list verifies."""
    found: list[Difference] = []
    if not ranking_list.content_sha256:
        return [Difference("seal", "this list was published before lists carried a seal")]
    content = seal.export_digest(ranking_list)
    if content != ranking_list.content_sha256:
        found.append(
            Difference(
                "content",
                f"the stored entries give a CSV with SHA-256 {content}, the seal says "
                f"{ranking_list.content_sha256}",
            )
        )
    month = Month.of(ranking_list.month)
    basis = None
    if ranking_list.as_of_match is not None and ranking_list.as_of_event is not None:
        basis = ErratumBasis(ranking_list.as_of_match, ranking_list.as_of_event)
    inputs = window(
        discipline=ranking_list.discipline,
        month=month,
        streams=1,
        basis=basis,
        as_of=ranking_list.published_at,
        packs=False,  # the entries, not the packs the close read: so they are checked too
    )
    sides = _as_at_close(inputs.sides, ranking_list)
    digest = seal.inputs_digest(sides)
    if (digest.sha256, digest.count) != (ranking_list.inputs_sha256, ranking_list.inputs_count):
        found.append(
            Difference(
                "inputs",
                f"the stored results give {digest.count} rows with SHA-256 {digest.sha256}, "
                f"the seal says {ranking_list.inputs_count} rows with SHA-256 "
                f"{ranking_list.inputs_sha256}",
            )
        )
    computed = fladub.compute_list(
        sides, month.index, inputs.published, player_order=inputs.player_order
    )
    found.extend(_entry_differences(computed, ranking_list))
    return found


def _as_at_close(sides: fladub.Sides, ranking_list: RankingList) -> fladub.Sides:
    """The rows with the merges (and undos) made after the publication reversed."""
    after = ranking_list.published_at
    if after is None:
        return sides
    steps: list[tuple[dt.datetime, list[int], int, int]] = []  # (when, matches, from, to)
    for merge in PlayerMerge.objects.filter(merged_at__gt=after):
        steps.append((merge.merged_at, merge.match_ids, merge.target_id, merge.source_id))
    for undo in PlayerMergeUndo.objects.filter(undone_at__gt=after).select_related("merge"):
        m = undo.merge
        steps.append((undo.undone_at, m.match_ids, m.source_id, m.target_id))
    if not steps:
        return sides
    player = sides.player.copy()
    for _when, match_ids, moved_from, moved_to in sorted(steps, key=lambda s: s[0], reverse=True):
        rows = np.isin(sides.match_id, np.asarray(match_ids, dtype=np.int64)) & (
            player == moved_from
        )
        player[rows] = moved_to
    return replace(sides, player=player)


def _entry_differences(computed: fladub.RankingList, stored: RankingList) -> list[Difference]:
    rows = list(
        RankingEntry.objects.filter(ranking_list=stored)
        .order_by("rank", "id")
        .values_list("player_id", "rank", "fladub_cents", "results_counted", "previous_rank")
    )
    mine = list(
        zip(
            computed.player.tolist(),
            computed.rank.tolist(),
            computed.fladub_cents.tolist(),
            computed.results_counted.tolist(),
            [p or None for p in computed.previous_rank.tolist()],
            strict=True,
        )
    )
    if rows == mine:
        return []
    found = (
        [Difference("entries", f"the list has {len(rows)} entries, the recomputation {len(mine)}")]
        if len(rows) != len(mine)
        else []
    )
    ids = dict(
        Player.objects.filter(pk__in={r[0] for r in rows + mine}).values_list("pk", "player_id")
    )
    shown = 0
    for place, (theirs, ours) in enumerate(zip(rows, mine, strict=False), start=1):
        if theirs != ours:
            found.append(
                Difference(
                    f"entry {place}",
                    f"stored {_row_text(theirs, ids)}, recomputed {_row_text(ours, ids)}",
                )
            )
            shown += 1
            if shown == _SHOWN:
                break
    return found or [Difference("entries", "the stored and recomputed entries differ")]


def _row_text(row: tuple[int, int, int, int, int | None], ids: dict[int, str]) -> str:
    player, rank, cents, counted, previous = row
    return (
        f"{ids.get(player, player)} rank {rank} FLADUB {cents // 100}.{cents % 100:02d} "
        f"results {counted} previous rank {previous if previous else '-'}"
    )


class NotAList(ValueError):
    """The file is not a FIDO ranking list download."""


def verify_file(ranking_list: RankingList, path: Path) -> list[Difference]:
    """The downloaded file against the seal (and, when it differs, the stored list)."""
    data = path.read_bytes()
    header = ",".join(EXPORT_HEADER).encode()
    if data.split(b"\n", 1)[0].rstrip(b"\r") != header:
        raise NotAList(
            f"{path.name} is not a FIDO ranking list in CSV: "
            f"its first line is not {header.decode()}"
        )
    if not ranking_list.content_sha256:
        return [Difference("seal", "this list was published before lists carried a seal")]
    sha = hashlib.sha256(data).hexdigest()
    if sha == ranking_list.content_sha256:
        return []
    found = [
        Difference(
            "file",
            f"SHA-256 {sha}, the published list's is {ranking_list.content_sha256}",
        )
    ]
    stored = "".join(csv_pieces(ranking_list)).encode("utf-8").split(b"\n")  # type: ignore[arg-type]
    for number, (theirs, ours) in enumerate(zip(data.split(b"\n"), stored, strict=False), start=1):
        if theirs != ours:
            found.append(
                Difference(
                    f"line {number}",
                    f"the file has {theirs.decode(errors='replace')!r}, the list "
                    f"{ours.decode(errors='replace')!r}",
                )
            )
            break
    return found
