"""Published lists through the API: the current list and a month's, paged and filtered; the
archive; a whole list as a file.

- ``GET /api/rankings/{discipline}`` / ``.../{YYYY-MM}``: a page of the list
  (:func:`rankings.selectors.list_page.list_page`, the ranking page's selector), with
  ``page``, ``page_size`` (at most 500) and the filters ``country``, ``club`` and ``q``
  (part of a name, or a federation id); ``count`` is the number of entries of the list or
  of the filtered view, ``next`` / ``previous`` the neighbouring pages' addresses;
- ``GET /api/rankings/{discipline}/lists``: every published list, newest month first;
- ``GET /api/rankings/{discipline}/{YYYY-MM}.csv`` / ``.json``: the whole list, streamed
  (the ``export_ranking`` formats, :mod:`rankings.export`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from matches.apis.paging import page_parameters

from .. import export, http_cache
from ..numbers import cents_text
from ..selectors.list_page import MAX_PAGE_SIZE, PageOutOfRange, RankingFilters, list_page
from ..selectors.lists import ListInfo, published_lists
from . import inputs
from .fields import fladub_field

DEFAULT_PAGE_SIZE = 50

_FILTERS = [
    *page_parameters(MAX_PAGE_SIZE),
    OpenApiParameter("country", str, description="ISO 3166-1 alpha-2 country of the player"),
    OpenApiParameter("club", str, description="club id of the player's home club"),
    OpenApiParameter("q", str, description="part of the player's name, or a federation id"),
]


class _Paging(serializers.Serializer):
    page = serializers.IntegerField(min_value=1, default=1)
    page_size = serializers.IntegerField(
        min_value=1, max_value=MAX_PAGE_SIZE, default=DEFAULT_PAGE_SIZE
    )
    country = serializers.RegexField(r"^[A-Za-z]{2}$", required=False)
    club = serializers.CharField(max_length=48, required=False)
    q = serializers.CharField(max_length=100, required=False)


class SealOutput(serializers.Serializer):
    """What anyone can check the list against (docs/verification.md)."""

    content_sha256 = serializers.CharField(help_text="SHA-256 of the list's CSV download")
    inputs_sha256 = serializers.CharField(allow_null=True)
    inputs_count = serializers.IntegerField(allow_null=True)
    fladub_version = serializers.CharField(allow_null=True)
    code_version = serializers.CharField(allow_null=True)


class ListOutput(serializers.Serializer):
    discipline = serializers.CharField()
    month = serializers.CharField(source="list_month")
    version = serializers.IntegerField(
        source="edition",
        allow_null=True,
        help_text="1: the close of the month; 2, 3, ...: its errata; null: the projection",
    )
    superseded = serializers.BooleanField(help_text="a later version replaced this one")
    published_at = serializers.DateTimeField(
        allow_null=True, help_text="null for the projected list (never published)"
    )
    entries = serializers.IntegerField(source="entry_count")
    seal = SealOutput(allow_null=True)


class EntryOutput(serializers.Serializer):
    rank = serializers.IntegerField()
    player_id = serializers.CharField()
    name = serializers.CharField()
    country = serializers.CharField()
    club = serializers.CharField(source="club_id", allow_null=True)
    fladub = fladub_field()
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


def entries_data(rows: Sequence[Any]) -> list[dict[str, Any]]:
    """What ``EntryOutput(rows, many=True).data`` is for the rows of a page
    (:class:`rankings.selectors.list_page.RankingPage`), built directly (the serializer stays
    the schema's description): DRF's calls per row and field were about a third of the
    Python of a page of 50 (cProfile, 2026-11-28). ``tests/rankings/test_api.py`` holds the
    two equal, rows with no club, no previous rank and negative movements included."""
    return [
        {
            "rank": row.rank,
            "player_id": row.player_id,
            "name": row.name,
            "country": row.country,
            "club": row.club_id,
            "fladub": cents_text(row.fladub_cents),
            "results_counted": row.results_counted,
            "previous_rank": row.previous_rank,
            "movement": row.movement,
        }
        for row in rows
    ]


def page_data(page: dict[str, Any]) -> dict[str, Any]:
    """What ``ListPageOutput(page).data`` is (:func:`_page`'s answer), its rows by
    :func:`entries_data`."""
    return {
        "list": ListOutput(page["list"]).data,
        **{key: page[key] for key in ("count", "page", "pages", "next", "previous")},
        "results": entries_data(page["results"]),
    }


def _page(request: Request, ranking_list: ListInfo) -> dict[str, Any]:
    paging = _Paging(data=request.query_params)
    paging.is_valid(raise_exception=True)
    options = paging.validated_data
    filters = RankingFilters(
        q=options.get("q", "").strip(),
        country=options.get("country", ""),
        club=options.get("club", ""),
    )
    try:
        page = list_page(
            ranking_list, filters=filters, page=options["page"], page_size=options["page_size"]
        )
    except PageOutOfRange as exc:
        raise NotFound(str(exc)) from exc
    number = options["page"]

    def link(target: int | None) -> str | None:
        if target is None:
            return None
        query = request.query_params.copy()
        query["page"] = str(target)
        return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")

    return {
        "list": ranking_list,
        "count": page.total,
        "page": number,
        "pages": page.num_pages,
        "next": link(number + 1 if page.has_next else None),
        "previous": link(number - 1 if page.has_previous else None),
        "results": page.entries,
    }


class CurrentListAPI(inputs.PublicAPI):
    @extend_schema(
        operation_id="rankings_current",
        parameters=[inputs.DISCIPLINE, *_FILTERS],
        responses={200: ListPageOutput, 404: OpenApiResponse(description="no list yet")},
        summary="The current published list of a discipline, paged and filtered",
    )
    def get(self, request: Request, discipline: str) -> Response:
        ranking_list = inputs.current(inputs.discipline(discipline))
        return http_cache.shows(Response(page_data(_page(request, ranking_list))), ranking_list)


class MonthListAPI(inputs.PublicAPI):
    @extend_schema(
        operation_id="rankings_month",
        parameters=[inputs.DISCIPLINE, inputs.MONTH, inputs.VERSION, *_FILTERS],
        responses={200: ListPageOutput, 400: OpenApiResponse(description="bad month")},
        summary="The published list of a month, paged and filtered",
    )
    def get(self, request: Request, discipline: str, month: str) -> Response:
        ranking_list = inputs.published(
            inputs.discipline(discipline), inputs.month(month), inputs.version(request)
        )
        return http_cache.shows(Response(page_data(_page(request, ranking_list))), ranking_list)


class ArchiveAPI(inputs.PublicAPI):
    @extend_schema(
        operation_id="rankings_archive",
        parameters=[inputs.DISCIPLINE],
        responses={200: ListOutput(many=True)},
        summary="Every published list of a discipline, newest month first",
    )
    def get(self, request: Request, discipline: str) -> Response:
        lists = published_lists(discipline=inputs.discipline(discipline))
        return Response(ListOutput([p.ranking_list for p in lists], many=True).data)


class _CSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None):  # type: ignore[no-untyped-def]
        return data


class DownloadAPI(inputs.PublicAPI):
    """The whole list as a file, streamed row chunk by row chunk."""

    renderer_classes = [JSONRenderer, _CSVRenderer]

    @extend_schema(
        operation_id="rankings_download",
        parameters=[
            inputs.DISCIPLINE,
            inputs.MONTH,
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
        discipline = inputs.discipline(discipline)
        if fmt not in export.FORMATS:
            raise NotFound(f"no download as {fmt!r} (one of {', '.join(export.FORMATS)})")
        ranking_list = inputs.published(discipline, inputs.month(month), inputs.version(request))
        content_type = "text/csv" if fmt == "csv" else "application/json"
        response = StreamingHttpResponse(
            export.pieces(ranking_list, fmt), content_type=f"{content_type}; charset=utf-8"
        )
        filename = f"fido-ranking-{discipline}-{ranking_list.list_month}.{fmt}"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return http_cache.shows(response, ranking_list)

    def handle_exception(self, exc: Exception) -> Response:
        # Errors are JSON whatever the file's format.
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = "application/json"
        return super().handle_exception(exc)
