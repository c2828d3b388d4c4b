"""The what-if calculator page: ``GET /ranking/<discipline>/whatif/``.

No login. The form (:mod:`rankings.whatif_form`) names a player and hypothetical results
of the open month; the answer is the player's number and rank in the next list with them,
beside the projected ones without them, marked provisional as of the projection. The same
checks (:mod:`rankings.whatif_question`) and the same computation
(:func:`rankings.selectors.whatif.what_if`) as ``POST /api/rankings/<d>/whatif``. Writes
nothing. Bad input is a 400 with the form again and every problem named by its row and
opponent; an unknown discipline a 404; no projection yet: the page says so (200).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from matches.disciplines import DISCIPLINES
from matches.models import Category

from .. import fladub
from ..selectors.projection import projected_list
from ..selectors.whatif import WhatIf, what_if
from ..whatif_form import refusal_error, rows_view, whatif_form
from ..whatif_question import Refused, question_checked


@require_GET
def calculator(request: HttpRequest, discipline: str) -> HttpResponse:
    if discipline not in DISCIPLINES:
        raise Http404(_("No such discipline."))
    projected = projected_list(discipline)
    month = projected.ranking_list.month if projected else None
    form = whatif_form(request.GET, default_month=f"{month:%Y-%m}" if month else "")
    answer, answer_player = None, None
    if projected is not None and form.question is not None:
        try:
            question = question_checked(form.question, discipline)
        except Refused as refused:
            form.errors.append(refusal_error(form, refused))
        else:
            answer = what_if(
                question.player.pk,
                discipline=discipline,
                projected=projected,
                tables=question.tables,
            )
            answer_player = question.player
    context: dict[str, Any] = {
        "discipline": discipline,
        "title": DISCIPLINES[discipline].title,
        "tabs": [
            (code, info.name, reverse("rankings:whatif", args=[code]), code == discipline)
            for code, info in DISCIPLINES.items()
        ],
        "projected": projected,
        "form": form,
        "errors": dict(form.errors),
        "rows": rows_view(form),
        "categories": [(c, Category(c).label) for c in fladub.CATEGORY_BASE],
        "answer": answer,
        "answer_player": answer_player,
        **(_figures(answer) if answer is not None else {}),
    }
    status = 400 if form.errors and projected is not None else 200
    return render(request, "rankings/whatif.html", context, status=status)


def _figures(answer: WhatIf) -> dict[str, Any]:
    """The answer's numbers as the page writes them (2 places, 4 for match points)."""
    return {
        "answer_fladub": number_format(answer.fladub_cents / 100, 2),
        "projected_fladub": number_format(answer.projected_cents / 100, 2),
        "result_points": [number_format(p, 4) for p in answer.results_points],
    }
