"""The checks every ranking endpoint makes of its path and query parameters.

Each returns the checked value or raises DRF's ``NotFound`` (unknown discipline, list or
player: 404) or ``ValidationError`` with the parameter's name as its path (a malformed
month: 400).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from matches.disciplines import CODES
from matches.models import Player
from matches.months import MONTH_PATTERN, Month

from ..selectors.lists import ListInfo, current_list, published_list
from ..selectors.players import surviving_player

DISCIPLINE = OpenApiParameter(
    "discipline", str, OpenApiParameter.PATH, enum=list(CODES), description="discipline"
)
#: A month parameter's schema: YYYY-MM (:data:`matches.months.MONTH_PATTERN`).
MONTH_SCHEMA = {"type": "string", "pattern": MONTH_PATTERN}
#: An optional month in the query: nothing (the default) or YYYY-MM.
OPTIONAL_MONTH_SCHEMA = {"type": "string", "pattern": "^$|" + MONTH_PATTERN}
MONTH = OpenApiParameter(
    "month", MONTH_SCHEMA, OpenApiParameter.PATH, description="the list's month, YYYY-MM"
)
MAX_VERSION = 10**6
VERSION = OpenApiParameter(
    "version",
    {"type": "integer", "minimum": 1, "maximum": MAX_VERSION},
    description="version N of the month's list (default: the latest)",
)
PLAYER = OpenApiParameter("player_id", str, OpenApiParameter.PATH)


def player_in_list(month_description: str) -> list[OpenApiParameter]:
    """The parameters of a question about a player in one list: the discipline and the
    player in the path, the list's optional month in the query."""
    month = OpenApiParameter("month", OPTIONAL_MONTH_SCHEMA, description=month_description)
    return [DISCIPLINE, PLAYER, month]


def player_schema(
    operation_id: str,
    output: type[Serializer],
    summary: str,
    *,
    parameters: list[OpenApiParameter] | None = None,
) -> Any:
    """The schema of a GET of one player's figures (``output``): the discipline and the
    player in the path unless ``parameters`` say more, and a 404 for an unknown player."""
    return extend_schema(
        operation_id=operation_id,
        parameters=[DISCIPLINE, PLAYER] if parameters is None else parameters,
        responses={200: output, 404: OpenApiResponse(description="unknown player")},
        summary=summary,
    )


class PublicAPI(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []


def discipline(value: str) -> str:
    if value not in CODES:
        raise NotFound(
            _("unknown discipline '%(discipline)s' (one of %(codes)s)")
            % {"discipline": value, "codes": ", ".join(CODES)}
        )
    return value


def month(value: str, path: str = "month") -> Month:
    try:
        return Month.parse(value)
    except ValueError as exc:
        raise ValidationError({path: [str(exc)]}) from exc


def version(request: Any) -> int | None:
    """``?version=N`` (the month's list as version N published it), or None: its latest."""
    raw = request.query_params.get("version", "").strip()
    if not raw:
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_VERSION:
        message = _("A version is a whole number from 1, for example 2.")
        raise ValidationError({"version": [message]})
    return int(raw)


def published(discipline: str, month: Month, edition: int | None = None) -> ListInfo:
    found = published_list(discipline=discipline, month=month, edition=edition)
    if found is None:
        if edition is not None:
            raise NotFound(
                _("no version %(version)d of the %(discipline)s list for %(month)s")
                % {"version": edition, "discipline": discipline, "month": month}
            )
        raise NotFound(
            _("no published %(discipline)s list for %(month)s")
            % {"discipline": discipline, "month": month}
        )
    return found


def current(discipline: str) -> ListInfo:
    found = current_list(discipline=discipline)
    if found is None:
        raise NotFound(
            _("no %(discipline)s list has been published yet") % {"discipline": discipline}
        )
    return found


def player(player_id: str) -> Player:
    found = surviving_player(player_id)
    if found is None:
        raise NotFound(_("unknown player '%(player)s'") % {"player": player_id})
    return found
