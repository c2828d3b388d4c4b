"""The projected list through the API: ``GET /api/rankings/{discipline}/projected``.

The shape of a month's list (:class:`rankings.apis.lists.ListPageOutput`: ``list``,
``count``, ``page``, ``pages``, ``next``, ``previous``, ``results``; the same paging and
filters), plus ``"provisional": true`` and ``"as_of"`` (the instant the results were read);
the list's ``published_at`` is null. 404 when the discipline is unknown or has no current
projection (:func:`rankings.selectors.projection.projected_list`).
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from ..selectors.projection import projected_list
from . import inputs
from .lists import _FILTERS, ListPageOutput, _page


class ProjectedPageOutput(ListPageOutput):
    provisional = serializers.BooleanField()
    as_of = serializers.DateTimeField()


class ProjectedListAPI(inputs.PublicAPI):
    @extend_schema(
        operation_id="rankings_projected",
        parameters=[inputs.DISCIPLINE, *_FILTERS],
        responses={
            200: ProjectedPageOutput,
            404: OpenApiResponse(description="no projection (yet)"),
        },
        summary="The projected list: the open month as if it closed now (provisional)",
    )
    def get(self, request: Request, discipline: str) -> Response:
        projected = projected_list(inputs.discipline(discipline))
        if projected is None:
            raise NotFound(_("no projected %(discipline)s list yet") % {"discipline": discipline})
        page = _page(request, projected.ranking_list)
        page.update(provisional=True, as_of=projected.as_of)
        return Response(ProjectedPageOutput(page).data)
