"""Find a player by what a secretary knows: part of the name, the federation id, the club
(id or name) or the country (issue 15, item 1: the type-ahead behind every player field).

In: the typed text. Out: a queryset of players who are not merged into another record,
with their club loaded, ordered by name then federation id (so namesakes stay in a stable
order and are told apart by id, club and country). Every word of the text must match one
of: the name (anywhere), the federation id (from its start), the club's id (from its
start) or name (anywhere), the country (its two-letter code, exactly). Public fields only
are read; nothing is written.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet, Value
from django.db.models.functions import Concat

from matches.models import Club, Player

MIN_QUERY_LENGTH = 2
MAX_QUERY_LENGTH = 100
MAX_WORDS = 5


def query_words(text: str) -> list[str]:
    """The words of ``text`` that count (at most MAX_WORDS), or [] when it is too short."""
    text = " ".join(text.split())
    if len(text) < MIN_QUERY_LENGTH:
        return []
    return text.split(" ")[:MAX_WORDS]


def player_search(text: str) -> QuerySet[Player]:
    """The players whose name, id, club or country match every word of ``text``.

    Each word's clubs are found first (one query on the clubs), so that every condition on
    the players is on their own columns, each with its index on PostgreSQL (the name's
    trigrams, the id's prefix, the club, the country): a rare word reads its few players,
    not all of them (docs/performance.md, "Player type-ahead")."""
    words = query_words(text)
    if not words:
        return Player.objects.none()
    found = Player.objects.filter(merged_into__isnull=True).select_related("club")
    for word in words:
        clubs = Club.objects.filter(Q(club_id__istartswith=word) | Q(name__icontains=word))
        matches = (
            Q(name__icontains=word)
            | Q(player_id__istartswith=word)
            | Q(club_id__in=list(clubs.values_list("pk", flat=True)))
        )
        if len(word) == 2 and word.isalpha():
            matches |= Q(country=word.upper())
        found = found.filter(matches)
    # By the name as an expression, the same order: ordered by the column itself, a page of
    # a few matches walked the name's index through every player (the planner expects the
    # matches spread through it; a full name: 1,757 ms and 14,147 buffers for one player).
    return found.order_by(Concat("name", Value("")), "player_id")
