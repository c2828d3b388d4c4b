"""Helpers of the rankings tests: submit matches through the real service, close months."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from matches.audit import recording
from matches.models import Club, Player
from matches.months import Month, deadline
from matches.services import match_batch_submit
from rankings import fladub
from rankings.models import RankingList
from rankings.services.close import month_close
from tests.clock import BERLIN
from tests.matches.factories import match_payload


def received(day: dt.date, hour: int = 20) -> dt.datetime:
    """An instant on ``day`` in the federation's zone (results submitted that evening)."""
    return dt.datetime(day.year, day.month, day.day, hour, 0, tzinfo=BERLIN)


def after_deadline(month: Month | str, minutes: int = 10) -> dt.datetime:
    """A few minutes after ``month``'s deadline (the first instant of the next month)."""
    month = month if isinstance(month, Month) else Month.parse(month)
    return deadline(month, BERLIN) + dt.timedelta(minutes=minutes)


def close(month: Month | str, discipline: str = "fido", **options: Any) -> RankingList:
    """Close ``month`` through the real service (by default a few minutes after its
    deadline); ``options`` go to :func:`rankings.services.close.month_close`."""
    month = month if isinstance(month, Month) else Month.parse(month)
    options.setdefault("now", after_deadline(month))
    return month_close(month=month, discipline=discipline, **options)


def submit_table(
    club: Club,
    sides: Sequence[tuple[Sequence[Player], int]],
    *,
    id: str,
    date: str,
    category: str = "club",
    discipline: str = "fido",
    now: dt.datetime | None = None,
) -> None:
    """One match through :func:`matches.services.match_batch_submit` (as the API would)."""
    played = dt.date.fromisoformat(date)
    match_batch_submit(
        payloads=[
            match_payload(
                club,
                [(list(players), score) for players, score in sides],
                id=id,
                date=date,
                category=category,
                discipline=discipline,
            )
        ],
        submitted_by=None,
        now=now or received(played),
        channel="api",
    )


def random_results(
    *,
    seed: int,
    matches: int,
    players: int,
    months: Sequence[Month],
    discipline: str = "fido",
) -> None:
    """Many matches written straight with ``bulk_create`` (valid rows, no service): random
    tables of 2..6 sides, teams now and then, random categories, late results, voids."""
    import random

    from matches.models import (
        CATEGORY_BASE,
        Match,
        Side,
        SideMember,
        Submission,
    )
    from matches.models import Player as PlayerModel

    rng = random.Random(seed)
    club = Club.objects.create(club_id=f"CLUB-R{seed}", name="Random club", country="DE")
    people = PlayerModel.objects.bulk_create(
        [
            PlayerModel(
                player_id=f"P-R{seed}-{rng.randrange(10**6):06d}-{n}",
                name=f"Player {n}",
                country=rng.choice(["DE", "AT", "FR"]),
                club=club,
            )
            for n in range(players)
        ]
    )
    with recording():
        submission = Submission.objects.create(
            club=club, received_at=received(months[0].first_day), channel="import"
        )
    categories = list(CATEGORY_BASE)
    for n in range(matches):
        played = rng.choice(list(months))
        counting = played + (1 if rng.random() < 0.1 else 0)
        voided = rng.random() < 0.05
        void_month = (played + rng.randrange(0, 3)).first_day if voided else None
        category = rng.choice(categories)
        match = Match.objects.create(
            club=club,
            external_id=f"r{n}",
            date_played=played.first_day,
            discipline=discipline,
            category=category,
            submission=submission,
            received_at=submission.received_at,
            status="on_time",
            counting_month=counting.first_day,
            voided_at=submission.received_at if voided else None,
            void_effective_month=void_month,
        )
        k = rng.randrange(2, 7)
        seated = rng.sample(people, k * 2)
        sides = Side.objects.bulk_create(
            [Side(match=match, position=i + 1, score=rng.randrange(-5, 8)) for i in range(k)]
        )
        members = []
        for i, side in enumerate(sides):
            team = seated[2 * i : 2 * i + (2 if rng.random() < 0.2 else 1)]
            members += [
                SideMember(
                    match=match,
                    side=side,
                    player=p,
                    discipline=discipline,
                    month_played=played.first_day,
                    counting_month=counting.first_day,
                    base=CATEGORY_BASE[category],
                    side_position=side.position,
                    score=side.score,
                    void_effective_month=void_month,
                )
                for p in team
            ]
        SideMember.objects.bulk_create(members)


def list_columns(ranking: fladub.RankingList, *names: str) -> list[tuple[Any, ...]]:
    """A computed list's rows, in list order, as tuples of the columns ``names``."""
    return list(zip(*(getattr(ranking, name).tolist() for name in names), strict=True))


def worked_example_lists() -> tuple[Club, list[Player]]:
    """L(March) and L(April) 2026 of the worked example (players P-A..P-D of CLUB-BER),
    plus two players from Austria (P-E, P-F of CLUB-VIE); the Berlin club and the six
    players, in that order."""
    from tests.matches.factories import ClubFactory, PlayerFactory

    berlin, vienna = ClubFactory(club_id="CLUB-BER"), ClubFactory(club_id="CLUB-VIE")
    a, b, c, d = (PlayerFactory(player_id=f"P-{n}", name=f"Anna {n}", club=berlin) for n in "ABCD")
    e, f = (
        PlayerFactory(player_id=f"P-{n}", name=f"Ewald {n}", country="AT", club=vienna)
        for n in "EF"
    )
    submit_table(berlin, [([a], 57), ([b], 31), ([c], 31), ([d], -4)], id="t1", date="2026-03-14")
    submit_table(vienna, [([e], 3), ([f], 1)], id="v1", date="2026-04-02")
    for month in ("2026-03", "2026-04"):
        close(month)
    return berlin, [a, b, c, d, e, f]
