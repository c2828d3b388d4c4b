"""Builders of record pieces shared by the rules tests of every game (not a test module):
moves, a record with some top-level keys changed or removed, and the refusal a partial
replay raises."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest

from matches.rules import IllegalMove, replay


def play(player: str, tile: str, on: str | None = None, facet: str | None = None) -> dict[str, Any]:
    move: dict[str, Any] = {"player": player, "tile": tile}
    if on is not None:
        move["on"] = on
    if facet is not None:
        move["facet"] = facet
    return move


def draw(player: str, tile: str | bool = True, *, correction: bool = False) -> dict[str, Any]:
    move: dict[str, Any] = {"player": player, "draw": tile}
    if correction:
        move["correction"] = True
    return move


def pass_(player: str) -> dict[str, Any]:
    return {"player": player, "pass": True}


def refused(data: dict[str, Any]) -> tuple[int, str | None, str]:
    """(move, player, rule) of the IllegalMove a partial replay of ``data`` raises."""
    with pytest.raises(IllegalMove) as caught:
        replay(data, partial=True)
    return caught.value.move, caught.value.player, caught.value.rule


def changed(data: Mapping[str, Any], change: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``data`` with the keys of ``change`` set to its values (None: removed)."""
    out = copy.deepcopy(dict(data))
    for key, value in change.items():
        if value is None:
            del out[key]
        else:
            out[key] = value
    return out
