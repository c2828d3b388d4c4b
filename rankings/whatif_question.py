"""The what-if calculator's question, checked: one set of checks for the API and the page.

In: the discipline and a question whose types are already right (the API's serializer, the
page's form converted what was typed)::

    {"player_id": "P-000123", "month": "2026-04",
     "results": [{"category": "club", "placing": 1,
                  "opponents": [{"player_id": "P-000456", "placing": 2}, ...]}, ...]}

Out: :class:`Question` (the player, the month, the :class:`~rankings.selectors.whatif.
Hypothetical` tables in the order given), or :class:`Refused` naming the field by its path
(``results[0].opponents[1].player_id``) with a message in the active language: an unknown
player or opponent, the player among their own opponents or an opponent twice, a placing
outside 1..number of sides, placings mixed with scores, a month already closed or not the
next list, more than :data:`MAX_RESULTS` results. Reads players and the open month; writes
nothing. A placing p is the score -p (higher is better, as the FLADUB core reads it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from matches.models import Player
from matches.months import Month

from . import sql
from .selectors.cycle import open_month
from .selectors.whatif import Hypothetical

MAX_RESULTS = 20
"""More results than a list's best 20 cannot change the answer more; a bound on the work."""


class Refused(Exception):
    """The question cannot be answered: ``path`` names the field, ``message`` says why."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


@dataclass(frozen=True)
class Question:
    player: Player
    month: Month
    tables: list[Hypothetical]


def question_checked(data: dict[str, Any], discipline: str) -> Question:
    """The question, or :class:`Refused` for its first problem (the month first)."""
    month = _month(data["month"], discipline)
    if not data["results"]:
        raise Refused("results", _("Give at least one result."))
    if len(data["results"]) > MAX_RESULTS:
        message = _("At most %(max)d results at a time (a list counts the best 20).")
        raise Refused("results", message % {"max": MAX_RESULTS})
    player, tables = _tables(data)
    return Question(player=player, month=month, tables=tables)


def _month(text: str, discipline: str) -> Month:
    try:
        month = Month.parse(text)
    except ValueError as exc:
        raise Refused("month", _("Give the month as YYYY-MM.")) from exc
    next_list = open_month(discipline)
    if next_list is not None and month < next_list:
        raise Refused("month", _("%(month)s is already closed.") % {"month": month})
    if month != next_list:
        raise Refused(
            "month", _("Only results of %(month)s count in the next list.") % {"month": next_list}
        )
    return month


def _scores(result: dict[str, Any], path: str) -> tuple[int, list[int]]:
    """The player's and each opponent's score (a placing p is the score -p)."""
    by = "placing" if "placing" in result else "score"
    if by not in result:
        raise Refused(f"{path}.placing", _("Give the player's placing or score."))
    other = "score" if by == "placing" else "placing"
    for m, opponent in enumerate(result["opponents"]):
        if by not in opponent or other in opponent:
            raise Refused(
                f"{path}.opponents[{m}].{by}",
                _("Give every side a placing, or every side a score."),
            )
    given = [result[by]] + [o[by] for o in result["opponents"]]
    if by == "score":
        return given[0], given[1:]
    sides = len(given)
    for m, place in enumerate(given):
        if not 1 <= place <= sides:
            where = f"{path}.placing" if m == 0 else f"{path}.opponents[{m - 1}].placing"
            message = _("A table of %(sides)d sides has no place %(place)d.")
            raise Refused(where, message % {"sides": sides, "place": place})
    return -given[0], [-p for p in given[1:]]


def _tables(data: dict[str, Any]) -> tuple[Player, list[Hypothetical]]:
    """The player and the hypothetical tables; refuses unknown or repeated players."""
    ids = {data["player_id"]} | {o["player_id"] for r in data["results"] for o in r["opponents"]}
    found = {
        p.player_id: p
        for p in (
            sql.loaded(Player, sql.PLAYER_FIELDS, values)
            for values in sql.fetch(sql.players_by_ids(ids))
        )
    }
    unknown = _("No player has the federation id %(id)s.")
    if data["player_id"] not in found:
        raise Refused("player_id", unknown % {"id": data["player_id"]})
    player = found[data["player_id"]]
    tables = []
    for n, result in enumerate(data["results"]):
        path = f"results[{n}]"
        seen = {player.player_id}
        for m, opponent in enumerate(result["opponents"]):
            their = opponent["player_id"]
            if their not in found:
                raise Refused(f"{path}.opponents[{m}].player_id", unknown % {"id": their})
            if their in seen:
                message = _("%(id)s is already at this table.") % {"id": their}
                raise Refused(f"{path}.opponents[{m}].player_id", message)
            seen.add(their)
        own, theirs = _scores(result, path)
        opponents = tuple(
            (found[o["player_id"]].pk, score)
            for o, score in zip(result["opponents"], theirs, strict=True)
        )
        tables.append(Hypothetical(category=result["category"], score=own, opponents=opponents))
    return player, tables
