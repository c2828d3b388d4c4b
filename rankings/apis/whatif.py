"""The what-if calculator through the API: ``POST /api/rankings/{discipline}/whatif``.

Body::

    {"player_id": "P-000123", "month": "2026-04",
     "results": [{"category": "club", "placing": 1,
                  "opponents": [{"player_id": "P-000456", "placing": 2}, ...]}, ...]}

Each result is one table: the player's ``placing`` (1 = first; ties share a placing) or
``score`` (higher is better) and each opponent's, all by placing or all by score; at most
:data:`MAX_RESULTS` results of 1..8 opponents. ``month`` must be the open month (the next
list). Out: the player's ``fladub`` and ``rank`` in the projected list with those results
(:func:`rankings.selectors.whatif.what_if`), the ``projected_fladub`` and
``projected_rank`` without them, each result's match points (``result_points``),
``provisional: true`` and ``as_of``. Writes nothing.

400 naming the field, in the request's language (``Accept-Language``): an unknown player
or opponent, the player among their own opponents or an opponent twice, a placing outside
1..number of sides, placings mixed with scores, a month already closed or not the next
list, too many results. 404: unknown discipline, or no projection yet.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from matches.apis.errors import ApiProblems
from matches.models import Player
from matches.months import Month
from matches.validation import Problem

from .. import fladub
from ..numbers import fixed
from ..selectors.cycle import open_month
from ..selectors.projection import projected_list
from ..selectors.whatif import Hypothetical, what_if
from . import inputs
from .fields import decimal_field, fladub_field

MAX_RESULTS = 20
"""More results than a list's best 20 cannot change the answer more; a bound on the work."""


class OpponentInput(serializers.Serializer):
    player_id = serializers.CharField(max_length=64)
    placing = serializers.IntegerField(required=False, min_value=1)
    score = serializers.IntegerField(required=False, min_value=-(10**6), max_value=10**6)


class ResultInput(serializers.Serializer):
    category = serializers.ChoiceField(choices=list(fladub.CATEGORY_BASE), default="club")
    placing = serializers.IntegerField(required=False, min_value=1)
    score = serializers.IntegerField(required=False, min_value=-(10**6), max_value=10**6)
    opponents = serializers.ListField(
        child=OpponentInput(), min_length=1, max_length=fladub.MAX_SIDES - 1
    )


class WhatIfInput(serializers.Serializer):
    player_id = serializers.CharField(max_length=64)
    month = serializers.CharField(max_length=7)
    results = serializers.ListField(child=ResultInput(), min_length=1, max_length=MAX_RESULTS)


class WhatIfOutput(serializers.Serializer):
    player_id = serializers.CharField()
    discipline = serializers.CharField()
    month = serializers.CharField()
    provisional = serializers.BooleanField()
    as_of = serializers.DateTimeField()
    fladub = fladub_field()
    rank = serializers.IntegerField(allow_null=True)
    projected_fladub = fladub_field()
    projected_rank = serializers.IntegerField(allow_null=True)
    result_points = serializers.ListField(
        child=decimal_field(4, "a result's match points, a decimal string with 4 places")
    )


def _refuse(path: str, message: str) -> ApiProblems:
    return ApiProblems([Problem(path=path, message=message)])


def _month(text: str, discipline: str) -> Month:
    try:
        month = Month.parse(text)
    except ValueError as exc:
        raise _refuse("month", _("Give the month as YYYY-MM.")) from exc
    next_list = open_month(discipline)
    if next_list is not None and month < next_list:
        raise _refuse("month", _("%(month)s is already closed.") % {"month": month})
    if month != next_list:
        raise _refuse(
            "month", _("Only results of %(month)s count in the next list.") % {"month": next_list}
        )
    return month


def _scores(result: dict[str, Any], path: str) -> tuple[int, list[int]]:
    """The player's and each opponent's score (a placing p is the score -p)."""
    by = "placing" if "placing" in result else "score"
    if by not in result:
        raise _refuse(f"{path}.placing", _("Give the player's placing or score."))
    other = "score" if by == "placing" else "placing"
    for m, opponent in enumerate(result["opponents"]):
        if by not in opponent or other in opponent:
            raise _refuse(
                f"{path}.opponents[{m}].{by}",
                _("Give every side a placing, or every side a score."),
            )
    given = [result[by]] + [o[by] for o in result["opponents"]]
    if by == "score":
        return given[0], given[1:]
    sides = len(given)
    for m, place in enumerate(given):
        if place > sides:
            where = f"{path}.placing" if m == 0 else f"{path}.opponents[{m - 1}].placing"
            message = _("A table of %(sides)d sides has no place %(place)d.")
            raise _refuse(where, message % {"sides": sides, "place": place})
    return -given[0], [-p for p in given[1:]]


def _tables(data: dict[str, Any]) -> tuple[Player, list[Hypothetical]]:
    """The player and the hypothetical tables; refuses unknown or repeated players."""
    ids = {data["player_id"]} | {o["player_id"] for r in data["results"] for o in r["opponents"]}
    found = {
        p.player_id: p for p in Player.objects.filter(player_id__in=ids, merged_into__isnull=True)
    }
    unknown = _("No player has the federation id %(id)s.")
    if data["player_id"] not in found:
        raise _refuse("player_id", unknown % {"id": data["player_id"]})
    player = found[data["player_id"]]
    tables = []
    for n, result in enumerate(data["results"]):
        path = f"results[{n}]"
        seen = {player.player_id}
        for m, opponent in enumerate(result["opponents"]):
            their = opponent["player_id"]
            if their not in found:
                raise _refuse(f"{path}.opponents[{m}].player_id", unknown % {"id": their})
            if their in seen:
                message = _("%(id)s is already at this table.") % {"id": their}
                raise _refuse(f"{path}.opponents[{m}].player_id", message)
            seen.add(their)
        own, theirs = _scores(result, path)
        opponents = tuple(
            (found[o["player_id"]].pk, score)
            for o, score in zip(result["opponents"], theirs, strict=True)
        )
        tables.append(Hypothetical(category=result["category"], score=own, opponents=opponents))
    return player, tables


class WhatIfAPI(inputs.PublicAPI):
    @extend_schema(
        operation_id="rankings_whatif",
        parameters=[inputs.DISCIPLINE],
        request=WhatIfInput,
        responses={
            200: WhatIfOutput,
            400: OpenApiResponse(description="bad input, naming the field"),
            404: OpenApiResponse(description="unknown discipline or no projection yet"),
        },
        summary="A player's number and rank in the next list with hypothetical results",
    )
    def post(self, request: Request, discipline: str) -> Response:
        discipline = inputs.discipline(discipline)
        given = WhatIfInput(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        month = _month(data["month"], discipline)
        player, tables = _tables(data)
        projected = projected_list(discipline)
        if projected is None or projected.ranking_list.month != month.first_day:
            raise NotFound(_("There is no projected list yet."))
        found = what_if(player.pk, discipline=discipline, projected=projected, tables=tables)
        return Response(
            WhatIfOutput(
                {
                    "player_id": player.player_id,
                    "discipline": discipline,
                    "month": str(found.month),
                    "provisional": True,
                    "as_of": found.as_of,
                    "fladub": Decimal(found.fladub_cents) / 100,
                    "rank": found.rank,
                    "projected_fladub": Decimal(found.projected_cents) / 100,
                    "projected_rank": found.projected_rank,
                    "result_points": [Decimal(fixed(p, 4)) for p in found.results_points],
                }
            ).data
        )
