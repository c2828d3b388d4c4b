"""The seal of a published list (issue 14, item 1): SHA-256 of its CSV download, of its
inputs in the documented canonical form, their count, the FLADUB and code versions."""

from __future__ import annotations

import hashlib
import struct

import numpy as np
import pytest

from matches.models import Match
from rankings import fladub, seal
from rankings.models import RankingList
from tests.rankings.factories import close
from tests.rankings.test_commands import march_results, run  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def test_a_published_list_carries_the_hash_of_its_download_and_of_its_inputs(
    march_results,  # noqa: F811
) -> None:
    a, b, c, d = march_results
    march = close("2026-03")
    out, _ = run("export_ranking", "2026-03")
    assert march.content_sha256 == hashlib.sha256(out.encode("utf-8")).hexdigest()
    # The inputs, packed by hand as docs/verification.md and rankings.seal describe them.
    match = Match.objects.get()
    month = 2026 * 12 + 2
    rows = [(a, 57), (b, 31), (c, 31), (d, -4)]
    packed = b"".join(
        [
            struct.pack("<4q", *[match.pk] * 4),
            struct.pack("<4i", *[month] * 4),
            struct.pack("<4i", *[month] * 4),
            struct.pack("<4d", *[10.0] * 4),
            struct.pack("<4h", 1, 2, 3, 4),
            struct.pack("<4d", *[float(score) for _, score in rows]),
            struct.pack("<4q", *[player.pk for player, _ in rows]),
        ]
    )
    assert march.inputs_count == 4
    assert march.inputs_sha256 == hashlib.sha256(packed).hexdigest()
    assert march.fladub_version == fladub.DEFINITION_VERSION == "1"
    assert march.code_version.startswith("0.1.0")
    stored = RankingList.objects.get(pk=march.pk)
    assert (stored.content_sha256, stored.inputs_sha256) == (
        march.content_sha256,
        march.inputs_sha256,
    )


def _sides(n: int, seed: int) -> fladub.Sides:
    rng = np.random.default_rng(seed)
    match = np.repeat(np.arange(n // 2, dtype=np.int64), 2)
    return fladub.Sides(
        match_id=match,
        month_played=np.full(len(match), 24314, np.int32),
        counting_month=np.full(len(match), 24314, np.int32),
        base=np.full(len(match), 20.0),
        side_no=np.tile(np.array([1, 2], np.int16), n // 2),
        score=rng.integers(-5, 60, len(match)).astype(np.float64),
        player=rng.permutation(len(match)).astype(np.int64),
    )


def test_the_inputs_hash_does_not_depend_on_the_order_the_rows_arrive_in(monkeypatch) -> None:
    monkeypatch.setattr(seal, "_BLOCK", 7)  # several blocks, and a partial last one
    ordered = _sides(60, seed=1)
    shuffle = np.random.default_rng(2).permutation(len(ordered))
    shuffled = fladub.Sides(**{k: v[shuffle] for k, v in ordered._columns().items()})
    assert seal._canonical_order(ordered) is None  # the loader's order: no sort
    assert seal._canonical_order(shuffled) is not None
    assert seal.inputs_digest(shuffled) == seal.inputs_digest(ordered)
    # ... but it does depend on every value.
    changed = fladub.Sides(**{k: v.copy() for k, v in ordered._columns().items()})
    changed.score[17] += 1
    assert seal.inputs_digest(changed).sha256 != seal.inputs_digest(ordered).sha256
    assert seal.inputs_digest(_sides(0, seed=3)).count == 0
