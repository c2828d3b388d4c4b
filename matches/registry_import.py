"""Upsert clubs and players from CSV (the ``import_clubs`` / ``import_players`` contract).

In: a text stream of CSV with the exact header of SPEC.md 5.3. Out: :class:`ImportSummary`
(created, updated, unchanged, rejected lines with their reasons). Valid lines are stored in
one transaction; a rejected line stores nothing and does not stop the others. A player's new
name or country is recorded as an event (:mod:`matches.services.players`), as the admin's is.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TextIO

from django.core.exceptions import ValidationError
from django.db import transaction

from .models import Club, Player, club_id_validator, country_validator, player_id_validator
from .services.players import NewDetails, players_details_change
from .validation import Problem, check_text

CLUB_COLUMNS = ["club_id", "name", "country", "city"]
PLAYER_COLUMNS = ["player_id", "name", "country", "club_id"]
BATCH = 2000


@dataclass(slots=True)
class ImportSummary:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: list[tuple[int, str]] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"created {self.created}, updated {self.updated}, unchanged {self.unchanged}, "
            f"rejected {len(self.rejected)}"
        )


class BadFile(ValueError):
    """The file as a whole cannot be read (wrong header, not CSV)."""


def _rows(stream: TextIO, columns: list[str]) -> Iterable[tuple[int, dict[str, str]]]:
    reader = csv.DictReader(stream)
    header = [h.strip() for h in (reader.fieldnames or [])]
    if header != columns:
        raise BadFile(f"the header must be exactly {','.join(columns)} (got {','.join(header)})")
    reader.fieldnames = header
    for row in reader:
        if None in row or any(v is None for v in row.values()):
            yield reader.line_num, {"__error__": "wrong number of columns"}
            continue
        yield reader.line_num, {k: (v or "").strip() for k, v in row.items()}


def _check(value: str, validator: object, path: str, problems: list[Problem]) -> None:
    try:
        validator(value)  # type: ignore[operator]
    except ValidationError as exc:
        problems.append(Problem(path, "; ".join(exc.messages)))


def _name_checks(row: dict[str, str], problems: list[Problem]) -> None:
    if not row["name"]:
        problems.append(Problem("name", "name is required"))
    elif len(row["name"]) > 200:
        problems.append(Problem("name", "name is longer than 200 characters"))
    else:
        check_text(row["name"], "name", "name", problems)


def _valid_rows(
    stream: TextIO,
    columns: list[str],
    key: str,
    key_validator: object,
    summary: ImportSummary,
) -> Iterator[tuple[int, dict[str, str]]]:
    """The rows whose id (column ``key``), country, name (and city, where the file has
    one) pass their checks, with their line numbers; every other row goes to
    ``summary.rejected`` with its problems."""
    for line, row in _rows(stream, columns):
        problems: list[Problem] = []
        if "__error__" in row:
            summary.rejected.append((line, row["__error__"]))
            continue
        row["country"] = row["country"].upper()
        _check(row[key], key_validator, key, problems)
        _check(row["country"], country_validator, "country", problems)
        _name_checks(row, problems)
        if row.get("city"):
            check_text(row["city"], "city", "city", problems)
        if problems:
            summary.rejected.append((line, "; ".join(f"{p.path}: {p.message}" for p in problems)))
            continue
        yield line, row


def import_clubs(stream: TextIO) -> ImportSummary:
    summary = ImportSummary()
    valid = {
        row["club_id"]: row
        for _line, row in _valid_rows(stream, CLUB_COLUMNS, "club_id", club_id_validator, summary)
    }
    with transaction.atomic():
        existing = {c.club_id: c for c in Club.objects.filter(club_id__in=list(valid))}
        for club_id, row in valid.items():
            club = existing.get(club_id)
            values = {"name": row["name"], "country": row["country"], "city": row["city"]}
            if club is None:
                Club.objects.create(club_id=club_id, **values)
                summary.created += 1
            elif any(getattr(club, k) != v for k, v in values.items()):
                Club.objects.filter(pk=club.pk).update(**values)
                summary.updated += 1
            else:
                summary.unchanged += 1
    return summary


#: Why the registry import changed a player's name or country (the event's reason).
IMPORT_REASON = "import of the player registry (import_players)"


def import_players(stream: TextIO, *, reason: str = IMPORT_REASON) -> ImportSummary:
    summary = ImportSummary()
    valid = {
        row["player_id"]: (line, row)
        for line, row in _valid_rows(
            stream, PLAYER_COLUMNS, "player_id", player_id_validator, summary
        )
    }
    club_ids = {row["club_id"] for _, row in valid.values() if row["club_id"]}
    clubs = {c.club_id: c.pk for c in Club.objects.filter(club_id__in=club_ids)}
    ids = list(valid)
    with transaction.atomic():
        for start in range(0, len(ids), BATCH):
            chunk = ids[start : start + BATCH]
            existing = {p.player_id: p for p in Player.objects.filter(player_id__in=chunk)}
            new: list[Player] = []
            moved: list[Player] = []  # to another club
            renamed: list[NewDetails] = []  # a new name or country: an event each
            for player_id in chunk:
                line, row = valid[player_id]
                club_pk = clubs.get(row["club_id"]) if row["club_id"] else None
                if row["club_id"] and club_pk is None:
                    summary.rejected.append((line, f"club_id: unknown club {row['club_id']}"))
                    continue
                player = existing.get(player_id)
                if player is None:
                    new.append(
                        Player(
                            player_id=player_id,
                            name=row["name"],
                            country=row["country"],
                            club_id=club_pk,
                        )
                    )
                elif (player.name, player.country, player.club_id) != (
                    row["name"],
                    row["country"],
                    club_pk,
                ):
                    if (player.name, player.country) != (row["name"], row["country"]):
                        renamed.append(NewDetails(player.pk, row["name"], row["country"]))
                    if player.club_id != club_pk:
                        player.club_id = club_pk
                        moved.append(player)
                    summary.updated += 1
                else:
                    summary.unchanged += 1
            Player.objects.bulk_create(new)
            Player.objects.bulk_update(moved, ["club"])
            if renamed:
                players_details_change(renamed, by=None, reason=reason)
            summary.created += len(new)
    summary.rejected.sort()
    return summary
