"""The two ways a record can be refused.

``RecordError``: the JSON is not a game record (a field is missing, has the wrong type or
an impossible value). ``path`` names the field in the submitted document, e.g.
``games[1].moves[3].tile`` or ``hands.A[2]``.

``IllegalMove``: the record is well formed but a step breaks the rules. It carries the
move number (1-based within its game, as in the report's ``n``), the player, a short
machine-readable ``rule`` code and a human ``message``. Its ``path`` always addresses the
normalised record, ``games[i].moves[j]``, even for a single-game record, so it lines up
with the report (which always has a ``games`` list).

Both derive from ``RuleError`` so callers can catch either with one clause.
"""

from __future__ import annotations

from matches.rules.i18n import _


class RuleError(Exception):
    """Base class: the record was refused; ``path`` and ``message`` say where and why."""

    path: str
    message: str

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "message": self.message}


class RecordError(RuleError):
    """The record does not have the shape of RULES.md section 2."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


class IllegalMove(RuleError):
    """A step of the record breaks the game's rules."""

    def __init__(
        self,
        *,
        game: int,
        move: int,
        player: str | None,
        rule: str,
        message: str,
    ) -> None:
        self.game = game
        self.move = move
        self.player = player
        self.rule = rule
        self.message = message
        self.path = f"games[{game}].moves[{move - 1}]"
        who = f" ({player})" if player else ""
        super().__init__(f"game {game + 1}, move {move}{who}: {message} [{rule}]")

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "move": self.move,
            "player": self.player,
            "rule": self.rule,
            "message": self.message,
        }


def must_play_message(player: str, can: object) -> str:
    """Why ``player`` may not pass or draw: they can place ``can`` (RULES 3.4); the one
    wording of that refusal in every variant that has it."""
    return _("%(player)s can place %(can)s and must play") % {"player": player, "can": can}
