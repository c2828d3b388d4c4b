"""Changing a player's name or country: the row holds the new values, an event
(:class:`~matches.models.PlayerDetailsChange`) the old and new ones with who, when and why.

A published list's download shows each player's name and country as they stood when it was
published (its seal hashed those bytes): :func:`rankings.selectors.list_export.published_names`
reads them back from these events. For that to hold, the change is dated after it has taken
every discipline's close lock, shared (:func:`matches.locks.closes_shared`): a change never
falls between the close's read of the names it seals and its publication; one made while
a close runs waits for it to publish.

Refused (nothing changed): an empty reason, an empty or over-long name, a name with control
characters, a country that is not two capital letters. A change to the same values records
nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from matches import audit, clock, locks
from matches.models import Player, PlayerDetailsChange, country_validator
from matches.validation import InvalidSubmission, Problem, check_text

MAX_NAME = 200  # Player.name.max_length, and the message says so


@dataclass(frozen=True, slots=True)
class NewDetails:
    """A player's new name and country (the player by primary key)."""

    player: int
    name: str
    country: str


def details_problems(name: str, country: str) -> list[Problem]:
    """What is wrong with a name and a country, in the user's words (empty when nothing)."""
    problems: list[Problem] = []
    if not name.strip():
        problems.append(Problem("name", _("a player needs a name")))
    elif len(name) > MAX_NAME:
        problems.append(Problem("name", _("a name has at most 200 characters")))
    else:
        check_text(name, "name", _("the name"), problems)
    try:
        country_validator(country)
    except ValidationError:
        problems.append(
            Problem("country", _("a country is two capital letters (ISO 3166-1), e.g. AT"))
        )
    return problems


def player_details_change(
    *, player: Player, name: str, country: str, by: Any, reason: str
) -> PlayerDetailsChange | None:
    """Give ``player`` a new name and country (admin), recorded with who and why; None when
    both are already the player's."""
    changes = players_details_change([NewDetails(player.pk, name, country)], by=by, reason=reason)
    player.refresh_from_db(fields=["name", "country"])
    return changes[0] if changes else None


@transaction.atomic
@audit.recording()
def players_details_change(
    wanted: Iterable[NewDetails], *, by: Any, reason: str
) -> list[PlayerDetailsChange]:
    """Give each player its new name and country at once (the registry import), one event
    per player whose values differ, all with the same time, author and reason."""
    reason = (reason or "").strip()
    wanted = list(wanted)
    problems = (
        [] if reason else [Problem("reason", _("a change of name or country needs a reason"))]
    )
    for details in wanted:
        problems += details_problems(details.name, details.country)
    if problems:
        raise InvalidSubmission(problems)
    locks.closes_shared()
    at = clock.now()  # after the locks: later than any list published without this change
    players = Player.objects.select_for_update().in_bulk([d.player for d in wanted])
    changes: list[PlayerDetailsChange] = []
    for details in wanted:
        player = players[details.player]
        if (player.name, player.country) == (details.name, details.country):
            continue
        changes.append(
            PlayerDetailsChange(
                player=player,
                name_before=player.name,
                country_before=player.country,
                name_after=details.name,
                country_after=details.country,
                changed_at=at,
                changed_by=by,
                reason=reason,
            )
        )
        player.name, player.country = details.name, details.country
    Player.objects.bulk_update([c.player for c in changes], ["name", "country"])
    return PlayerDetailsChange.objects.bulk_create(changes)
