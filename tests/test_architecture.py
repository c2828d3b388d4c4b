"""The import table of docs/architecture.md, checked on the source.

Each rule says which product modules a layer may not import; a rule broken here is a
layer that has started to do another layer's work (a view running SQL, a service
enqueuing through the task module, a domain core reaching for Django). The imports are
read from the source with :mod:`ast` (top level and inside functions alike), relative
imports resolved, so a lazy import inside a function counts as much as one at the top.
Also: no set of product modules imports each other in a loop.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("fido", "matches", "rankings")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> Iterator[str]:
    """Every module ``path`` imports (for ``from a import b``: ``a`` and ``a.b``)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            yield source
            yield from (f"{source}.{alias.name}" for alias in node.names)


def _product_modules() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            graph[_module_name(path)] = set(_imports(path))
    return graph


GRAPH = _product_modules()


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


@dataclass(frozen=True)
class Rule:
    """Modules matching ``layer`` import nothing matching ``forbidden``."""

    name: str
    layer: tuple[str, ...]
    forbidden: tuple[str, ...]

    def breaches(self) -> list[str]:
        return sorted(
            f"{module} imports {target}"
            for module, targets in GRAPH.items()
            if _within(module, self.layer)
            for target in targets
            if _within(target, self.forbidden)
        )


RAW_SQL = (
    "matches.sql",
    "matches.store",
    "rankings.sql",
    "rankings.loader",
    "rankings.list_packs",
    "rankings.result_packs",
    "rankings.writer",
    "rankings.partitions",
    "rankings.review_sql",
    "rankings.club_sql",
)
ENTRY_POINTS = (
    "matches.views",
    "matches.apis",
    "rankings.views",
    "rankings.apis",
    "rankings.tasks",
    "matches.management",
    "rankings.management",
    "fido.urls",
    "fido.views",
)
DJANGO_AND_APPS = ("django", "rest_framework", "celery", "fido", "matches.models", "rankings")

RULES = [
    Rule("the rules engine is pure", ("matches.rules",), (*DJANGO_AND_APPS, "matches.models")),
    Rule(
        "the rules engine reads nothing of the app outside it",
        ("matches.rules",),
        tuple(
            m
            for m in GRAPH
            if m.startswith("matches.") and not m.startswith("matches.rules") and m != "matches"
        ),
    ),
    Rule("the FLADUB core is pure", ("rankings.fladub",), (*DJANGO_AND_APPS, "matches")),
    Rule("the calendar core is pure", ("matches.months",), (*DJANGO_AND_APPS, "matches")),
    Rule("matches never depends on rankings", ("matches",), ("rankings",)),
    Rule("views and APIs hold no SQL", ENTRY_POINTS, RAW_SQL),
    Rule(
        "selectors only read",
        ("matches.selectors", "rankings.selectors"),
        (
            "matches.services",
            "rankings.services",
            "rankings.dispatch",
            "rankings.writer",
            "rankings.partitions",
            *ENTRY_POINTS,
        ),
    ),
    Rule(
        "services never reach up to the entry points (tasks enqueued by name)",
        ("matches.services", "rankings.services"),
        ENTRY_POINTS,
    ),
    Rule(
        "the SQL modules know no service, selector or entry point",
        RAW_SQL,
        (
            "matches.services",
            "rankings.services",
            "matches.selectors",
            "rankings.selectors",
            *ENTRY_POINTS,
        ),
    ),
]


@pytest.mark.parametrize("rule", RULES, ids=[rule.name for rule in RULES])
def test_import_table(rule: Rule) -> None:
    assert rule.breaches() == []


def test_the_rules_find_what_they_forbid() -> None:
    # The checker itself: a rule over a layer that does import its target reports it.
    assert Rule("probe", ("rankings.views.public",), ("rankings.selectors",)).breaches()
    assert "matches.rules.record" in GRAPH and "rankings.services.close" in GRAPH


def _module_of(target: str) -> str | None:
    """The product module an imported name lives in (``a.b.func`` -> ``a.b``)."""
    while target:
        if target in GRAPH:
            return target
        target = target.rpartition(".")[0]
    return None


def _loops(edges: dict[str, set[str]]) -> list[list[str]]:
    """The sets of modules that import each other in a loop (Tarjan's components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    loops: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return loops


def test_the_loop_finder_finds_loops() -> None:
    assert _loops({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _loops({"a": {"b"}, "b": set()}) == []


def test_no_import_circles() -> None:
    edges = {
        module: {m for t in targets if (m := _module_of(t)) and m != module}
        for module, targets in GRAPH.items()
    }
    # A package's __init__ importing its own submodules is not a loop of theirs.
    for module, targets in edges.items():
        edges[module] = {
            t for t in targets if not (t.startswith(module + ".") or module.startswith(t + "."))
        }
    assert _loops(edges) == []


LONG = 60


def _long_functions_without_a_reason() -> list[str]:
    """Product functions over LONG lines whose docstring does not say why ("Long on purpose")."""
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    reason = "Long on purpose" in (ast.get_docstring(node) or "")
                    if length > LONG and not reason:
                        found.append(
                            f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length})"
                        )
    return found


def test_a_long_function_says_why() -> None:
    assert _long_functions_without_a_reason() == []
