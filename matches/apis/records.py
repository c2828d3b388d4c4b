"""``POST /api/records/replay``: replay a game record and return its report.

In: a game record (RULES.md section 2) as the JSON body; ``?partial=true`` to report a
game the record leaves unfinished instead of refusing it.
Out: 200 with the report of RULES.md 6.1. 400 with ``{"errors": [{"path", "message"}]}``
for a body that is not JSON or not a record (``path`` names the field), and with
``{"errors": [{"path", "move", "player", "rule", "message"}]}`` for the first illegal
move. 413 for a body larger than ``MAX_RECORD_BYTES`` (512 KiB). Never a 5xx for bad input.

Public and stateless: no authentication (so no CSRF), the default throttles apply. The
view is thin: it decodes the body and calls the pure rules engine.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from fido.text import json_text_problems
from matches.rules import IllegalMove, RecordError, replay
from matches.rules.record import MAX_RECORD_BYTES

from .jsonbody import check_media_type
from .record_schema import RECORD_SCHEMA

#: RULES.md section 2 style: a three-player double-6 game that ends with A's last tile (the
#: schema's example; the record viewer's tests replay it too).
EXAMPLE_RECORD = {
    "format": "fido-game-record/1",
    "variant": {"game": "fido", "set": 6, "hand_size": 2},
    "seats": ["A", "B", "C"],
    "hands": {"A": ["6-6", "1-0"], "B": ["6-3", "2-2"], "C": ["6-5", "4-0"]},
    "moves": [
        {"player": "A", "tile": "6-6"},
        {"player": "B", "tile": "6-3", "on": "6-6", "facet": "cross"},
        {"player": "C", "tile": "6-5", "on": "6-6", "facet": "cross"},
        {"player": "A", "draw": "5-1"},
        {"player": "B", "draw": "3-2"},
        {"player": "C", "draw": "4-3"},
        {"player": "A", "tile": "5-1", "on": "6-5"},
        {"player": "B", "tile": "3-2", "on": "6-3"},
        {"player": "C", "draw": "2-0"},
        {"player": "A", "tile": "1-0", "on": "5-1"},
    ],
}


class RecordReplayAPI(APIView):
    """Replay a game record; the engine's verdict, nothing stored."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    class ErrorSerializer(serializers.Serializer):
        path = serializers.CharField(help_text="The field, e.g. games[0].moves[4]")
        message = serializers.CharField()
        move = serializers.IntegerField(required=False, help_text="1-based, illegal moves only")
        player = serializers.CharField(required=False, allow_null=True)
        rule = serializers.CharField(required=False, help_text="Short code of the rule broken")

    # Built with inline_serializer: a field called ``errors`` cannot be declared on a
    # Serializer class, whose ``errors`` property it would shadow.
    _ERRORS = inline_serializer("ReplayErrors", fields={"errors": ErrorSerializer(many=True)})

    @extend_schema(
        operation_id="records_replay",
        summary="Replay a game record",
        description=__doc__,
        request={"application/json": RECORD_SCHEMA},
        parameters=[
            OpenApiParameter("partial", OpenApiTypes.BOOL, description="report an unfinished game")
        ],
        responses={
            200: OpenApiTypes.OBJECT,
            400: _ERRORS,
            413: _ERRORS,
            415: _ERRORS,
        },
        examples=[OpenApiExample("A three-player double-6 game", value=EXAMPLE_RECORD)],
        tags=["records"],
    )
    def post(self, request: Request) -> Response:
        check_media_type(request)
        try:
            body = request.body  # Django enforces DATA_UPLOAD_MAX_MEMORY_SIZE here
        except RequestDataTooBig:
            body = b"x" * (MAX_RECORD_BYTES + 1)
        if len(body) > MAX_RECORD_BYTES:
            return _errors(
                "",
                f"the record is larger than {MAX_RECORD_BYTES // 1024} KiB",
                status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
            )
        try:
            text = body.decode("utf-8-sig")
            data = json.loads(text)
        except UnicodeDecodeError:
            return _errors("", "the body is not UTF-8 text")
        except json.JSONDecodeError as exc:
            return _errors(
                "", f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
            )
        except RecursionError:
            return _errors("", "the JSON is nested too deeply")
        for path, reason in json_text_problems(text, data):
            return _errors(path, reason)
        partial = _PARTIAL.get(request.query_params.get("partial", "false").lower())
        if partial is None:
            return _errors("partial", gettext("partial is true or false"))
        try:
            report = replay(data, partial=partial)
        except (RecordError, IllegalMove) as error:
            return Response({"errors": [error.as_dict()]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(report)


_PARTIAL = {"true": True, "1": True, "false": False, "0": False}


def _errors(path: str, message: str, code: int = status.HTTP_400_BAD_REQUEST) -> Response:
    return Response({"errors": [{"path": path, "message": message}]}, status=code)
