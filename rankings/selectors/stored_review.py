"""The admin's review as stored with its projection, and its stored form.

In: a projected list's id. Out: :func:`stored_review` — the :class:`StoredReview` computed
with it on the worker (:mod:`rankings.services.projection_review`): the anomaly flags of
each question (:class:`rankings.selectors.anomalies.Flag`, with the matches shown and the
exact counts), the movers (:class:`rankings.selectors.review_movers.Movers`) and when they
were computed; None when the projection has none (it was projected before reviews were
stored). One query; it never computes a flag.

:func:`flags_stored_form` and :func:`movers_stored_form` give the JSON the service stores;
reading it back gives equal objects (dates and instants are tagged, so that a flag's
figures keep their types: ``{"date": "2026-07-12"}``, ``{"instant": "...+00:00"}``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..models import ProjectionReview
from .anomalies import KINDS, Flag, MatchRef
from .review_movers import Mover, Movers


@dataclass(frozen=True)
class StoredReview:
    computed_at: dt.datetime
    flags: dict[str, list[Flag]]
    """Each question's kind (:data:`rankings.selectors.anomalies.KINDS`) -> its flags."""
    movers: Movers


def _value_form(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return {"instant": value.isoformat()}
    if isinstance(value, dt.date):
        return {"date": value.isoformat()}
    return value


def _value(stored: Any) -> Any:
    if isinstance(stored, dict) and "instant" in stored:
        return dt.datetime.fromisoformat(stored["instant"])
    if isinstance(stored, dict) and "date" in stored:
        return dt.date.fromisoformat(stored["date"])
    return stored


def _flag_form(flag: Flag) -> dict[str, Any]:
    return {
        "kind": flag.kind,
        "subject": flag.subject,
        "figures": {name: _value_form(v) for name, v in flag.figures.items()},
        "matches": [
            {name: _value_form(v) for name, v in dataclasses.asdict(m).items()}
            for m in flag.matches
        ],
        "match_count": flag.match_count,
    }


def _flag(stored: Mapping[str, Any]) -> Flag:
    return Flag(
        kind=stored["kind"],
        subject=stored["subject"],
        figures={name: _value(v) for name, v in stored["figures"].items()},
        matches=[MatchRef(**{name: _value(v) for name, v in m.items()}) for m in stored["matches"]],
        match_count=stored["match_count"],
    )


def flags_stored_form(flags: Mapping[str, list[Flag]]) -> dict[str, list[dict[str, Any]]]:
    return {kind: [_flag_form(flag) for flag in found] for kind, found in flags.items()}


def movers_stored_form(movers: Movers) -> dict[str, Any]:
    return dataclasses.asdict(movers)


def _movers(stored: Mapping[str, Any]) -> Movers:
    def rows(name: str) -> list[Mover]:
        return [Mover(**m) for m in stored[name]]

    return Movers(
        up=rows("up"),
        down=rows("down"),
        new_entries=rows("new_entries"),
        new_count=stored["new_count"],
        drop_outs=rows("drop_outs"),
        drop_count=stored["drop_count"],
    )


def stored_review(ranking_list_id: int) -> StoredReview | None:
    """The review stored with the projected list, or None (one query)."""
    found = ProjectionReview.objects.filter(ranking_list_id=ranking_list_id).first()
    if found is None:
        return None
    return StoredReview(
        computed_at=found.computed_at,
        flags={kind: [_flag(f) for f in found.flags.get(kind, [])] for kind in KINDS},
        movers=_movers(found.movers),
    )
