"""``bench/pages_explain.py`` (``bench/pages.py --explain``) explains every statement a page
runs, the prepared ones of the read side included, with their values."""

from __future__ import annotations

import re

import pytest

from bench import pages_explain
from tests.rankings.factories import close
from tests.rankings.test_services_close import abcd, worked_example_table  # noqa: F401

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def test_a_player_pages_statements_are_explained_prepared_ones_included(club, abcd) -> None:  # noqa: F811
    worked_example_table(club, abcd)
    close("2026-03")
    lines = pages_explain.explain_path(f"/players/{abcd[0].player_id}/")
    head = lines[0]
    assert head.startswith(f"=== GET /players/{abcd[0].player_id}/: 200")
    found = re.search(r"(\d+) statements \((\d+) of them prepared\)$", head)
    assert found, head
    statements, prepared = int(found.group(1)), int(found.group(2))
    assert prepared > 0
    assert statements >= prepared
    plans = [line for line in lines if line.startswith("--- ")]
    assert plans
    assert sum(line.startswith("Execution Time") for line in lines) == len(plans)
