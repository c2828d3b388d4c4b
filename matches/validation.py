"""The one validation path of every submission channel (web form, CSV, API, bulk import).

In: plain data (a dict per match, as decoded from JSON or assembled from a form or CSV
rows). Out: :class:`MatchInput` objects whose clubs and players are resolved, or an
:class:`InvalidSubmission` listing EVERY problem found, each with the path of the field it
concerns (``sides[1].players[0]``, ``date``, with a prefix such as ``line 7`` or
``matches[2]`` given by the caller). Nothing here writes to the database.

Time rules (future dates, the 11-month window, the counting month) need the clock and the
closed months: they are checked by :func:`matches.services.match_batch_submit` with
:mod:`matches.months`, and reported the same way.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from fido.text import text_problem

from . import sql
from .models import (
    CATEGORY_BASE,
    MAX_SIDES,
    MIN_SIDES,
    Category,
    Club,
    Discipline,
    Player,
)
from .rules.record import MAX_RECORD_BYTES

MAX_PLAYERS_PER_SIDE = 9
MAX_SCORE = 1_000_000
MAX_ID_LENGTH = 120
ALLOWED_KEYS = frozenset(
    {"id", "date", "club", "discipline", "category", "sides", "records", "submitted_at"}
)
# A cell beginning with one of these is run as a formula by spreadsheet programs.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_WHOLE = re.compile(r"\s*[-+]?\d{1,9}\s*")
_SIDE_PATH = re.compile(r"sides\[(\d+)\]")


def kind_of(value: object) -> str:
    """What a JSON value is, in the user's words ("a number", "text", ...), for messages
    that say which type was expected and which was given."""
    if value is None:
        return _("nothing (null)")
    if isinstance(value, bool):
        return _("true/false")
    if isinstance(value, int | float):
        return _("a number")
    if isinstance(value, str):
        return _("text")
    if isinstance(value, list | tuple):
        return _("a list")
    if isinstance(value, Mapping):
        return _("an object")
    return _("a value of another kind")


def side_number(path: str) -> int | None:
    """The 1-based side a path such as ``m4.sides[1].players[0]`` concerns, or None."""
    found = _SIDE_PATH.search(path)
    return int(found.group(1)) + 1 if found else None


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    message: str
    # What kind of problem, for a caller that treats one kind apart ("" for most; CONFLICT:
    # the match id is already stored with other content). Not part of the API's body.
    code: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}


CONFLICT = "conflict"


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


def check_text(value: str, path: str, what: str | Promise, problems: list[Problem]) -> None:
    """Refuse what no text field accepts (:mod:`fido.text`: control characters, lone
    surrogates, bidirectional overrides), any line break or tab in an id, and text a
    spreadsheet would run as a formula."""
    reason = text_problem(value)
    if reason is not None:
        problems.append(Problem(path, f"{what} {reason}"))
    elif _CONTROL.search(value):
        problems.append(Problem(path, _("%(what)s contains a control character") % {"what": what}))
    elif value.startswith(_FORMULA_START):
        problems.append(
            Problem(
                path,
                _("%(what)s must not start with %(char)r (a spreadsheet formula)")
                % {"what": what, "char": value[0]},
            )
        )


def typed_number(text: str) -> int | str:
    """What was typed as a whole number (a CSV cell, a form field) as an ``int``; other text
    unchanged, for :func:`parse_match` to refuse with its message."""
    return int(text) if _WHOLE.fullmatch(text) else text


def _int(value: object, path: str, what: str, problems: list[Problem]) -> int | None:
    if isinstance(value, bool):
        problems.append(
            Problem(path, _("%(what)s must be a whole number, not true/false") % {"what": what})
        )
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _WHOLE.fullmatch(value):
        # Strict types: JSON has numbers. (Text interfaces, the CSV upload and the web
        # forms, convert what was typed first: typed_number.)
        problems.append(
            Problem(
                path,
                _("%(what)s must be a number, not the text “%(value)s” (send it without quotes)")
                % {"what": what, "value": value.strip()},
            )
        )
        return None
    elif isinstance(value, str | float):
        problems.append(
            Problem(
                path,
                _("%(what)s must be a whole number, not “%(value)s”")
                % {"what": what, "value": value},
            )
        )
        return None
    else:
        problems.append(
            Problem(
                path,
                _("%(what)s must be a whole number, not %(kind)s")
                % {"what": what, "kind": kind_of(value)},
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
    if not isinstance(payload, Mapping):
        return None, [
            Problem(
                join_path(prefix, ""),
                _("a match must be a JSON object {id, date, club, ...}, not %(kind)s")
                % {"kind": kind_of(payload)},
            )
        ]
    problems: list[Problem] = []
    _check_keys(payload, prefix, allow_submitted_at, problems)
    external_id = _parse_id(payload.get("id"), join_path(prefix, "id"), problems)
    date_played = _parse_date(payload.get("date"), join_path(prefix, "date"), problems)
    club_id = _parse_club(payload.get("club"), join_path(prefix, "club"), problems)
    discipline = _parse_choice(
        payload.get("discipline"), _DISCIPLINES, prefix, "discipline", problems
    )
    category = _parse_choice(payload.get("category"), _CATEGORIES, prefix, "category", problems)
    sides = _parse_sides(payload.get("sides"), prefix, problems)
    submitted_at = None
    if allow_submitted_at and payload.get("submitted_at") is not None:
        submitted_at = _parse_instant(
            payload["submitted_at"], join_path(prefix, "submitted_at"), problems
        )
    records = payload.get("records")
    _check_records_shape(records, join_path(prefix, "records"), problems)
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


def _check_records_shape(records: object, path: str, problems: list[Problem]) -> None:
    """A record, a list of them or nothing, at most MAX_RECORD_BYTES of JSON together (so
    that replaying them stays well under a second)."""
    if records is None:
        return
    if not isinstance(records, list | Mapping):
        problems.append(Problem(path, _("records must be a game record or a list of them")))
    elif len(json.dumps(records, separators=(",", ":"))) > MAX_RECORD_BYTES:
        problems.append(
            Problem(
                path,
                _("the game records are larger than %(kib)s KiB together")
                % {"kib": MAX_RECORD_BYTES // 1024},
            )
        )


def _check_keys(
    payload: Mapping[str, Any], prefix: str, allow_submitted_at: bool, problems: list[Problem]
) -> None:
    """Unknown fields, and ``submitted_at`` where only the admin import may give it."""
    unknown = sorted(set(payload) - ALLOWED_KEYS)
    if unknown:
        problems.append(
            Problem(
                join_path(prefix, unknown[0]),
                ngettext("unknown field: %(names)s", "unknown fields: %(names)s", len(unknown))
                % {"names": ", ".join(unknown)},
            )
        )
    if not allow_submitted_at and "submitted_at" in payload:
        problems.append(
            Problem(
                join_path(prefix, "submitted_at"),
                _("submitted_at is only accepted by the admin import; the server clock is used"),
            )
        )


def _parse_id(raw: object, path: str, problems: list[Problem]) -> str | None:
    """The match's id: text, unique per club (checked later), at most MAX_ID_LENGTH."""
    if raw is not None and not isinstance(raw, str):
        problems.append(
            Problem(
                path,
                _("the match id must be text (unique per club), not %(kind)s")
                % {"kind": kind_of(raw)},
            )
        )
        return None
    if raw is None or not raw.strip():
        problems.append(Problem(path, _("the match id is required (text, unique per club)")))
        return None
    if len(raw) > MAX_ID_LENGTH:
        problems.append(
            Problem(path, _("the match id is longer than %(n)d characters") % {"n": MAX_ID_LENGTH})
        )
        return None
    external_id = raw.strip()
    check_text(external_id, path, _MATCH_ID, problems)
    return external_id


def _parse_date(raw: object, path: str, problems: list[Problem]) -> dt.date | None:
    if raw is None:
        problems.append(Problem(path, _("the date is required, as YYYY-MM-DD")))
        return None
    if not isinstance(raw, str):
        problems.append(
            Problem(
                path,
                _("the date must be text such as 2026-03-14, not %(kind)s")
                % {"kind": kind_of(raw)},
            )
        )
        return None
    try:
        if len(raw.strip()) != 10:
            raise ValueError
        return dt.date.fromisoformat(raw.strip())
    except ValueError:
        problems.append(
            Problem(
                path,
                _("“%(value)s” is not a date; write it as YYYY-MM-DD, e.g. 2026-03-14")
                % {"value": raw},
            )
        )
        return None


def _parse_club(raw: object, path: str, problems: list[Problem]) -> str | None:
    if raw is not None and not isinstance(raw, str):
        problems.append(
            Problem(
                path,
                _("the club must be its id as text (e.g. CLUB-7), not %(kind)s")
                % {"kind": kind_of(raw)},
            )
        )
        return None
    if raw is None or not raw.strip():
        problems.append(Problem(path, _("the club is required (its id, e.g. CLUB-7)")))
        return None
    before = len(problems)
    check_text(raw.strip(), path, "club", problems)
    return raw.strip() if len(problems) == before else None


# Translated when a refusal is written, not for every match parsed (the hot path).
_CHOICE_REFUSALS = {
    "discipline": gettext_lazy("unknown discipline “%(value)s”; choose one of %(choices)s"),
    "category": gettext_lazy("unknown category “%(value)s”; choose one of %(choices)s"),
}
# The choices as tuples once (``Choices.values`` builds a new list on every read).
_DISCIPLINES = tuple(Discipline.values)
_CATEGORIES = tuple(Category.values)
_MATCH_ID = gettext_lazy("the match id")
_PLAYER_ID = gettext_lazy("player id")


def _parse_choice(
    raw: object, choices: Sequence[str], prefix: str, name: str, problems: list[Problem]
) -> object:
    """``raw`` (the field ``name``: discipline or category); a refusal naming the value and
    the choices when it is not one of ``choices``."""
    if not isinstance(raw, str) or raw not in choices:
        shown = raw if isinstance(raw, str) else kind_of(raw)
        values = {"value": shown, "choices": ", ".join(choices)}
        problems.append(Problem(join_path(prefix, name), str(_CHOICE_REFUSALS[name] % values)))
    return raw


def _parse_instant(raw: object, path: str, problems: list[Problem]) -> dt.datetime | None:
    """An ISO 8601 instant with its offset (the admin import's ``submitted_at``)."""
    try:
        if not isinstance(raw, str):
            raise ValueError
        instant = dt.datetime.fromisoformat(raw)
        if instant.tzinfo is None:
            raise ValueError
        return instant
    except ValueError:
        problems.append(
            Problem(
                path,
                _(
                    "submitted_at must be an instant with its offset, such as "
                    "2026-03-31T21:40:00+02:00, not “%(value)s”"
                )
                % {"value": raw},
            )
        )
        return None


def _parse_sides(raw: object, prefix: str, problems: list[Problem]) -> list[SideInput] | None:
    """Every side, or None when any is faulty (every problem is listed)."""
    path = join_path(prefix, "sides")
    if not isinstance(raw, list):
        problems.append(
            Problem(
                path,
                _("sides must be a list of sides {players, score}, not %(kind)s")
                % {"kind": kind_of(raw)},
            )
        )
        return None
    count_ok = MIN_SIDES <= len(raw) <= MAX_SIDES
    if not count_ok:
        problems.append(
            Problem(
                path,
                _("a match has %(min)d to %(max)d sides, not %(n)d")
                % {"min": MIN_SIDES, "max": MAX_SIDES, "n": len(raw)},
            )
        )
    seen: dict[str, str] = {}  # player id -> the path where it first stood
    sides = [_parse_side(side, f"{path}[{i}]", seen, problems) for i, side in enumerate(raw)]
    if not count_ok or any(side is None for side in sides):
        return None
    return [side for side in sides if side is not None]


def _parse_side(
    side: object, path: str, seen: dict[str, str], problems: list[Problem]
) -> SideInput | None:
    if not isinstance(side, Mapping):
        problems.append(
            Problem(
                path,
                _("side %(n)s must be an object {players, score}, not %(kind)s")
                % {"n": side_number(path), "kind": kind_of(side)},
            )
        )
        return None
    extra = sorted(set(side) - {"players", "score"})
    if extra:
        problems.append(
            Problem(
                f"{path}.{extra[0]}",
                ngettext("unknown field: %(names)s", "unknown fields: %(names)s", len(extra))
                % {"names": ", ".join(extra)},
            )
        )
    ids = _parse_players(side.get("players"), f"{path}.players", seen, problems)
    if "score" not in side:
        problems.append(
            Problem(
                f"{path}.score",
                _("side %(n)s has no score; give its final score as a whole number")
                % {"n": side_number(path)},
            )
        )
        return None
    score = _int(side.get("score"), f"{path}.score", "score", problems)
    if score is None or ids is None:
        return None
    return SideInput(player_ids=ids, score=score)


def _parse_players(
    players: object, path: str, seen: dict[str, str], problems: list[Problem]
) -> list[str] | None:
    """A side's federation ids (each once in the whole match), or None if any is faulty."""
    if not isinstance(players, list):
        problems.append(
            Problem(
                path,
                _('players must be a list of federation ids such as ["P-000001"], not %(kind)s')
                % {"kind": kind_of(players)},
            )
        )
        return None
    if not players:
        problems.append(
            Problem(path, _("side %(n)s needs at least one player") % {"n": side_number(path)})
        )
        return None
    if len(players) > MAX_PLAYERS_PER_SIDE:
        problems.append(
            Problem(path, _("at most %(n)d players a side") % {"n": MAX_PLAYERS_PER_SIDE})
        )
        return None
    ids: list[str] | None = []
    for j, pid in enumerate(players):
        ppath = f"{path}[{j}]"
        if not isinstance(pid, str) or not pid.strip():
            problems.append(
                Problem(
                    ppath,
                    _(
                        "a player is given by their federation id as text (e.g. P-000123), "
                        "not %(kind)s"
                    )
                    % {"kind": kind_of(pid) if pid != "" else _("empty text")},
                )
            )
            ids = None
            continue
        pid = pid.strip()
        before = len(problems)
        check_text(pid, ppath, _PLAYER_ID, problems)
        if len(problems) > before:
            ids = None
            continue
        if pid in seen:
            problems.append(
                Problem(
                    ppath,
                    _("player %(id)s appears twice in this match (also on side %(other)s)")
                    % {"id": pid, "other": side_number(seen[pid])},
                )
            )
            ids = None
            continue
        seen[pid] = ppath
        if ids is not None:
            ids.append(pid)
    return ids


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


@dataclass(frozen=True, slots=True)
class RegistryQuery:
    """The SELECTs of the clubs and players a batch names (None: nothing to look up)."""

    clubs: sql.Statement | None
    players: sql.Statement | None


@dataclass(frozen=True, slots=True)
class Registry:
    """The clubs and players :class:`RegistryQuery` found, as model instances."""

    clubs: Sequence[Club]
    players: Sequence[Player]


def registry_query(
    items: Iterable[tuple[str, MatchInput]], known_clubs: Iterable[Club] = ()
) -> RegistryQuery:
    """The SELECTs of the clubs (but ``known_clubs``) and of the players ``items`` name, to
    run with other statements (:func:`matches.sql.execute_all`); :func:`resolve` takes what
    they found."""
    items = list(items)
    known = {c.club_id for c in known_clubs}
    club_ids = sorted({m.club_id for _, m in items} - known)
    player_ids = sorted({pid for _, m in items for s in m.sides for pid in s.player_ids})
    return RegistryQuery(
        clubs=sql.clubs_by_code(club_ids) if club_ids else None,
        players=sql.players_by_id(player_ids) if player_ids else None,
    )


def registry_rows(query: RegistryQuery, rows: Mapping[str, Sequence[Any]]) -> Registry:
    """The instances of what ``query``'s statements returned (``rows`` by "clubs" and
    "players"; a statement that did not run returned nothing)."""
    return Registry(
        clubs=sql.instances(Club, rows.get("clubs", [])),
        players=sql.instances(Player, rows.get("players", [])),
    )


def resolve(
    items: Iterable[tuple[str, MatchInput]],
    known_clubs: Iterable[Club] = (),
    *,
    found: Registry | None = None,
) -> list[Problem]:
    """Look up the clubs and players of parsed matches in two queries; attach them.

    ``items`` pairs each match with its path prefix; ``known_clubs`` (e.g. the secretary's,
    already loaded) are not looked up again; ``found``: what :func:`registry_query`'s
    statements found, already run. A merged player id resolves to the surviving record.
    Returns the problems (unknown club or player, or one player twice after merges
    resolved).

    Long on purpose: the two lookups and the attachment of their rows are one pass over
    the matches, each refusal with its own path; split, the passes would walk the matches twice.
    """
    items = list(items)
    known_clubs = list(known_clubs)
    if found is None:
        query = registry_query(items, known_clubs)
        found = registry_rows(
            query,
            {
                name: sql.execute(statement)
                for name, statement in (("clubs", query.clubs), ("players", query.players))
                if statement is not None
            },
        )
    clubs = {c.club_id: c for c in known_clubs}
    clubs.update((c.club_id, c) for c in found.clubs)
    players = {p.player_id: p for p in found.players}
    _load_merge_targets(players.values())
    problems: list[Problem] = []
    for prefix, match in items:
        club = clubs.get(match.club_id)
        if club is None:
            problems.append(
                Problem(
                    join_path(prefix, "club"),
                    _("there is no club %(id)s; check the club id") % {"id": match.club_id},
                )
            )
        match.club = club
        seen: set[int] = set()
        for i, side in enumerate(match.sides):
            side.players = []
            for j, pid in enumerate(side.player_ids):
                player = players.get(pid)
                if player is None:
                    problems.append(
                        Problem(
                            _player_path(prefix, i, j),
                            _("there is no player %(id)s; check the federation id") % {"id": pid},
                        )
                    )
                    continue
                # The id first: no descriptor call for a player who was not merged.
                while player.merged_into_id is not None and player.merged_into is not None:
                    player = player.merged_into
                if player.pk in seen:
                    problems.append(
                        Problem(
                            _player_path(prefix, i, j),
                            _("%(id)s was merged into %(survivor)s, already in this match")
                            % {"id": pid, "survivor": player.player_id},
                        )
                    )
                seen.add(player.pk)
                side.players.append(player)
    return problems


def _player_path(prefix: str, side: int, index: int) -> str:
    """The path of a side's player, written only for a refusal (not for every player)."""
    return join_path(prefix, f"sides[{side}].players[{index}]")
