"""The close's allocator policy (rankings.allocator): inside the block a freed big array's
memory serves the next one with no page faults; after it the heap is given back."""

from __future__ import annotations

import resource
import sys

import numpy as np
import pytest

from rankings import allocator

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not allocator.available(),
    reason="the policy applies to glibc on Linux",
)

ELEMENTS = 12_000_000  # 96 MB: one window column of the close at 1M / 12M


def _faults_of_second_array() -> int:
    """Page faults taken by filling a big array after an equal one was filled and freed."""
    first = np.ones(ELEMENTS)
    del first
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    second = np.ones(ELEMENTS)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    del second
    return faults


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


def test_inside_the_block_a_freed_big_array_is_reused_without_faults() -> None:
    with allocator.big_blocks_reused():
        inside = _faults_of_second_array()
    outside = _faults_of_second_array()
    # 96 MB faulted in again is at least 48 faults of 2 MB pages (24,000 of 4 KB ones).
    assert inside < 20
    assert outside >= 48


def test_after_the_block_the_heap_is_given_back() -> None:
    with allocator.big_blocks_reused():
        held = np.ones(ELEMENTS)
        resident_inside = _resident_bytes()
        del held
    assert _resident_bytes() < resident_inside - 64 * 1024 * 1024


def test_an_exception_inside_still_restores_the_defaults() -> None:
    with pytest.raises(RuntimeError), allocator.big_blocks_reused():
        raise RuntimeError("the computation failed")
    assert _faults_of_second_array() >= 48
