"""Whether a discipline's close is held: the latest :class:`~rankings.models.CloseHold`
event of each discipline, when it is a hold (who, when, why). One query for all
disciplines; the beat (:mod:`rankings.services.schedule`), the dashboard and the
secretaries' pages (:mod:`rankings.context_processors`) read it here."""

from __future__ import annotations

from matches.disciplines import CODES

from ..models import CloseHold


def close_holds() -> dict[str, CloseHold]:
    """The disciplines whose close is held, with the hold event."""
    latest: dict[str, CloseHold] = {}
    for event in CloseHold.objects.select_related("by").order_by("discipline", "-at", "-id"):
        latest.setdefault(event.discipline, event)
    return {
        code: event
        for code, event in latest.items()
        if event.action == CloseHold.Action.HOLD and code in CODES
    }


def close_hold(discipline: str) -> CloseHold | None:
    """The hold of the discipline's close, or None when it is not held."""
    event = CloseHold.objects.select_related("by").filter(discipline=discipline).first()
    return event if event is not None and event.action == CloseHold.Action.HOLD else None
