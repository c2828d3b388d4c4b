"""The types in the signatures of the variant protocol's hooks (``variants.base.Variant``),
named once so that every variant's ``replay_game`` and ``simulate`` reads the same."""

from __future__ import annotations

import random
from collections.abc import Sequence

from matches.rules.report import GameReport

#: The simulator's source of randomness (the only one a variant may use).
Random = random.Random
#: The seats of a table, in order.
Seats = tuple[str, ...]
#: The teams of a table (None: everyone plays alone).
Teams = tuple[tuple[str, ...], ...] | None
#: The reports of the games before, in a session.
Previous = Sequence[GameReport]
