"""Why did I move, through the API:
``GET /api/rankings/{discipline}/players/{player_id}/ledger[?month=YYYY-MM]``.

The player's change of FLADUB from L(R - 1) to L(R) (:func:`rankings.selectors.ledger.
player_ledger`): ``from``, ``to`` and ``change`` (two decimals), ``parts`` (each with its
``kind``, signed ``amount`` and the ``results`` it names; the amounts add up to ``change``
exactly), ``rank_from`` / ``rank_to`` (null when not listed) and ``rank_change`` (players
who passed, new entries above, players overtaken, players above who left the list), and
the same as ``sentences`` in the reader's language. ``month``: a published list's month
(default: the current list), or the open month when it has a projection — then
``"provisional": true`` and ``as_of``. 400 for a malformed month, 404 for an unknown
discipline or player or a month without a list.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from .. import ledger_words
from ..numbers import POINTS_PLACES, cents_decimal
from ..selectors.ledger import PlayerLedger, player_ledger
from ..selectors.lists import ListInfo, published_list
from ..selectors.projection import projected_list
from . import inputs
from .fields import PlayerAnswerOutput, decimal_field, fladub_field

_KINDS = "merged, voided, left, aged, pushed_out, pushed_in, new"


class LedgerResultOutput(serializers.Serializer):
    match_id = serializers.CharField()
    club = serializers.CharField(source="club_id")
    date_played = serializers.DateField()
    month_played = serializers.CharField()
    points = decimal_field(
        POINTS_PLACES, "the match points (SPEC 4.3), a decimal string with 4 places"
    )


class LedgerPartOutput(serializers.Serializer):
    kind = serializers.CharField(help_text=_KINDS)
    amount = fladub_field()
    results = LedgerResultOutput(many=True)


class RankChangeOutput(serializers.Serializer):
    explained = serializers.BooleanField()
    passed = serializers.IntegerField()
    new_above = serializers.IntegerField()
    overtaken = serializers.IntegerField()
    gone_above = serializers.IntegerField()


class LedgerOutput(PlayerAnswerOutput):
    month = serializers.CharField()
    provisional = serializers.BooleanField()
    as_of = serializers.DateTimeField(allow_null=True)
    # "from" is a keyword: the fields are added under their names below.
    to = fladub_field()
    change = fladub_field()
    parts = LedgerPartOutput(many=True)
    rank_from = serializers.IntegerField(allow_null=True)
    rank_to = serializers.IntegerField(allow_null=True)
    rank_change = RankChangeOutput()
    sentences = serializers.ListField(child=serializers.CharField())


LedgerOutput._declared_fields["from"] = fladub_field()


def _payload(found: PlayerLedger) -> dict[str, Any]:
    return {
        "from": cents_decimal(found.from_cents),
        "to": cents_decimal(found.to_cents),
        "change": cents_decimal(found.ledger.change_cents),
        "parts": [
            {
                "kind": part.kind,
                "amount": cents_decimal(part.cents),
                "results": [found.results[key] for key in part.results],
            }
            for part in found.ledger.parts
        ],
        "rank_from": found.rank.rank_from,
        "rank_to": found.rank.rank_to,
        "rank_change": found.rank,
        "sentences": [
            ledger_words.number_sentence(found),
            ledger_words.rank_sentence(found.rank),
        ],
    }


def _target(discipline: str, month: str | None) -> tuple[ListInfo, Any]:
    """The list asked for and, for a projection, its ``as_of``."""
    if not month:
        return inputs.current(discipline), None
    wanted = inputs.month(month)
    found = published_list(discipline=discipline, month=wanted)
    if found is not None:
        return found, None
    projected = projected_list(discipline)
    if projected is not None and projected.ranking_list.list_month == wanted:
        return projected.ranking_list, projected.as_of
    raise NotFound(
        _("no published or projected %(discipline)s list for %(month)s")
        % {"discipline": discipline, "month": wanted}
    )


class PlayerLedgerAPI(inputs.PublicAPI):
    @extend_schema(
        operation_id="rankings_player_ledger",
        parameters=inputs.player_in_list(
            "the list's month (default: current; the open month: its projection)"
        ),
        responses={
            200: LedgerOutput,
            400: OpenApiResponse(description="bad month"),
            404: OpenApiResponse(description="unknown player or no such list"),
        },
        summary="Why a player's number and rank changed from the list before",
    )
    def get(self, request: Request, discipline: str, player_id: str) -> Response:
        discipline = inputs.discipline(discipline)
        player = inputs.player(player_id)
        ranking_list, as_of = _target(discipline, request.query_params.get("month"))
        found = player_ledger(player.pk, ranking_list=ranking_list)
        return Response(
            LedgerOutput(
                {
                    "player_id": player.player_id,
                    "discipline": discipline,
                    "month": str(found.month),
                    "provisional": as_of is not None,
                    "as_of": as_of,
                    **_payload(found),
                }
            ).data
        )
