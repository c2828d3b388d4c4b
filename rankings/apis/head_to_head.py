"""Two players' shared matches through the API:
``GET /api/rankings/{discipline}/players/{player_id}/head-to-head/{other_id}``.

(:func:`rankings.selectors.head_to_head.head_to_head`, the page's selector.) ``count`` and
the tally (``player_higher``, ``other_higher``, ``ties``, ``partners``) are of every
shared match that is not voided; ``matches`` holds the newest ``shown`` of them (at most
200), each with its table, both players' places and who placed higher (``player``,
``other``, ``tie`` or ``partners``), and each one's FLADUB ``effect`` in the discipline's
current list (``list_month``): ``points`` (the match points taken, 4 places),
``weight`` (twelfths), ``weighted`` and ``in_best`` (among the best 20, so part of the
number), null when the match is not in that list's window. 404 for an unknown discipline
or player, 400 when both ids name the same player (after merges).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from ..numbers import POINTS_PLACES
from ..selectors.head_to_head import HeadToHead, Meeting, head_to_head
from . import inputs
from .fields import PlayerAnswerOutput, decimal_field, fladub_field

_HIGHER = {"a": "player", "b": "other", "tie": "tie", "partners": "partners"}


class EffectOutput(serializers.Serializer):
    points = decimal_field(POINTS_PLACES, "the match points taken, a decimal string, 4 places")
    weight_twelfths = serializers.IntegerField(help_text="the result's weight now, in twelfths")
    weighted = decimal_field(POINTS_PLACES, "points x weight, a decimal string, 4 places")
    in_best = serializers.BooleanField(help_text="among the player's best 20: in the number")


class SeatOutput(serializers.Serializer):
    player_id = serializers.CharField()
    name = serializers.CharField()


class SideOutput(serializers.Serializer):
    place = serializers.IntegerField()
    score = serializers.IntegerField()
    players = SeatOutput(many=True)


class MeetingOutput(serializers.Serializer):
    match_id = serializers.CharField()
    club = serializers.CharField(source="club_id")
    date_played = serializers.DateField()
    category = serializers.CharField()
    higher = serializers.ChoiceField(choices=sorted(_HIGHER.values()))
    player_place = serializers.IntegerField(source="place_a")
    other_place = serializers.IntegerField(source="place_b")
    player_effect = EffectOutput(source="effect_a", allow_null=True)
    other_effect = EffectOutput(source="effect_b", allow_null=True)
    sides = SideOutput(many=True)


class HeadToHeadOutput(PlayerAnswerOutput):
    other_id = serializers.CharField()
    list_month = serializers.CharField(allow_null=True)
    count = serializers.IntegerField()
    shown = serializers.IntegerField()
    player_higher = serializers.IntegerField()
    other_higher = serializers.IntegerField()
    ties = serializers.IntegerField()
    partners = serializers.IntegerField()
    player_in_number = fladub_field()
    other_in_number = fladub_field()
    matches = MeetingOutput(many=True)


def _meeting(meeting: Meeting) -> dict[str, Any]:
    """The meeting as the serializer reads it: ``higher`` in the API's words."""
    return {
        "match_id": meeting.match_id,
        "club_id": meeting.club_id,
        "date_played": meeting.date_played,
        "category": meeting.category,
        "higher": _HIGHER[meeting.higher],
        "place_a": meeting.place_a,
        "place_b": meeting.place_b,
        "effect_a": meeting.effect_a,
        "effect_b": meeting.effect_b,
        "sides": meeting.sides,
    }


def _body(found: HeadToHead, player_id: str, other_id: str) -> dict[str, Any]:
    return {
        "player_id": player_id,
        "other_id": other_id,
        "discipline": found.discipline,
        "list_month": None if found.list_month is None else str(found.list_month),
        "count": found.count,
        "shown": found.shown,
        "player_higher": found.a_higher,
        "other_higher": found.b_higher,
        "ties": found.ties,
        "partners": found.partners,
        "player_in_number": found.in_number_a,
        "other_in_number": found.in_number_b,
        "matches": [_meeting(m) for m in found.meetings],
    }


class HeadToHeadAPI(inputs.PublicAPI):
    @extend_schema(
        operation_id="rankings_player_head_to_head",
        parameters=[
            inputs.DISCIPLINE,
            inputs.PLAYER,
            OpenApiParameter("other_id", str, OpenApiParameter.PATH, description="another player"),
        ],
        responses={
            200: HeadToHeadOutput,
            400: OpenApiResponse(description="the same player twice"),
            404: OpenApiResponse(description="unknown discipline or player"),
        },
        summary="Two players' shared matches, who placed higher, and their FLADUB effect",
    )
    def get(self, request: Request, discipline: str, player_id: str, other_id: str) -> Response:
        discipline = inputs.discipline(discipline)
        player, other = inputs.player(player_id), inputs.player(other_id)
        if player.pk == other.pk:
            raise ValidationError(
                {"other_id": [_("Both ids name the same player: choose another player.")]}
            )
        found = head_to_head(player.pk, other.pk, discipline=discipline)
        return Response(HeadToHeadOutput(_body(found, player.player_id, other.player_id)).data)
