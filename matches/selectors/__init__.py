"""Read queries of the matches app, one module per question; everything public is
re-exported here, so callers write ``from matches.selectors import ...``.

- :mod:`.clubs`: the clubs a user is secretary of (:class:`SecretaryClubs`);
- :mod:`.months`: closed months of a discipline;
- :mod:`.match_lists`: matches with their sides and members, what a user may read, a
  club's submissions, the next table number;
- :mod:`.players`: player names by federation id;
- :mod:`.tokens`: the owner of an API token and their clubs.
"""

from .clubs import SecretaryClubs, is_secretary_of, secretary_clubs
from .match_lists import (
    current_revision,
    match_list,
    match_list_for,
    next_table_number,
    submissions_of,
)
from .months import is_month_closed, last_closed_month, month_or_none
from .players import player_names
from .tokens import TokenOwner, token_owner

__all__ = [
    "SecretaryClubs",
    "TokenOwner",
    "current_revision",
    "is_month_closed",
    "is_secretary_of",
    "last_closed_month",
    "match_list",
    "match_list_for",
    "month_or_none",
    "next_table_number",
    "player_names",
    "secretary_clubs",
    "submissions_of",
    "token_owner",
]
