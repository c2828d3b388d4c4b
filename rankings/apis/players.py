"""A player through the API: their history, and the results behind their number.

- ``GET /api/rankings/{discipline}/players/{player_id}``: FLADUB, rank, results counted,
  previous rank and movement in every published list that holds the player, oldest first
  (:func:`rankings.selectors.player_history.player_history`, the player page's history);
- ``GET /api/rankings/{discipline}/players/{player_id}/results[?month=YYYY-MM]``: the
  results counting in that list (default: the current one) with their age, weight,
  weighted points and whether each is among the best 20, best first, a page at a time as
  the player page shows them (``page``, ``page_size``: 100 by default, at most 500; the
  best 20 are on the first page); ``count`` is the number of all of them, ``next`` /
  ``previous`` the neighbouring pages' addresses, ``fladub`` the sum of the best 20
  (:func:`rankings.selectors.counting_results.counted_results_page`: the player page's
  table without the tables played at, which the API does not show).

A merged record's id answers for the record it was merged into.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from matches.apis.paging import page_parameters

from ..numbers import POINTS_PLACES, WEIGHT_PLACES
from ..selectors.counting_results import (
    MAX_PAGE_SIZE,
    PAGE_SIZE,
    CountedResult,
    PageOutOfRange,
    counted_results_page,
)
from ..selectors.player_history import player_history
from . import inputs
from .fields import PlayerAnswerOutput, decimal_field, fladub_field


class HistoryRowOutput(serializers.Serializer):
    month = serializers.CharField(source="list_month")
    fladub = fladub_field()
    rank = serializers.IntegerField()
    results_counted = serializers.IntegerField()
    previous_rank = serializers.IntegerField(allow_null=True)
    movement = serializers.IntegerField(allow_null=True)


class HistoryOutput(serializers.Serializer):
    player_id = serializers.CharField()
    name = serializers.CharField()
    country = serializers.CharField()
    discipline = serializers.CharField()
    history = HistoryRowOutput(many=True)


class PlayerHistoryAPI(inputs.PublicAPI):
    @inputs.player_schema(
        "rankings_player_history",
        HistoryOutput,
        "A player's FLADUB and rank in every published list, oldest first",
    )
    def get(self, request: Request, discipline: str, player_id: str) -> Response:
        discipline = inputs.discipline(discipline)
        player = inputs.player(player_id)
        points = player_history(player, discipline=discipline)
        return Response(
            HistoryOutput(
                {
                    "player_id": player.player_id,
                    "name": player.name,
                    "country": player.country,
                    "discipline": discipline,
                    "history": [point for point in points if point.listed],
                }
            ).data
        )


class CountingResultOutput(serializers.Serializer):
    match_id = serializers.CharField()
    club = serializers.CharField(source="club_id")
    date = serializers.DateField(source="date_played")
    category = serializers.CharField()
    counting_month = serializers.CharField()
    points = decimal_field(
        POINTS_PLACES, "the match points (SPEC 4.3), a decimal string with 4 places"
    )
    age = serializers.IntegerField(help_text="months between the match and the list")
    weight = decimal_field(WEIGHT_PLACES, "(12 - age) / 12, a decimal string with 4 places")
    weighted = decimal_field(POINTS_PLACES, "points * weight, a decimal string with 4 places")
    in_best = serializers.BooleanField(help_text="among the 20 results summed")


class BreakdownOutput(PlayerAnswerOutput):
    """(The schema keeps the name it was published under.)"""

    month = serializers.CharField()
    fladub = fladub_field()
    count = serializers.IntegerField(help_text="the number of all counting results")
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    next = serializers.CharField(allow_null=True)
    previous = serializers.CharField(allow_null=True)
    results = CountingResultOutput(many=True, help_text="this page's results, best first")


class _ResultsPaging(serializers.Serializer):
    page = serializers.IntegerField(min_value=1, default=1)
    page_size = serializers.IntegerField(min_value=1, max_value=MAX_PAGE_SIZE, default=PAGE_SIZE)
    month = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)


_FIELDS = CountingResultOutput().fields
_FLADUB = BreakdownOutput().fields["fladub"]


def result_data(result: CountedResult) -> dict[str, Any]:
    """What :class:`CountingResultOutput` writes for ``result`` (its own decimal fields
    format the numbers), without the serializer's per-field machinery: half of the
    response's CPU in a profile for a player with hundreds of results. A test holds the
    two equal."""
    return {
        "match_id": str(result.match_id),
        "club": str(result.club_id),
        "date": result.date_played.isoformat(),
        "category": str(result.category),
        "counting_month": str(result.counting_month),
        "points": _FIELDS["points"].to_representation(result.points),
        "age": int(result.age),
        "weight": _FIELDS["weight"].to_representation(result.weight),
        "weighted": _FIELDS["weighted"].to_representation(result.weighted),
        "in_best": bool(result.in_best),
    }


class PlayerResultsAPI(inputs.PublicAPI):
    @inputs.player_schema(
        "rankings_player_results",
        BreakdownOutput,
        "The results counting for a player in a list, with their weights, paged",
        parameters=[
            *inputs.player_in_list("the list's month (default: current)"),
            *page_parameters(MAX_PAGE_SIZE),
        ],
    )
    def get(self, request: Request, discipline: str, player_id: str) -> Response:
        discipline = inputs.discipline(discipline)
        player = inputs.player(player_id)
        paging = _ResultsPaging(data=request.query_params)
        paging.is_valid(raise_exception=True)
        options = paging.validated_data
        month = options.get("month")
        ranking_list = (
            inputs.published(discipline, inputs.month(month))
            if month
            else inputs.current(discipline)
        )
        try:
            # The page's results named by their matches' facts: the API shows no tables.
            found = counted_results_page(
                player.pk,
                discipline=discipline,
                month=ranking_list.list_month,
                page=options["page"],
                page_size=options["page_size"],
            )
        except PageOutOfRange as exc:
            raise NotFound(f"page {options['page']} is beyond the last result") from exc

        def link(target: int) -> str:
            query = request.query_params.copy()
            query["page"] = str(target)
            return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")

        return Response(
            {
                "player_id": str(player.player_id),
                "discipline": discipline,
                "month": str(found.month),
                "fladub": _FLADUB.to_representation(found.fladub),
                "count": found.count,
                "page": found.number,
                "pages": found.num_pages,
                "next": link(found.number + 1) if found.has_next else None,
                "previous": link(found.number - 1) if found.has_previous else None,
                "results": [result_data(result) for result in found.results],
            }
        )
