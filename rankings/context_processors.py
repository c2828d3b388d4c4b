"""``close_holds`` in every template: the disciplines whose close is held
(:func:`rankings.selectors.holds.close_holds`), read only when a template uses it (the
secretaries' pages do; a public page pays nothing)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from .selectors.holds import close_holds


def holds(request: HttpRequest) -> dict[str, Any]:
    return {"close_holds": close_holds}  # a callable: the template calls it when it reads it
