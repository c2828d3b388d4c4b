"""The demo federation: a dozen clubs in several countries, a few hundred players, 14 months
of results (some late, some team games, some voided) and the demo accounts.

The last past month is made to show the cycle (seed_demo leaves it open): a few of its
results arrive late (they count in the current month), one is corrected by the demo
secretary before the deadline and one is voided.

Deterministic (seeded) and idempotent: it does nothing if the demo clubs exist. Every match
goes through :func:`matches.services.match_import` (an honoured ``submitted_at``), the
same path as ``import_results``, so the demo data obeys every rule a real submission does.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.db import transaction

from .clock import federation_tz
from .models import Club, Match, Player, Secretary
from .months import Month, deadline, local_month
from .services import match_correct, match_import, match_void

DEMO_ADMIN = ("admin", "fido-admin-demo")
DEMO_SECRETARY = ("secretary", "fido-secretary-demo")
DEMO_MONTHS = 14

CLUBS = [
    ("CLUB-BER", "Dominoclub Berlin-Mitte", "DE", "Berlin"),
    ("CLUB-HAM", "Hamburger Dominofreunde", "DE", "Hamburg"),
    ("CLUB-MUC", "Doppelsechs München", "DE", "München"),
    ("CLUB-VIE", "Wiener Buki-Runde", "AT", "Wien"),
    ("CLUB-GRZ", "Pulle Graz", "AT", "Graz"),
    ("CLUB-PAR", "Cercle des Dominos de Paris", "FR", "Paris"),
    ("CLUB-LYO", "Domino Club Lyonnais", "FR", "Lyon"),
    ("CLUB-ZRH", "Domino Zürich", "CH", "Zürich"),
    ("CLUB-AMS", "Amsterdamse Dominovereniging", "NL", "Amsterdam"),
    ("CLUB-HAV", "Club de Dominó La Habana", "CU", "La Habana"),
    ("CLUB-SJU", "Dominó San Juan", "PR", "San Juan"),
    ("CLUB-NYC", "Five Up New York", "US", "New York"),
]
FIRST = {
    "DE": ["Anna", "Jonas", "Lena", "Felix", "Marie", "Paul", "Sophie", "Lukas", "Emma", "Ben"],
    "AT": ["Katharina", "Florian", "Johanna", "Tobias", "Lisa", "Matthias", "Eva", "Stefan"],
    "FR": ["Camille", "Louis", "Chloé", "Hugo", "Léa", "Jules", "Manon", "Théo", "Inès"],
    "CH": ["Nina", "Luca", "Mia", "Noah", "Elena", "Gian", "Laura", "Andrin"],
    "NL": ["Sanne", "Daan", "Fleur", "Bram", "Lotte", "Thijs", "Femke", "Sem"],
    "CU": ["Yusimí", "Alejandro", "Dayana", "Yoandri", "Marisol", "Osvaldo", "Yanelis"],
    "PR": ["Coral", "Javier", "Nilda", "Edwin", "Marangely", "Luis", "Zoraida"],
    "US": ["Olivia", "James", "Ava", "Ethan", "Harper", "Mason", "Grace", "Logan"],
}
LAST = {
    "DE": ["Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Wagner", "Becker", "Hoffmann"],
    "AT": ["Gruber", "Huber", "Bauer", "Pichler", "Moser", "Steiner", "Hofer", "Leitner"],
    "FR": ["Martin", "Bernard", "Dubois", "Thomas", "Robert", "Richard", "Petit", "Durand"],
    "CH": ["Meier", "Keller", "Brunner", "Baumann", "Frei", "Gerber", "Widmer", "Zürcher"],
    "NL": ["de Jong", "Jansen", "de Vries", "van Dijk", "Bakker", "Visser", "Smit", "Meijer"],
    "CU": ["Rodríguez", "González", "Hernández", "Pérez", "Díaz", "Fernández", "Cruz"],
    "PR": ["Rivera", "Colón", "Ortiz", "Vázquez", "Santiago", "Figueroa", "Torres"],
    "US": ["Smith", "Johnson", "Brown", "Miller", "Davis", "Wilson", "Moore", "Taylor"],
}
PLAYERS_PER_CLUB = 26
# Clubs whose first table of the last past month arrives after its deadline.
LATE_CLUBS = ("CLUB-BER", "CLUB-SJU", "CLUB-VIE")


@dataclass(slots=True)
class DemoSummary:
    created: bool
    clubs: int = 0
    players: int = 0
    matches: int = 0
    late: int = 0
    voided: int = 0
    corrected: int = 0


def _accounts() -> None:
    users = get_user_model()
    admin, created = users.objects.get_or_create(
        username=DEMO_ADMIN[0], defaults={"is_staff": True, "is_superuser": True}
    )
    if created:
        admin.set_password(DEMO_ADMIN[1])
        admin.save()
    secretary, created = users.objects.get_or_create(username=DEMO_SECRETARY[0])
    if created:
        secretary.set_password(DEMO_SECRETARY[1])
        secretary.save()
    Secretary.objects.get_or_create(user=secretary, club=Club.objects.get(club_id="CLUB-BER"))


def _registry(rng: random.Random) -> dict[str, list[Player]]:
    members: dict[str, list[Player]] = {}
    number = 0
    for club_id, name, country, city in CLUBS:
        club = Club.objects.create(club_id=club_id, name=name, country=country, city=city)
        players = []
        for _ in range(PLAYERS_PER_CLUB):
            number += 1
            players.append(
                Player(
                    player_id=f"P-{number:06d}",
                    name=f"{rng.choice(FIRST[country])} {rng.choice(LAST[country])}",
                    country=country,
                    club=club,
                )
            )
        members[club_id] = Player.objects.bulk_create(players)
    return members


def _table(rng: random.Random, discipline: str, pool: list[Player]) -> list[dict[str, object]]:
    """The sides of one game table with plausible final scores."""
    if discipline == "allfives":
        size = rng.choice([2, 3, 4, 4])
        seated = rng.sample(pool, size)
        if size == 4:
            teams = [seated[:2], seated[2:]]
            winner = rng.randrange(2)
            return [
                {
                    "players": [p.player_id for p in team],
                    "score": 200 + rng.randrange(0, 60, 5)
                    if i == winner
                    else rng.randrange(40, 200, 5),
                }
                for i, team in enumerate(teams)
            ]
        return [{"players": [p.player_id], "score": rng.randrange(30, 260, 5)} for p in seated]
    if discipline == "austrian":
        seated = rng.sample(pool, rng.choice([2, 3, 4]))
        winner = rng.randrange(len(seated))
        return [{"players": [p.player_id], "score": int(i == winner)} for i, p in enumerate(seated)]
    size = rng.choice([3, 4, 4, 5, 6])
    seated = rng.sample(pool, size)
    if size == 4 and rng.random() < 0.25:
        return [
            {"players": [p.player_id for p in team], "score": rng.randint(-30, 80)}
            for team in (seated[:2], seated[2:])
        ]
    return [{"players": [p.player_id], "score": rng.randint(-40, 90)} for p in seated]


def seed(*, now: dt.datetime, log: Callable[[str], None] = print) -> DemoSummary:
    """Create the demo federation once; report what exists.

    Long on purpose: the demo federation written as one story, month after month (clubs,
    players, results, the open last month with its late result, correction and void).
    """
    if Club.objects.filter(club_id=CLUBS[0][0]).exists():
        _accounts()
        return DemoSummary(created=False)
    rng = random.Random(20261121)  # noqa: S311 - demo data, not security
    tz = federation_tz()
    summary = DemoSummary(created=True)
    with transaction.atomic():
        members = _registry(rng)
        _accounts()
    summary.clubs, summary.players = len(members), sum(len(v) for v in members.values())
    everyone = [p for players in members.values() for p in players]
    current = local_month(now, tz)
    lines: list[dict[str, object]] = []
    for offset in range(DEMO_MONTHS - 1, -1, -1):
        month = current + (-offset)
        last_day = month.last_day if month < current else now.astimezone(tz).date()
        for club_id, club_players in members.items():
            tables = rng.randint(6, 10) if month < current else rng.randint(1, 4)
            for t in range(tables):
                day = rng.randint(1, last_day.day)
                played = dt.date(month.year, month.month, day)
                discipline = rng.choices(["fido", "allfives", "austrian"], [6, 3, 2])[0]
                guests = rng.sample(everyone, 6)
                pool = (
                    list(dict.fromkeys(club_players + guests))
                    if rng.random() < 0.3
                    else club_players
                )
                received = _receipt(rng, played, month, tz, now)
                if month == current + -1 and t == 0 and club_id in LATE_CLUBS:
                    # A few clubs miss the last deadline: their result counts next month.
                    received = min(deadline(month, tz) + dt.timedelta(hours=9), now)
                    received -= dt.timedelta(minutes=1)
                lines.append(
                    {
                        "id": f"{club_id}/{played.isoformat()}/t{t + 1}",
                        "date": played.isoformat(),
                        "club": club_id,
                        "discipline": discipline,
                        "category": rng.choices(
                            ["club", "league", "national", "international"], [10, 4, 2, 1]
                        )[0],
                        "sides": _table(rng, discipline, pool),
                        "submitted_at": received.isoformat(),
                    }
                )
    lines.sort(key=lambda line: str(line["submitted_at"]))
    stored = []
    for line in lines:
        outcome = match_import(payload=line, now=now)
        stored.append(outcome.match)
        summary.matches += 1
        summary.late += outcome.match.status == "late"
    last = current + -1
    in_last = [m for m in stored if Month.of(m.counting_month) == last and m.status == "on_time"]
    earlier = [m for m in stored if Month.of(m.counting_month) < last]
    for match in [*rng.sample(earlier, max(1, len(earlier) // 60)), in_last[-1]]:
        voided_at = min(now, match.received_at + dt.timedelta(days=3))
        match_void(match=match, by=None, reason="demo: result disputed by the club", now=voided_at)
        summary.voided += 1
    summary.corrected = _correct_one(in_last[:-1], lines, tz)
    log(
        f"  demo federation: {summary.clubs} clubs, {summary.players} players, "
        f"{summary.matches} matches ({summary.late} late, {summary.voided} voided, "
        f"{summary.corrected} corrected)"
    )
    return summary


def _correct_one(candidates: list[Match], lines: list[dict[str, Any]], tz: ZoneInfo) -> int:
    """The demo secretary corrects one CLUB-BER result of the last month before its deadline
    (a score typed wrong): the correction lands in that month's list."""
    secretary = get_user_model().objects.get(username=DEMO_SECRETARY[0])
    by_id = {str(line["id"]): line for line in lines}
    for match in candidates:
        if match.club.club_id != "CLUB-BER":
            continue
        payload = dict(by_id[match.external_id])
        payload.pop("submitted_at", None)
        sides = [dict(side) for side in payload["sides"]]
        sides[0]["score"] = int(sides[0]["score"]) + 1
        payload["sides"] = sides
        at = min(
            match.received_at + dt.timedelta(hours=20),
            deadline(Month.of(match.counting_month), tz) - dt.timedelta(minutes=5),
        )
        match_correct(
            match=match,
            payload=payload,
            by=secretary,
            now=at,
            reason="demo: the first side's score was typed one too low",
            as_admin=False,
            channel="web",
        )
        return 1
    return 0


def _receipt(
    rng: random.Random, played: dt.date, month: Month, tz: ZoneInfo, now: dt.datetime
) -> dt.datetime:
    """When the secretary sent it: mostly within days, sometimes after the deadline."""
    base = dt.datetime.combine(played, dt.time(22, 0), tzinfo=tz)
    if rng.random() < 0.07:
        received = deadline(month, tz) + dt.timedelta(days=rng.randint(0, 12), hours=10)
    else:
        received = min(
            base + dt.timedelta(days=rng.randint(0, 4), minutes=rng.randint(0, 120)),
            deadline(month, tz) - dt.timedelta(minutes=rng.randint(1, 600)),
        )
    received = max(received, base)
    return min(received, now - dt.timedelta(minutes=1))
