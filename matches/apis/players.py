"""``GET /api/players?q=``: find a player by name, federation id, club or country.

Public (no login), paged (``page``, ``page_size`` up to 50), public fields only: the
federation id, name, country (code and name) and home club (id and name), enough to tell
two players of the same name apart. The secretary's forms use it for their type-ahead and
store the federation id. Fewer than 2 characters find nobody (an empty page, not an
error); more than 100 are a 400 on ``q``.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django_countries import countries
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.models import Player
from matches.selectors.player_search import MAX_QUERY_LENGTH, MIN_QUERY_LENGTH, player_search

from .paging import StrictPagination, page_parameters, page_serializer


class PlayerPagination(StrictPagination):
    page_size = 20
    max_page_size = 50


class PlayerHitSerializer(serializers.Serializer):
    player_id = serializers.CharField(help_text="the federation id, e.g. P-000123")
    name = serializers.CharField()
    country = serializers.CharField(help_text="ISO 3166-1 alpha-2")
    country_name = serializers.SerializerMethodField(help_text="in the request's language")
    club = serializers.CharField(source="club.club_id", allow_null=True, default=None)
    club_name = serializers.CharField(source="club.name", allow_null=True, default=None)

    class Meta:
        ref_name = "PlayerHit"

    def get_country_name(self, player: Player) -> str:
        return str(countries.name(player.country)) or player.country


PlayerPageSerializer = page_serializer(PlayerHitSerializer, "PlayerPage")


class PlayerSearchAPI(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="players_search",
        summary="Find a player by name, federation id, club or country",
        parameters=[
            OpenApiParameter(
                "q",
                {"type": "string", "maxLength": MAX_QUERY_LENGTH},
                description=(
                    f"{MIN_QUERY_LENGTH} to {MAX_QUERY_LENGTH} characters; every word must "
                    "match the name, the federation id, the club or the country code"
                ),
            ),
            *page_parameters(PlayerPagination.max_page_size),
        ],
        responses={200: PlayerPageSerializer},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        text = request.query_params.get("q", "")
        if len(text) > MAX_QUERY_LENGTH:
            raise ValidationError({"q": [_("at most %(n)d characters") % {"n": MAX_QUERY_LENGTH}]})
        paginator = PlayerPagination()
        page: Any = paginator.paginate_queryset(player_search(text), request, view=self)
        return paginator.get_paginated_response(PlayerHitSerializer(page, many=True).data)
