"""The one validation path of every submission channel (web form, CSV, API, bulk import).

In: plain data (a dict per match, as decoded from JSON or assembled from a form or CSV
rows). Out: :class:`MatchInput` objects whose clubs and players are resolved, or an
:class:`InvalidSubmission` listing EVERY problem found, each with the path of the field it
concerns (``sides[1].players[0]``, ``date``, with a prefix such as ``line 7`` or
``matches[2]`` given by the caller). Nothing here writes to the database.

Time rules (future dates, the 11-month window, the counting month) need the clock and the
closed months: they are checked by :func:`matches.services.match_submit` with
:mod:`matches.months`, and reported the same way.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from . import rawsql
from .models import (
    CATEGORY_BASE,
    MAX_SIDES,
    MIN_SIDES,
    Category,
    Club,
    Discipline,
    Player,
)

MAX_PLAYERS_PER_SIDE = 9
MAX_SCORE = 1_000_000
MAX_ID_LENGTH = 120
ALLOWED_KEYS = frozenset(
    {"id", "date", "club", "discipline", "category", "sides", "records", "submitted_at"}
)
# A cell beginning with one of these is run as a formula by spreadsheet programs.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}


class InvalidSubmission(Exception):
    """Raised with every problem found; nothing was stored."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__("; ".join(f"{p.path}: {p.message}" for p in problems))
        self.problems = list(problems)


@dataclass(slots=True)
class SideInput:
    player_ids: list[str]
    score: int
    players: list[Player] = field(default_factory=list)


@dataclass(slots=True)
class MatchInput:
    external_id: str
    date_played: dt.date
    club_id: str
    discipline: str
    category: str
    sides: list[SideInput]
    records: Any = None
    submitted_at: dt.datetime | None = None
    club: Club | None = None

    @property
    def base(self) -> int:
        return CATEGORY_BASE[self.category]

    def canonical(self) -> dict[str, Any]:
        """A comparable form of the submitted content (to tell a retry from a conflict)."""
        return {
            "id": self.external_id,
            "date": self.date_played.isoformat(),
            "club": self.club_id,
            "discipline": self.discipline,
            "category": self.category,
            "sides": [{"players": s.player_ids, "score": s.score} for s in self.sides],
        }


def join_path(prefix: str, path: str) -> str:
    """``matches[2]`` + ``date`` -> ``matches[2].date``; an empty prefix adds nothing."""
    if not prefix:
        return path
    return f"{prefix}.{path}" if path else prefix


def check_text(value: str, path: str, what: str, problems: list[Problem]) -> None:
    """Refuse control characters and text a spreadsheet would run as a formula."""
    if _CONTROL.search(value):
        problems.append(Problem(path, _("%(what)s contains a control character") % {"what": what}))
    elif value.startswith(_FORMULA_START):
        problems.append(
            Problem(
                path,
                _("%(what)s must not start with %(char)r (a spreadsheet formula)")
                % {"what": what, "char": value[0]},
            )
        )


def _int(value: object, path: str, what: str, problems: list[Problem]) -> int | None:
    if isinstance(value, bool):
        problems.append(
            Problem(path, _("%(what)s must be a whole number, not true/false") % {"what": what})
        )
        return None
    if isinstance(value, int):
        number = value
    elif (isinstance(value, float) and value.is_integer()) or (
        isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d{1,9}\s*", value)
    ):
        number = int(value)
    else:
        problems.append(
            Problem(
                path,
                _("%(what)s must be a whole number, got %(value)r")
                % {"what": what, "value": value},
            )
        )
        return None
    if abs(number) > MAX_SCORE:
        problems.append(
            Problem(
                path,
                _("%(what)s must be between -%(max)d and %(max)d")
                % {"what": what, "max": MAX_SCORE},
            )
        )
        return None
    return number


def parse_match(
    payload: object, *, prefix: str = "", allow_submitted_at: bool = False
) -> tuple[MatchInput | None, list[Problem]]:
    """Check the structure and types of one match; resolve nothing yet."""
    problems: list[Problem] = []
    if not isinstance(payload, Mapping):
        return None, [Problem(join_path(prefix, ""), _("a match must be a JSON object"))]
    unknown = sorted(set(payload) - ALLOWED_KEYS)
    if unknown:
        problems.append(
            Problem(
                join_path(prefix, unknown[0]),
                _("unknown field(s): %(names)s") % {"names": ", ".join(unknown)},
            )
        )
    if not allow_submitted_at and "submitted_at" in payload:
        problems.append(
            Problem(
                join_path(prefix, "submitted_at"),
                _("submitted_at is only accepted by the admin import; the server clock is used"),
            )
        )

    external_id = payload.get("id")
    if not isinstance(external_id, str) or not external_id.strip():
        problems.append(
            Problem(join_path(prefix, "id"), _("id is required (text, unique per club)"))
        )
        external_id = None
    elif len(external_id) > MAX_ID_LENGTH:
        problems.append(
            Problem(
                join_path(prefix, "id"),
                _("id is longer than %(n)d characters") % {"n": MAX_ID_LENGTH},
            )
        )
    else:
        external_id = external_id.strip()
        check_text(external_id, join_path(prefix, "id"), "id", problems)

    date_played = None
    raw_date = payload.get("date")
    if not isinstance(raw_date, str):
        problems.append(Problem(join_path(prefix, "date"), _("date is required as YYYY-MM-DD")))
    else:
        try:
            date_played = dt.date.fromisoformat(raw_date.strip())
            if len(raw_date.strip()) != 10:
                raise ValueError
        except ValueError:
            problems.append(
                Problem(
                    join_path(prefix, "date"),
                    _("not a valid date (YYYY-MM-DD): %(value)r") % {"value": raw_date},
                )
            )
            date_played = None

    club_id = payload.get("club")
    if not isinstance(club_id, str) or not club_id.strip():
        problems.append(Problem(join_path(prefix, "club"), _("club is required (e.g. CLUB-7)")))
        club_id = None
    else:
        club_id = club_id.strip()

    discipline = payload.get("discipline")
    if discipline not in Discipline.values:
        problems.append(
            Problem(
                join_path(prefix, "discipline"),
                _("unknown discipline %(value)r; one of %(choices)s")
                % {"value": discipline, "choices": ", ".join(Discipline.values)},
            )
        )
    category = payload.get("category")
    if category not in Category.values:
        problems.append(
            Problem(
                join_path(prefix, "category"),
                _("unknown category %(value)r; one of %(choices)s")
                % {"value": category, "choices": ", ".join(Category.values)},
            )
        )

    sides = _parse_sides(payload.get("sides"), prefix, problems)

    submitted_at = None
    if allow_submitted_at and payload.get("submitted_at") is not None:
        raw = payload["submitted_at"]
        try:
            if not isinstance(raw, str):
                raise ValueError
            submitted_at = dt.datetime.fromisoformat(raw)
            if submitted_at.tzinfo is None:
                raise ValueError
        except ValueError:
            problems.append(
                Problem(
                    join_path(prefix, "submitted_at"),
                    _("submitted_at must be an ISO 8601 instant with its offset, got %(value)r")
                    % {"value": raw},
                )
            )
            submitted_at = None

    records = payload.get("records")
    if records is not None and not isinstance(records, list | Mapping):
        problems.append(
            Problem(
                join_path(prefix, "records"), _("records must be a game record or a list of them")
            )
        )

    if problems:
        return None, problems
    assert external_id and date_played and club_id and sides is not None  # noqa: S101
    return (
        MatchInput(
            external_id=external_id,
            date_played=date_played,
            club_id=club_id,
            discipline=str(discipline),
            category=str(category),
            sides=sides,
            records=records,
            submitted_at=submitted_at,
        ),
        [],
    )


def _parse_sides(raw: object, prefix: str, problems: list[Problem]) -> list[SideInput] | None:
    path = join_path(prefix, "sides")
    if not isinstance(raw, list):
        problems.append(Problem(path, _("sides must be a list of {players, score}")))
        return None
    if not MIN_SIDES <= len(raw) <= MAX_SIDES:
        problems.append(
            Problem(
                path,
                _("a match has %(min)d to %(max)d sides, not %(n)d")
                % {"min": MIN_SIDES, "max": MAX_SIDES, "n": len(raw)},
            )
        )
    sides: list[SideInput] = []
    seen: dict[str, str] = {}
    ok = True
    for i, side in enumerate(raw):
        side_path = f"{path}[{i}]"
        if not isinstance(side, Mapping):
            problems.append(Problem(side_path, _("a side must be an object {players, score}")))
            ok = False
            continue
        extra = sorted(set(side) - {"players", "score"})
        if extra:
            problems.append(
                Problem(
                    f"{side_path}.{extra[0]}",
                    _("unknown field(s): %(names)s") % {"names": ", ".join(extra)},
                )
            )
        players = side.get("players")
        ids: list[str] = []
        if not isinstance(players, list) or not players:
            problems.append(Problem(f"{side_path}.players", _("a side needs at least one player")))
            ok = False
        elif len(players) > MAX_PLAYERS_PER_SIDE:
            problems.append(
                Problem(
                    f"{side_path}.players",
                    _("at most %(n)d players a side") % {"n": MAX_PLAYERS_PER_SIDE},
                )
            )
            ok = False
        else:
            for j, pid in enumerate(players):
                ppath = f"{side_path}.players[{j}]"
                if not isinstance(pid, str) or not pid.strip():
                    problems.append(Problem(ppath, _("a player is given by their federation id")))
                    ok = False
                    continue
                pid = pid.strip()
                if pid in seen:
                    problems.append(
                        Problem(
                            ppath,
                            _("player %(id)s appears twice in this match (also %(other)s)")
                            % {"id": pid, "other": seen[pid]},
                        )
                    )
                    ok = False
                    continue
                seen[pid] = ppath
                ids.append(pid)
        if "score" not in side:
            problems.append(Problem(f"{side_path}.score", _("score is required")))
            ok = False
            continue
        score = _int(side.get("score"), f"{side_path}.score", "score", problems)
        if score is None:
            ok = False
            continue
        sides.append(SideInput(player_ids=ids, score=score))
    return sides if ok and MIN_SIDES <= len(raw) <= MAX_SIDES else None


def _load_merge_targets(players: Iterable[Player]) -> None:
    """Attach the records merged players point to, one query per merge level (usually none).

    Cheaper than joining ``merged_into`` twice into every lookup: nearly no player is
    merged, and the plain query is what the submission hot path runs.
    """
    loaded: dict[int, Player] = {}
    level = [p for p in players if p.merged_into_id is not None]
    for _depth in range(8):  # merges keep chains flat; this only bounds a broken registry
        if not level:
            return
        missing = {p.merged_into_id for p in level} - loaded.keys()
        if missing:
            loaded.update((t.pk, t) for t in Player.objects.filter(pk__in=missing))
        for player in level:
            if player.merged_into_id is not None:
                player.merged_into = loaded[player.merged_into_id]
        level = [
            p.merged_into
            for p in level
            if p.merged_into is not None and p.merged_into.merged_into_id is not None
        ]


def registry_statements(
    items: Iterable[tuple[str, MatchInput]], known_clubs: Iterable[Club] = ()
) -> tuple[tuple[str, list[str]] | None, tuple[str, list[str]] | None]:
    """The SELECTs of the clubs (but ``known_clubs``) and of the players ``items`` name
    (None where there is nothing to look up), to run with other statements
    (:func:`matches.rawsql.execute_all`); :func:`resolve` takes their rows."""
    items = list(items)
    known = {c.club_id for c in known_clubs}
    club_ids = sorted({m.club_id for _, m in items} - known)
    player_ids = sorted({pid for _, m in items for s in m.sides for pid in s.player_ids})
    clubs = players = None
    if club_ids:
        where = f"WHERE club_id IN ({rawsql.placeholders(club_ids)})"
        clubs = rawsql.select_sql(Club, where), club_ids
    if player_ids:
        where = f"WHERE player_id IN ({rawsql.placeholders(player_ids)})"
        players = rawsql.select_sql(Player, where), player_ids
    return clubs, players


def resolve(
    items: Iterable[tuple[str, MatchInput]],
    known_clubs: Iterable[Club] = (),
    *,
    fetched: tuple[Sequence[Any], Sequence[Any]] | None = None,
) -> list[Problem]:
    """Look up the clubs and players of parsed matches in two queries; attach them.

    ``items`` pairs each match with its path prefix; ``known_clubs`` (e.g. the secretary's,
    already loaded) are not looked up again; ``fetched``: the rows of
    :func:`registry_statements` (clubs, players), already run. A merged player id resolves
    to the surviving record. Returns the problems (unknown club or player, or one player
    twice after merges resolved).
    """
    items = list(items)
    known_clubs = list(known_clubs)
    if fetched is None:
        club_statement, player_statement = registry_statements(items, known_clubs)
        fetched = (
            rawsql.execute(*club_statement) if club_statement else [],
            rawsql.execute(*player_statement) if player_statement else [],
        )
    clubs = {c.club_id: c for c in known_clubs}
    clubs.update((c.club_id, c) for c in rawsql.instances(Club, fetched[0]))
    players = {p.player_id: p for p in rawsql.instances(Player, fetched[1])}
    _load_merge_targets(players.values())
    problems: list[Problem] = []
    for prefix, match in items:
        club = clubs.get(match.club_id)
        if club is None:
            problems.append(
                Problem(join_path(prefix, "club"), _("unknown club %(id)s") % {"id": match.club_id})
            )
        match.club = club
        seen: set[int] = set()
        for i, side in enumerate(match.sides):
            side.players = []
            for j, pid in enumerate(side.player_ids):
                path = join_path(prefix, f"sides[{i}].players[{j}]")
                player = players.get(pid)
                if player is None:
                    problems.append(Problem(path, _("unknown player %(id)s") % {"id": pid}))
                    continue
                while player.merged_into is not None:
                    player = player.merged_into
                if player.pk in seen:
                    problems.append(
                        Problem(
                            path,
                            _("%(id)s is %(survivor)s, already in this match")
                            % {"id": pid, "survivor": player.player_id},
                        )
                    )
                seen.add(player.pk)
                side.players.append(player)
    return problems
