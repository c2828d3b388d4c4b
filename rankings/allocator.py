"""The C allocator's policy while the close computes: big blocks reused, not re-faulted.

glibc's ``malloc`` serves a block above its mmap threshold (dynamic, at most 32 MiB) with a
fresh ``mmap`` and gives it back with ``munmap`` when it is freed. The FLADUB core's
temporaries at 1M players / 12M results are arrays of 12 million elements (50-100 MB
each), so each is a fresh mapping the kernel faults in and zeroes page by page, then
unmaps: about 140,000 page faults, 0.7-1.0 s of system CPU in one close
(docs/performance.md, "Compute").

:func:`big_blocks_reused` raises the threshold for the duration of a ``with`` block, so
those blocks come from the heap and a freed one serves the next; on leaving it trims the
heap (``malloc_trim``: the memory goes back to the system, the process's footprint after
the block is what it was) and sets glibc's default thresholds again. Only the thread that
computes should allocate the big blocks meanwhile (other threads' arenas are not the
main heap and are left as they are).

Where the C library is not glibc (or ``mallopt`` is missing) it does nothing. It changes
how memory is obtained, never what is computed.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import logging
from collections.abc import Iterator
from functools import cache

logger = logging.getLogger(__name__)

# mallopt parameters (malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
# glibc's defaults (the dynamic threshold starts there).
DEFAULT_THRESHOLD = 128 * 1024
# Larger than any block of the close (a 1M-row list's column is 8 MB, a window column 96 MB):
# served from the heap; the mmap threshold cannot exceed HEAP_MAX (32 MiB on 64-bit) for a
# thread's arena, but the main heap grows with brk.
BIG = 1 << 30
NO_TRIM = (1 << 31) - 1


@cache
def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
    except (OSError, AttributeError):
        return None
    return libc


def available() -> bool:
    """True where the policy can be applied (glibc)."""
    return _glibc() is not None


@contextlib.contextmanager
def big_blocks_reused() -> Iterator[None]:
    """Big blocks from the heap and reused inside the block; heap trimmed and glibc's
    default thresholds back after it (even on an exception)."""
    libc = _glibc()
    if libc is None:
        yield
        return
    applied = bool(libc.mallopt(M_MMAP_THRESHOLD, BIG)) and bool(
        libc.mallopt(M_TRIM_THRESHOLD, NO_TRIM)
    )
    if not applied:
        logger.debug("mallopt refused the close's thresholds: left as they were")
    try:
        yield
    finally:
        libc.mallopt(M_MMAP_THRESHOLD, DEFAULT_THRESHOLD)
        libc.mallopt(M_TRIM_THRESHOLD, DEFAULT_THRESHOLD)
        libc.malloc_trim(0)
