"""The game variants by name: what a record's ``variant.game`` selects.

In: a game's name. Out: the :class:`~matches.rules.variants.base.Variant` subclass that
replays it, or ``RecordError`` naming the known games. The registry is one explicit table
built from the variant modules, so that no variant module imports the registry or another
variant to get itself registered: imports run one way, registry -> variants -> base/model.
A new game is a module under ``variants/`` plus one name in :data:`REGISTRY` below.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from matches.rules.errors import RecordError
from matches.rules.i18n import _
from matches.rules.variants.allfives import FiveUp, Muggins
from matches.rules.variants.austrian import Austrian
from matches.rules.variants.base import Variant
from matches.rules.variants.buki import Buki
from matches.rules.variants.fido import Fido
from matches.rules.variants.pulle import Pulle

__all__ = ["REGISTRY", "variant_class"]


def _by_game(*classes: type[Variant]) -> Mapping[str, type[Variant]]:
    table: dict[str, type[Variant]] = {}
    for cls in classes:
        if cls.game in table:
            raise ValueError(f"two variants registered as {cls.game!r}")
        table[cls.game] = cls
    return MappingProxyType(table)


#: Game name -> variant class (read-only).
REGISTRY: Mapping[str, type[Variant]] = _by_game(Fido, Muggins, FiveUp, Austrian, Buki, Pulle)


def variant_class(game: str) -> type[Variant]:
    """The class registered as ``game``; RecordError naming the known games otherwise."""
    try:
        return REGISTRY[game]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise RecordError(
            "variant.game",
            _("unknown game %(game)r; known: %(known)s") % {"game": game, "known": known},
        ) from None
