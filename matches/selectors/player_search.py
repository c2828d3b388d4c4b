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

from django.db.models import Q, QuerySet

from matches.models import Player

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
    """The players whose name, id, club or country match every word of ``text``."""
    words = query_words(text)
    if not words:
        return Player.objects.none()
    found = Player.objects.filter(merged_into__isnull=True).select_related("club")
    for word in words:
        matches = (
            Q(name__icontains=word)
            | Q(player_id__istartswith=word)
            | Q(club__club_id__istartswith=word)
            | Q(club__name__icontains=word)
        )
        if len(word) == 2 and word.isalpha():
            matches |= Q(country=word.upper())
        found = found.filter(matches)
    return found.order_by("name", "player_id")
