"""factory_boy factories of the matches app, and a helper to build match payloads."""

from __future__ import annotations

from typing import Any

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User

from matches.models import Club, Player, Secretary


class UserFactory(factory.django.DjangoModelFactory[User]):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pw-for-tests-123")


class AdminFactory(UserFactory):
    is_staff = True
    is_superuser = True


class ClubFactory(factory.django.DjangoModelFactory[Club]):
    class Meta:
        model = Club
        django_get_or_create = ("club_id",)

    club_id = factory.Sequence(lambda n: f"CLUB-{n + 1}")
    name = factory.Sequence(lambda n: f"Domino Club {n + 1}")
    country = "DE"
    city = "Berlin"


class PlayerFactory(factory.django.DjangoModelFactory[Player]):
    class Meta:
        model = Player
        django_get_or_create = ("player_id",)

    player_id = factory.Sequence(lambda n: f"P-{n + 1:06d}")
    name = factory.Faker("name")
    country = "DE"
    club = factory.SubFactory(ClubFactory)


class SecretaryFactory(factory.django.DjangoModelFactory[Secretary]):
    class Meta:
        model = Secretary

    user = factory.SubFactory(UserFactory)
    club = factory.SubFactory(ClubFactory)


def match_payload(
    club: Club,
    sides: list[tuple[list[Player], int]],
    *,
    id: str = "t1",
    date: str = "2026-03-14",
    discipline: str = "fido",
    category: str = "club",
    **extra: Any,
) -> dict[str, Any]:
    """A match in the submission format of SPEC.md 5.3."""
    return {
        "id": id,
        "date": date,
        "club": club.club_id,
        "discipline": discipline,
        "category": category,
        "sides": [{"players": [p.player_id for p in ps], "score": s} for ps, s in sides],
        **extra,
    }
