"""``bench.common.bytecode_compile`` leaves every project module compiled, so that a timed
process starts from bytecode as a deployed one does (docs/performance.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from bench.common import PROJECT_CODE, ROOT, bytecode_compile


def test_every_project_module_has_current_bytecode_after_the_compile() -> None:
    bytecode_compile()
    sources = [
        source
        for name in PROJECT_CODE
        for source in ((ROOT / name).rglob("*.py") if (ROOT / name).is_dir() else [ROOT / name])
    ]
    assert len(sources) > 100
    stale = [
        str(source.relative_to(ROOT))
        for source in sources
        if not _current(source, Path(importlib.util.cache_from_source(str(source))))
    ]
    assert stale == []


def _current(source: Path, cached: Path) -> bool:
    return cached.exists() and cached.stat().st_mtime >= source.stat().st_mtime
