"""``GET /api/rankings/{discipline}/{YYYY-MM}/diff``: who moved between two published lists.

Query: ``version`` (the newer list: that version of the month, default its latest),
``from`` (what to compare it with: a version number of the same month, or another month
``YYYY-MM``; default the version before, else the previous month's latest list), ``page``
and ``page_size`` (at most 500). Answer: both lists (with their seals), the number of
players whose place or FLADUB differs, and a page of them: old and new rank, places moved
(positive: up), old and new FLADUB, and the numbers of the corrections and voids of the
player's own matches that caused it; the corrections themselves (who, when, why, which
match), numbered from 1. 400 for a malformed parameter, 404 when either list
does not exist; nothing is ever written.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from matches.apis.paging import MAX_PAGE, page_parameters
from matches.months import MONTH_PATTERN, Month

from ..selectors.list_diff import NothingToCompare, against_parse, list_diff
from . import inputs
from .fields import fladub_field
from .lists import ListOutput

MAX_PAGE_SIZE = 500
#: ``from``: nothing (the default), a version or a month, as sent.
FROM_PATTERN = "^$|^[1-9][0-9]{0,5}$|" + MONTH_PATTERN


class _Query(serializers.Serializer):
    page = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=1)
    page_size = serializers.IntegerField(min_value=1, max_value=MAX_PAGE_SIZE, default=100)


class DiffRowOutput(serializers.Serializer):
    player_id = serializers.CharField(source="row.player_id")
    name = serializers.CharField(source="row.name")
    old_rank = serializers.IntegerField(source="row.old_rank", allow_null=True)
    new_rank = serializers.IntegerField(source="row.new_rank", allow_null=True)
    moved = serializers.IntegerField(
        source="row.places",
        allow_null=True,
        help_text="places moved up (negative: down); null: on one list only",
    )
    old_fladub = fladub_field(source="row.old_fladub", allow_null=True)
    new_fladub = fladub_field(source="row.new_fladub", allow_null=True)
    corrections = serializers.ListField(
        source="causes",
        child=serializers.IntegerField(),
        help_text="the numbers (in `corrections`, from 1) of the corrections and voids of "
        "this player's own matches that caused the move; empty: moved through other "
        "players' results",
    )


class CorrectionOutput(serializers.Serializer):
    number = serializers.IntegerField()
    kind = serializers.CharField(help_text="corrected or voided")
    at = serializers.DateTimeField()
    by = serializers.CharField()
    reason = serializers.CharField()
    match = serializers.CharField(help_text="the match: club and id")


class DiffOutput(serializers.Serializer):
    old = ListOutput()
    new = ListOutput()
    count = serializers.IntegerField(help_text="players whose place or FLADUB differs")
    page = serializers.IntegerField()
    corrections = CorrectionOutput(
        many=True,
        help_text="the corrections and voids made between the two lists' publications that "
        "touch the newer list's month",
    )
    results = DiffRowOutput(many=True)


def _against(raw: str) -> int | Month | None:
    try:
        return against_parse(raw)
    except ValueError:
        raise ValidationError(
            {"from": ["Compare with a version number (2) or a month (2026-02)."]}
        ) from None


class DiffAPI(inputs.PublicAPI):
    @extend_schema(
        operation_id="rankings_diff",
        parameters=[
            inputs.DISCIPLINE,
            inputs.MONTH,
            inputs.VERSION,
            OpenApiParameter(
                "from",
                {"type": "string", "pattern": FROM_PATTERN},
                description="a version (2) or a month (2026-02)",
            ),
            *page_parameters(MAX_PAGE_SIZE),
        ],
        responses={200: DiffOutput, 404: OpenApiResponse(description="no such list")},
        summary="Who moved between two versions of a month's list, or two consecutive months",
    )
    def get(self, request: Request, discipline: str, month: str) -> Response:
        discipline, parsed = inputs.discipline(discipline), inputs.month(month)
        query = _Query(data=request.query_params)
        query.is_valid(raise_exception=True)
        size, page = query.validated_data["page_size"], query.validated_data["page"]
        try:
            diff = list_diff(
                discipline=discipline,
                month=parsed,
                version=inputs.version(request),
                against=_against(request.query_params.get("from", "")),
                limit=size,
                offset=(page - 1) * size,
            )
        except NothingToCompare as exc:
            raise NotFound(str(exc)) from exc
        return Response(
            DiffOutput(
                {
                    "old": diff.old,
                    "new": diff.new,
                    "count": diff.total,
                    "page": page,
                    "corrections": [
                        {
                            "number": number,
                            "kind": c.kind,
                            "at": c.at,
                            "by": c.by,
                            "reason": c.reason,
                            "match": c.match,
                        }
                        for number, c in enumerate(diff.corrections, start=1)
                    ],
                    "results": diff.lines,
                }
            ).data
        )
