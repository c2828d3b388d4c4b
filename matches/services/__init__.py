"""Write services of the matches app, one module per verb; everything public is re-exported
here, so callers write ``from matches.services import ...``.

Every channel calls these (web form, CSV upload, REST API, ``import_results``). They
validate everything first through :mod:`matches.validation` and :mod:`matches.months`,
report every problem at once (:class:`InvalidSubmission`), and store nothing unless the
whole batch is valid. Writes happen in one transaction holding the discipline's shared
lock (:mod:`matches.locks`) so that no match is classified against a month that is closing.

Nothing counted is edited in place: a correction is a new revision of the match and voids
the old one from the first list it can still affect; a void is an event with who, when and
why; a merge moves results and keeps an audit row. The audit rows refuse to be saved
outside these services (:mod:`matches.audit`).

- :mod:`.submit`: :func:`match_batch_submit` (a batch, all or nothing),
  :func:`match_submit` (one match) and :func:`match_import` (one line of the admin's
  import);
- :mod:`.correct`: :func:`match_correct`, :func:`correction_deadline`;
- :mod:`.void`: :func:`match_void`;
- :mod:`.merge`: :func:`player_merge`, :func:`player_merge_undo` (within its month);
- :mod:`.players`: :func:`player_details_change`, :func:`players_details_change` (a
  player's name or country, as an event);
- :mod:`.freeze`: :func:`month_freeze` (the close of a month calls it);
- :mod:`.idempotency`: :func:`idempotency_record_store` (the API's replay records);
- :mod:`.events`: :func:`match_events_record` (the event rows every write leaves);
- :mod:`.rows`: a validated match as the rows the store writes, and back as a payload;
- :mod:`.refusals`: :class:`NotAllowed` and the deadline module's refusals in words.

The names are loaded from their modules when first used (PEP 562), so that importing one
verb's module (the close imports :mod:`.freeze`) does not load the others, the validation
and the game rules engine with them (24 ms of a close's start).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from matches.rules.exports import lazy_names

if TYPE_CHECKING:
    from matches.validation import InvalidSubmission, Problem

    from .correct import correction_deadline, match_correct
    from .freeze import month_freeze
    from .merge import player_merge, player_merge_undo
    from .players import NewDetails, player_details_change, players_details_change
    from .refusals import NotAllowed, rejection_text
    from .rows import match_payload
    from .submit import SubmitOutcome, match_batch_submit, match_import, match_submit
    from .void import match_void

__all__ = [
    "InvalidSubmission",
    "NewDetails",
    "NotAllowed",
    "Problem",
    "SubmitOutcome",
    "correction_deadline",
    "match_batch_submit",
    "match_correct",
    "match_import",
    "match_payload",
    "match_submit",
    "match_void",
    "month_freeze",
    "player_details_change",
    "player_merge",
    "player_merge_undo",
    "players_details_change",
    "rejection_text",
]

__getattr__, __dir__ = lazy_names(
    globals(),
    {
        "InvalidSubmission": "matches.validation",
        "Problem": "matches.validation",
        "correction_deadline": "matches.services.correct",
        "match_correct": "matches.services.correct",
        "month_freeze": "matches.services.freeze",
        "player_merge": "matches.services.merge",
        "player_merge_undo": "matches.services.merge",
        "NewDetails": "matches.services.players",
        "player_details_change": "matches.services.players",
        "players_details_change": "matches.services.players",
        "NotAllowed": "matches.services.refusals",
        "rejection_text": "matches.services.refusals",
        "match_payload": "matches.services.rows",
        "SubmitOutcome": "matches.services.submit",
        "match_batch_submit": "matches.services.submit",
        "match_import": "matches.services.submit",
        "match_submit": "matches.services.submit",
        "match_void": "matches.services.void",
    },
)
