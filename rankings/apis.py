"""The ranking side of the REST API: published lists, downloads, a player's history and results.

Endpoints (mounted under ``/api/``; public, no login; throttled like every API view):

- ``GET /api/rankings/{discipline}``: the current list (the one the pointer shows), paged,
  with ``country``, ``club`` and ``q`` (name or federation id) filters;
- ``GET /api/rankings/{discipline}/lists``: the archive, every published month;
- ``GET /api/rankings/{discipline}/{YYYY-MM}``: the list of a month, paged and filtered;
- ``GET /api/rankings/{discipline}/{YYYY-MM}.csv`` / ``.json``: the whole list, streamed
  (the ``export_ranking`` formats);
- ``GET /api/rankings/{discipline}/players/{player_id}``: FLADUB and rank per month;
- ``GET /api/rankings/{discipline}/players/{player_id}/results[?month=YYYY-MM]``: every
  result counting in that list (default: the current one) with its age, weight, weighted
  points and whether it is among the best 20.

Errors: ``{"errors": [{"path", "message"}]}`` (:mod:`matches.apis.errors`): 400 for a bad
month (``2026-13``) or page, 404 for an unknown discipline, list or player.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.models import Discipline, Player
from matches.months import Month

from . import export, selectors
from .models import RankingEntry, RankingList

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500

_DISCIPLINE = OpenApiParameter(
    "discipline", str, OpenApiParameter.PATH, enum=Discipline.values, description="discipline"
)
_MONTH = OpenApiParameter(
    "month", str, OpenApiParameter.PATH, description="the list's month, YYYY-MM"
)
_FILTERS = [
    OpenApiParameter("page", int, description="page number, from 1"),
    OpenApiParameter("page_size", int, description=f"entries per page (max {MAX_PAGE_SIZE})"),
    OpenApiParameter("country", str, description="ISO 3166-1 alpha-2 country of the player"),
    OpenApiParameter("club", str, description="club id of the player's home club"),
    OpenApiParameter("q", str, description="part of the player's name, or a federation id"),
]


# --- input checks -------------------------------------------------------------------------------


def _discipline(value: str) -> str:
    if value not in Discipline.values:
        raise NotFound(f"unknown discipline {value!r} (one of {', '.join(Discipline.values)})")
    return value


def _month(value: str, path: str = "month") -> Month:
    try:
        return Month.parse(value)
    except ValueError as exc:
        raise ValidationError({path: [str(exc)]}) from exc


def _published(discipline: str, month: Month) -> RankingList:
    ranking_list = selectors.list_for_month(discipline=discipline, month=month)
    if ranking_list is None:
        raise NotFound(f"no published {discipline} list for {month}")
    return ranking_list


def _current(discipline: str) -> RankingList:
    ranking_list = selectors.current_list(discipline=discipline)
    if ranking_list is None:
        raise NotFound(f"no {discipline} list has been published yet")
    return ranking_list


def _player(player_id: str) -> Player:
    player = selectors.resolve_player(player_id)
    if player is None:
        raise NotFound(f"unknown player {player_id!r}")
    return player


class _Paging(serializers.Serializer):
    page = serializers.IntegerField(min_value=1, default=1)
    page_size = serializers.IntegerField(
        min_value=1, max_value=MAX_PAGE_SIZE, default=DEFAULT_PAGE_SIZE
    )
    country = serializers.RegexField(r"^[A-Za-z]{2}$", required=False)
    club = serializers.CharField(max_length=48, required=False)
    q = serializers.CharField(max_length=100, required=False)


# --- output -------------------------------------------------------------------------------------


class ListOutput(serializers.Serializer):
    discipline = serializers.CharField()
    month = serializers.SerializerMethodField()
    version = serializers.IntegerField()
    published_at = serializers.DateTimeField()
    entries = serializers.IntegerField(source="entry_count")

    def get_month(self, obj: RankingList) -> str:
        return str(Month.of(obj.month))


class EntryOutput(serializers.Serializer):
    rank = serializers.IntegerField()
    player_id = serializers.CharField(source="player.player_id")
    name = serializers.CharField(source="player.name")
    country = serializers.CharField(source="player.country")
    club = serializers.CharField(source="player.club.club_id", default=None)
    fladub = serializers.DecimalField(max_digits=12, decimal_places=2)
    results_counted = serializers.IntegerField()
    previous_rank = serializers.IntegerField(allow_null=True)
    movement = serializers.IntegerField(allow_null=True)


class ListPageOutput(serializers.Serializer):
    list = ListOutput()
    count = serializers.IntegerField()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    next = serializers.CharField(allow_null=True)
    previous = serializers.CharField(allow_null=True)
    results = EntryOutput(many=True)


def _page(request: Request, ranking_list: RankingList) -> dict[str, Any]:
    paging = _Paging(data=request.query_params)
    paging.is_valid(raise_exception=True)
    options = paging.validated_data
    entries: QuerySet[RankingEntry] = selectors.list_entries(
        ranking_list=ranking_list,
        country=options.get("country"),
        club=options.get("club"),
        search=options.get("q"),
    )
    filtered = any(options.get(name) for name in ("country", "club", "q"))
    # Unfiltered, the stored entry count saves a COUNT(*) over a list of a million rows.
    count = entries.count() if filtered else ranking_list.entry_count
    size, number = options["page_size"], options["page"]
    pages = max(1, -(-count // size))
    if number > pages:
        raise NotFound(f"page {number} is after the last page, {pages}")
    start = (number - 1) * size

    def link(page: int | None) -> str | None:
        if page is None:
            return None
        query = request.query_params.copy()
        query["page"] = str(page)
        return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")

    return {
        "list": ranking_list,
        "count": count,
        "page": number,
        "pages": pages,
        "next": link(number + 1 if number < pages else None),
        "previous": link(number - 1 if number > 1 else None),
        "results": list(entries[start : start + size])
        if filtered
        else _slice(entries, start, size),
    }


def _slice(entries: QuerySet[RankingEntry], start: int, size: int) -> list[RankingEntry]:
    """Entries ``start .. start + size`` of a whole list without an OFFSET over the skipped
    ones: a rank is 1 + the number of players above, so the first entry of rank r sits at
    position r - 1; the page starts inside the group of the largest rank <= start + 1."""
    first = entries.filter(rank__lte=start + 1).order_by("-rank").values_list("rank", flat=True)[:1]
    rank = first[0] if first else 1
    skip = start - (rank - 1)
    return list(entries.filter(rank__gte=rank)[skip : skip + size])


# --- views --------------------------------------------------------------------------------------


class _PublicAPI(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []


class CurrentListAPI(_PublicAPI):
    @extend_schema(
        operation_id="rankings_current",
        parameters=[_DISCIPLINE, *_FILTERS],
        responses={200: ListPageOutput, 404: OpenApiResponse(description="no list yet")},
        summary="The current published list of a discipline, paged and filtered",
    )
    def get(self, request: Request, discipline: str) -> Response:
        ranking_list = _current(_discipline(discipline))
        return Response(ListPageOutput(_page(request, ranking_list)).data)


class MonthListAPI(_PublicAPI):
    @extend_schema(
        operation_id="rankings_month",
        parameters=[_DISCIPLINE, _MONTH, *_FILTERS],
        responses={200: ListPageOutput, 400: OpenApiResponse(description="bad month")},
        summary="The published list of a month, paged and filtered",
    )
    def get(self, request: Request, discipline: str, month: str) -> Response:
        ranking_list = _published(_discipline(discipline), _month(month))
        return Response(ListPageOutput(_page(request, ranking_list)).data)


class ArchiveAPI(_PublicAPI):
    @extend_schema(
        operation_id="rankings_archive",
        parameters=[_DISCIPLINE],
        responses={200: ListOutput(many=True)},
        summary="Every published list of a discipline, newest month first",
    )
    def get(self, request: Request, discipline: str) -> Response:
        lists = selectors.published_lists(discipline=_discipline(discipline))
        return Response(ListOutput(lists, many=True).data)


class _CSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None):  # type: ignore[no-untyped-def]
        return data


class DownloadAPI(_PublicAPI):
    """The whole list as a file, streamed row chunk by row chunk."""

    renderer_classes = [JSONRenderer, _CSVRenderer]

    @extend_schema(
        operation_id="rankings_download",
        parameters=[
            _DISCIPLINE,
            _MONTH,
            OpenApiParameter(
                "fmt", str, OpenApiParameter.PATH, enum=list(export.FORMATS), description="format"
            ),
        ],
        responses={
            (200, "text/csv"): OpenApiTypes.STR,
            (200, "application/json"): OpenApiTypes.OBJECT,
        },
        summary="Download a published list (CSV or JSON, the export_ranking formats)",
    )
    def get(self, request: Request, discipline: str, month: str, fmt: str) -> StreamingHttpResponse:
        discipline = _discipline(discipline)
        if fmt not in export.FORMATS:
            raise NotFound(f"no download as {fmt!r} (one of {', '.join(export.FORMATS)})")
        ranking_list = _published(discipline, _month(month))
        content_type = "text/csv" if fmt == "csv" else "application/json"
        response = StreamingHttpResponse(
            export.pieces(ranking_list, fmt), content_type=f"{content_type}; charset=utf-8"
        )
        filename = f"fido-ranking-{discipline}-{Month.of(ranking_list.month)}.{fmt}"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

    def handle_exception(self, exc: Exception) -> Response:
        # Errors are JSON whatever the file's format.
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = "application/json"
        return super().handle_exception(exc)


class HistoryRowOutput(serializers.Serializer):
    month = serializers.CharField()
    fladub = serializers.DecimalField(max_digits=12, decimal_places=2)
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


class PlayerHistoryAPI(_PublicAPI):
    @extend_schema(
        operation_id="rankings_player_history",
        parameters=[_DISCIPLINE, OpenApiParameter("player_id", str, OpenApiParameter.PATH)],
        responses={200: HistoryOutput, 404: OpenApiResponse(description="unknown player")},
        summary="A player's FLADUB and rank in every published list, oldest first",
    )
    def get(self, request: Request, discipline: str, player_id: str) -> Response:
        discipline = _discipline(discipline)
        player = _player(player_id)
        history = selectors.player_history(player=player, discipline=discipline)
        return Response(
            HistoryOutput(
                {
                    "player_id": player.player_id,
                    "name": player.name,
                    "country": player.country,
                    "discipline": discipline,
                    "history": history,
                }
            ).data
        )


class CountingResultOutput(serializers.Serializer):
    match_id = serializers.CharField(source="match.external_id")
    club = serializers.CharField(source="match.club.club_id")
    date = serializers.DateField(source="date_played")
    category = serializers.CharField()
    counting_month = serializers.CharField()
    points = serializers.FloatField()
    age = serializers.IntegerField(help_text="months between the match and the list")
    weight = serializers.DecimalField(max_digits=6, decimal_places=4, help_text="(12 - age) / 12")
    weighted = serializers.FloatField(help_text="points * weight")
    in_best = serializers.BooleanField(help_text="among the 20 results summed")


class BreakdownOutput(serializers.Serializer):
    player_id = serializers.CharField(source="player.player_id")
    discipline = serializers.CharField(source="ranking_list.discipline")
    month = serializers.SerializerMethodField()
    fladub = serializers.DecimalField(max_digits=12, decimal_places=2)
    results = CountingResultOutput(many=True)

    def get_month(self, obj: selectors.Breakdown) -> str:
        return str(Month.of(obj.ranking_list.month))


class PlayerResultsAPI(_PublicAPI):
    @extend_schema(
        operation_id="rankings_player_results",
        parameters=[
            _DISCIPLINE,
            OpenApiParameter("player_id", str, OpenApiParameter.PATH),
            OpenApiParameter("month", str, description="the list's month (default: current)"),
        ],
        responses={200: BreakdownOutput, 404: OpenApiResponse(description="unknown player")},
        summary="Every result counting for a player in a list, with its weight",
    )
    def get(self, request: Request, discipline: str, player_id: str) -> Response:
        discipline = _discipline(discipline)
        player = _player(player_id)
        month = request.query_params.get("month")
        ranking_list = _published(discipline, _month(month)) if month else _current(discipline)
        breakdown = selectors.player_breakdown(player=player, ranking_list=ranking_list)
        return Response(BreakdownOutput(breakdown).data)
