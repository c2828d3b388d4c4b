"""The submission side of the REST API: matches, corrections, voids, the caller's clubs.

Endpoints (mounted under ``/api/``):

- ``POST /api/auth/token``: a token for a username and password (``Authorization: Token
  <key>`` on later requests); session login works as well.
- ``POST /api/matches``: one match (SPEC.md 5.3's result line without ``submitted_at``) or
  ``{"matches": [...]}``, all or nothing. 201 when something was stored, 200 when every match
  was already stored with the same content (a re-POST is not a duplicate).
- ``GET /api/matches``: the matches the caller may read, paged, with filters.
- ``GET /api/matches/{pk}``: one match by database id.
- ``POST /api/matches/{pk}/correct``: a corrected revision (secretary until the deadline of
  the month it counts in; admin at any time).
- ``POST /api/matches/{pk}/void``: void from the first list it can still affect (admin).
- ``GET /api/me``: the caller's clubs, the open month, its deadline and the time left.

Who may do what (SPEC.md 5.2 and 6, "a secretary cannot read or change another club's
private data"): every endpoint here needs a login (401 without credentials). A match list
shows submission data (who submitted, when, on time or late, corrections), which is a
club's private data, so it is NOT public: a secretary reads their clubs' matches, an admin
(``is_staff``) all, any other user an empty list; another club's match is a 404, as if it
did not exist. Public results are on the ranking and player pages. Secretaries submit only
for their own clubs (403 naming the club otherwise; 403 for a user with no club); admins
for any club.

Errors: ``{"errors": [{"path", "message"}]}`` listing every problem
(:mod:`matches.apis.errors`). POSTs accept ``Idempotency-Key``
(:mod:`matches.apis.idempotency`) and are throttled per user in the ``submissions`` scope
(rate ``DEFAULT_THROTTLE_RATES["submissions"]``, else the ``user`` rate).

The views are thin: they read the body, call one service (:mod:`matches.services`, whose
one validation path is :mod:`matches.validation`) or selector, and serialise the result.
The input serializers describing a match exist for the OpenAPI schema only; validating a
match is the validation module's job.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.db import IntegrityError, connection
from django.http import Http404
from django.utils.translation import ngettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
)
from rest_framework import exceptions, serializers, status
from rest_framework.authentication import SessionAuthentication, get_authorization_header
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from fido.lockout import lockout_response
from matches import clock, selectors, services
from matches.models import (
    MAX_SIDES,
    MIN_SIDES,
    Category,
    Channel,
    Club,
    Discipline,
    Match,
    Status,
)
from matches.months import MONTH_PATTERN, Month, deadline, local_month
from matches.services.tokens import token_issue, token_revoke
from matches.validation import MAX_ID_LENGTH, MAX_PLAYERS_PER_SIDE, InvalidSubmission, Problem

from .auth import FastTokenAuthentication, caller_clubs
from .errors import ApiProblems
from .idempotency import HEADER as IDEMPOTENCY_HEADER
from .idempotency import KEY_PATTERN, MAX_KEY_LENGTH, respond_once
from .jsonbody import json_body
from .paging import StrictPagination, page_parameters, page_serializer
from .throttling import AnonThrottle, SubmissionRateThrottle, UserThrottle

# More matches than this in one request: split the batch (keeps one transaction short).
MAX_BATCH = 500

_EXAMPLE_MATCH = {
    "id": "CLUB-7/2026-03-14/t2",
    "date": "2026-03-14",
    "club": "CLUB-7",
    "discipline": "fido",
    "category": "club",
    "sides": [
        {"players": ["P-000001"], "score": 57},
        {"players": ["P-000002"], "score": 31},
        {"players": ["P-000003"], "score": 31},
        {"players": ["P-000004"], "score": -4},
    ],
}
_EXAMPLE_ERRORS = {
    "errors": [
        {"path": "sides[1].players[0]", "message": "unknown player P-999999"},
        {"path": "date", "message": "the match date 2026-04-02 is in the future"},
    ]
}


# --- throttling, authentication, pagination ----------------------------------------------


class _AuthenticatedAPI(APIView):
    # Token first: its WWW-Authenticate header makes a missing login a 401, not a 403.
    authentication_classes = [FastTokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]

    def get_throttles(self) -> list[BaseThrottle]:
        if self.request.method == "POST":
            return [SubmissionRateThrottle()]
        return super().get_throttles()


class MatchPagination(StrictPagination):
    max_page_size = 200


# --- serializers shared by several endpoints ---------------------------------------------


class ErrorSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="the field, e.g. sides[1].players[0]; '' for all")
    message = serializers.CharField()

    class Meta:
        ref_name = "ApiError"


class ErrorsSerializer(serializers.Serializer):
    errors = ErrorSerializer(many=True)  # type: ignore[assignment]  # a field, not .errors

    class Meta:
        ref_name = "ApiErrors"


class SideFieldsSerializer(serializers.Serializer):
    players = serializers.ListField(
        child=serializers.CharField(help_text="federation id, e.g. P-000123"),
        min_length=1,
        max_length=MAX_PLAYERS_PER_SIDE,
    )
    score = serializers.IntegerField(help_text="the side's final score; higher is better")

    class Meta:
        ref_name = "SideInput"


class MatchFieldsSerializer(serializers.Serializer):
    """A match as submitted (schema only: :mod:`matches.validation` validates)."""

    id = serializers.CharField(max_length=MAX_ID_LENGTH, help_text="unique per club")
    date = serializers.DateField(help_text="date played, YYYY-MM-DD")
    club = serializers.CharField(help_text="host club, e.g. CLUB-7")
    discipline = serializers.ChoiceField(choices=Discipline.choices)
    category = serializers.ChoiceField(choices=Category.choices)
    sides = serializers.ListField(
        child=SideFieldsSerializer(), min_length=MIN_SIDES, max_length=MAX_SIDES
    )
    records = serializers.JSONField(
        required=False,
        help_text="optional: one game record or a list of them (docs/rules.md, the record)",
    )

    class Meta:
        ref_name = "MatchInput"


class BatchFieldsSerializer(serializers.Serializer):
    matches = serializers.ListField(child=MatchFieldsSerializer(), max_length=MAX_BATCH)

    class Meta:
        ref_name = "MatchBatchInput"


class SideOutputSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    score = serializers.IntegerField()
    players = serializers.SerializerMethodField()

    class Meta:
        ref_name = "Side"

    def get_players(self, side: Any) -> list[str]:
        return [member.player.player_id for member in side.members.all()]


def _month_text(day: dt.date | None) -> str | None:
    return None if day is None else str(Month.of(day))


class MatchOutputSerializer(serializers.Serializer):
    pk = serializers.IntegerField(help_text="database id: /api/matches/{pk}")
    id = serializers.CharField(source="external_id")
    revision = serializers.IntegerField()
    club = serializers.CharField(source="club.club_id")
    date = serializers.DateField(source="date_played")
    discipline = serializers.CharField()
    category = serializers.CharField()
    sides = SideOutputSerializer(many=True)
    status = serializers.ChoiceField(choices=Status.choices)
    counting_month = serializers.SerializerMethodField()
    received_at = serializers.DateTimeField()
    channel = serializers.CharField(source="submission.channel")
    submitted_by = serializers.SerializerMethodField()
    has_records = serializers.SerializerMethodField()
    replaces = serializers.IntegerField(source="replaces_id", allow_null=True)
    replaced_by = serializers.SerializerMethodField()
    voided = serializers.BooleanField(source="is_voided")
    voided_at = serializers.DateTimeField(allow_null=True)
    void_reason = serializers.CharField()
    void_effective_month = serializers.SerializerMethodField()
    correction_deadline = serializers.SerializerMethodField()

    class Meta:
        ref_name = "Match"

    def get_counting_month(self, match: Match) -> str:
        return str(Month.of(match.counting_month))

    def get_submitted_by(self, match: Match) -> str | None:
        user = match.submission.submitted_by
        return None if user is None else user.get_username()

    def get_has_records(self, match: Match) -> bool:
        return match.records is not None

    def get_replaced_by(self, match: Match) -> int | None:
        try:
            return match.replaced_by.pk
        except Match.replaced_by.RelatedObjectDoesNotExist:
            return None

    def get_void_effective_month(self, match: Match) -> str | None:
        return _month_text(match.void_effective_month)

    def get_correction_deadline(self, match: Match) -> dt.datetime:
        """Until when the club's secretary may correct it (the counting month's deadline)."""
        return services.correction_deadline(match)


class SubmitResultSerializer(serializers.Serializer):
    pk = serializers.IntegerField(help_text="database id: /api/matches/{pk}")
    id = serializers.CharField()
    club = serializers.CharField()
    revision = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Status.choices, help_text="on time or late")
    counting_month = serializers.CharField(help_text="YYYY-MM: the list it counts in")
    received_at = serializers.DateTimeField()
    created = serializers.BooleanField(help_text="false: already stored with this content")

    class Meta:
        ref_name = "SubmitResult"


_RECEIVED_AT = serializers.DateTimeField()  # ISO 8601 in the active time zone


def _submit_results(outcomes: Sequence[services.SubmitOutcome]) -> list[dict[str, Any]]:
    """What SubmitResultSerializer describes, for each outcome, built directly: the
    serializer machinery cost half a millisecond per submitted match. The matches of a
    request share their receipt time and month or two: each is formatted once."""
    times: dict[dt.datetime, Any] = {}
    months: dict[dt.date, str] = {}
    out = []
    for outcome in outcomes:
        match = outcome.match
        received, month = match.received_at, match.counting_month
        if received not in times:
            times[received] = _RECEIVED_AT.to_representation(received)
        if month not in months:
            months[month] = str(Month.of(month))
        out.append(
            {
                "pk": match.pk,
                "id": match.external_id,
                "club": match.club.club_id,
                "revision": match.revision,
                "status": match.status,
                "counting_month": months[month],
                "received_at": times[received],
                "created": outcome.created,
            }
        )
    return out


_ERROR_RESPONSES: dict[int | str, Any] = {
    400: OpenApiResponse(ErrorsSerializer, description="bad input: every problem, with paths"),
    401: OpenApiResponse(ErrorsSerializer, description="no credentials"),
    403: OpenApiResponse(ErrorsSerializer, description="not allowed (another club, deadline)"),
    429: OpenApiResponse(ErrorsSerializer, description="throttled; see Retry-After"),
}
_IDEMPOTENCY_PARAMETER = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    {"type": "string", "minLength": 1, "maxLength": MAX_KEY_LENGTH, "pattern": KEY_PATTERN},
    OpenApiParameter.HEADER,
    description=(
        f"1 to {MAX_KEY_LENGTH} visible ASCII characters (a UUID is one); a retry with the "
        "same key and body gets the first response (header Idempotent-Replayed: true) "
        "and stores nothing twice; the same key with another body is 422"
    ),
)


_PK_PARAMETER = OpenApiParameter(
    "id",
    OpenApiTypes.INT,
    OpenApiParameter.PATH,
    description="the match's database id (its pk field), not the club's external match id",
)


def _visible_match(request: Request, pk: int) -> Match:
    """A match the caller may read, with everything its output shows loaded; else 404."""
    match = selectors.match_list_for(user=request.user).filter(pk=pk).first()
    if match is None:
        raise Http404(f"no match {pk} that you may see")
    return match


# --- endpoints ---------------------------------------------------------------------------


class TokenAPI(ObtainAuthToken):
    """``POST /api/auth/token``: a NEW token for a username and password, shown this once
    (only its digest is stored), expiring after ``FIDO_TOKEN_DAYS``; throttled, no session
    needed. ``DELETE /api/auth/token`` with ``Authorization: Token <key>`` revokes that key."""

    authentication_classes: list[Any] = []
    throttle_classes = [AnonThrottle, UserThrottle]
    parser_classes = [JSONParser]  # one request encoding, as everywhere: a form is a 415

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField(help_text="send as 'Authorization: Token <token>'")
        expires_at = serializers.DateTimeField(help_text="ask for a new token before then")

        class Meta:
            ref_name = "AuthTokenResponse"

    @extend_schema(
        operation_id="auth_token",
        summary="Get an API token for a username and password",
        request=AuthTokenSerializer,
        responses={200: OutputSerializer, 400: ErrorsSerializer, 429: ErrorsSerializer},
        tags=["auth"],
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = self.get_serializer(data=request.data)
        if not serializer.is_valid():
            # Axes marks the request it was given (this DRF request) when the address or
            # the account is locked out, or now is: a 429, whatever the password.
            if getattr(request, "axes_locked_out", False):
                return lockout_response(request)  # type: ignore[arg-type,return-value]
            raise exceptions.ValidationError(serializer.errors)
        key, record = token_issue(user=serializer.validated_data["user"])
        return Response({"token": key, "expires_at": record.expires_at})

    @extend_schema(
        operation_id="auth_token_revoke",
        summary="Revoke the API token sent in the Authorization header",
        request=None,
        responses={204: None, 401: ErrorsSerializer},
        tags=["auth"],
    )
    def delete(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        parts = get_authorization_header(request).split()
        if (
            len(parts) == 2
            and parts[0].lower() == b"token"
            and token_revoke(key=parts[1].decode("latin-1"))
        ):
            return Response(status=status.HTTP_204_NO_CONTENT)
        raise exceptions.AuthenticationFailed(
            "send the token to revoke as 'Authorization: Token <key>'"
        )


class MatchListAPI(_AuthenticatedAPI):
    """``GET /api/matches`` (list) and ``POST /api/matches`` (submit)."""

    class FilterSerializer(serializers.Serializer):
        club = serializers.CharField(required=False, help_text="club id, e.g. CLUB-7")
        discipline = serializers.ChoiceField(choices=Discipline.choices, required=False)
        category = serializers.ChoiceField(choices=Category.choices, required=False)
        status = serializers.ChoiceField(choices=Status.choices, required=False)
        counting_month = serializers.RegexField(
            MONTH_PATTERN, required=False, trim_whitespace=False, help_text="YYYY-MM"
        )
        date_from = serializers.DateField(required=False, help_text="played on or after")
        date_to = serializers.DateField(required=False, help_text="played on or before")
        player = serializers.CharField(required=False, help_text="federation id, e.g. P-000123")

        class Meta:
            ref_name = "MatchFilter"

        def validate_counting_month(self, value: str) -> Month:
            try:
                return Month.parse(value)
            except ValueError as exc:
                raise serializers.ValidationError(str(exc)) from exc

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            start, end = attrs.get("date_from"), attrs.get("date_to")
            if start and end and start > end:
                raise serializers.ValidationError({"date_to": "date_to is before date_from"})
            return attrs

    PageSerializer = page_serializer(MatchOutputSerializer, "MatchPage")

    class BatchResultSerializer(serializers.Serializer):
        matches = SubmitResultSerializer(many=True)
        created = serializers.IntegerField(help_text="matches stored by this request")
        unchanged = serializers.IntegerField(help_text="already stored with the same content")

        class Meta:
            ref_name = "BatchResult"

    @extend_schema(
        operation_id="matches_list",
        summary="List the matches you may read",
        description=(
            "A secretary sees their clubs' matches, an admin every club's, other users none. "
            "Newest received first; every revision is listed (see replaces / replaced_by)."
        ),
        parameters=[
            FilterSerializer,
            *page_parameters(MatchPagination.max_page_size),
        ],
        responses={200: PageSerializer, **_ERROR_RESPONSES},
        tags=["matches"],
    )
    def get(self, request: Request) -> Response:
        # A plain dict, not the QueryDict: "status=" is then an empty value, refused,
        # rather than a parameter not sent.
        filters = self.FilterSerializer(data=request.query_params.dict())
        filters.is_valid(raise_exception=True)
        queryset = selectors.match_list_for(user=request.user, filters=filters.validated_data)
        paginator = MatchPagination()
        page = paginator.paginate_queryset(queryset, request, view=self)
        data = MatchOutputSerializer(page, many=True).data
        return paginator.get_paginated_response(data)

    @extend_schema(
        operation_id="matches_submit",
        summary="Submit one match, or a batch (all or nothing)",
        description=(
            'The body is one match or {"matches": [...]} (at most '
            f"{MAX_BATCH}). Nothing is stored unless every match is valid; the errors list "
            "every problem with its path (matches[i]. prefix in a batch). A match whose id "
            "is already stored with the same content is returned, not stored again (200); "
            "with other content it is a 400: correct that match instead. The server clock "
            "decides on time or late and the counting month."
        ),
        request=PolymorphicProxySerializer(
            component_name="MatchSubmission",
            serializers=[MatchFieldsSerializer, BatchFieldsSerializer],
            resource_type_field_name=None,
        ),
        parameters=[_IDEMPOTENCY_PARAMETER],
        responses={
            201: PolymorphicProxySerializer(
                component_name="MatchSubmitted",
                serializers=[SubmitResultSerializer, BatchResultSerializer],
                resource_type_field_name=None,
            ),
            200: OpenApiResponse(
                description="every match was already stored with this content (same shape)"
            ),
            **_ERROR_RESPONSES,
            413: OpenApiResponse(ErrorsSerializer, description="body too large"),
            415: OpenApiResponse(ErrorsSerializer, description="body not application/json"),
            422: OpenApiResponse(ErrorsSerializer, description="Idempotency-Key reused"),
        },
        examples=[
            OpenApiExample("One FIDO table of four", value=_EXAMPLE_MATCH, request_only=True),
            OpenApiExample("A batch", value={"matches": [_EXAMPLE_MATCH]}, request_only=True),
            OpenApiExample(
                "Stored, on time",
                value={
                    "pk": 1234,
                    "id": "CLUB-7/2026-03-14/t2",
                    "club": "CLUB-7",
                    "revision": 1,
                    "status": "on_time",
                    "counting_month": "2026-03",
                    "received_at": "2026-03-14T21:40:00+01:00",
                    "created": True,
                },
                response_only=True,
                status_codes=["201"],
            ),
            OpenApiExample(
                "Every problem, with its path",
                value=_EXAMPLE_ERRORS,
                response_only=True,
                status_codes=["400"],
            ),
        ],
        tags=["matches"],
    )
    def post(self, request: Request) -> Response:
        return respond_once(request, lambda: self._submit(request))

    def _submit(self, request: Request) -> Response:
        data = json_body(request)
        batch = isinstance(data, Mapping) and "matches" in data
        payloads: list[Any]
        prefix: Callable[[int], str]
        if batch:
            payloads = _batch_payloads(data)
            prefix = _batch_prefix
        else:
            payloads = [data]
            prefix = _single_prefix
        clubs = _submitting_clubs(request, payloads, prefix)
        now = clock.now()
        outcomes: list[services.SubmitOutcome] = []
        for attempt in (1, 2):
            try:
                outcomes = services.match_batch_submit(
                    payloads=payloads,
                    submitted_by=request.user,
                    now=now,
                    channel=Channel.API,
                    clubs=clubs,
                    prefix=prefix,
                )
                break
            except IntegrityError:
                # A twin request stored the same id between our check and our insert: the
                # second attempt sees it (same content: not stored again; other: a problem).
                # Inside the idempotency record's transaction, which the error aborted, that
                # layer starts again instead.
                if attempt == 2 or connection.in_atomic_block:
                    raise
        created = sum(1 for outcome in outcomes if outcome.created)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        results = _submit_results(outcomes)
        if not batch:
            return Response(results[0], status=code)
        body = {
            "matches": results,
            "created": created,
            "unchanged": len(outcomes) - created,
        }
        return Response(body, status=code)


def _single_prefix(_index: int) -> str:
    return ""


def _batch_prefix(index: int) -> str:
    return f"matches[{index}]"


def _batch_payloads(data: Mapping[str, Any]) -> list[Any]:
    problems = []
    extra = sorted(set(data) - {"matches"})
    if extra:
        problems.append(
            Problem(
                extra[0],
                ngettext(
                    'a batch is {"matches": [...]} only; unknown field: %(names)s',
                    'a batch is {"matches": [...]} only; unknown fields: %(names)s',
                    len(extra),
                )
                % {"names": ", ".join(extra)},
            )
        )
    payloads = data["matches"]
    if not isinstance(payloads, list):
        problems.append(Problem("matches", "matches must be a list of match objects"))
    elif not payloads:
        problems.append(Problem("matches", "no match to submit"))
    elif len(payloads) > MAX_BATCH:
        problems.append(
            Problem("matches", f"at most {MAX_BATCH} matches per request, not {len(payloads)}")
        )
    if problems:
        raise InvalidSubmission(problems)
    return payloads


def _submitting_clubs(
    request: Request, payloads: Sequence[Any], prefix: Callable[[int], str]
) -> tuple[Club, ...] | None:
    """The secretary's clubs the service checks every match against (None for an admin).

    A secretary of several clubs may mix them in a batch: every match's club must be one of
    theirs (checked here, before anything is parsed, so that the answer is a 403 naming
    each foreign club's path even for an otherwise invalid match); the service checks
    again.
    """
    if request.user.is_staff:
        return None
    secretary = caller_clubs(request)
    clubs = secretary.by_code()
    if not clubs:
        raise ApiProblems(
            [Problem("club", "you are not the secretary of any club; ask the federation")],
            status.HTTP_403_FORBIDDEN,
        )
    foreign = []
    for index, payload in enumerate(payloads):
        club_id = payload.get("club") if isinstance(payload, Mapping) else None
        if isinstance(club_id, str) and club_id.strip() and club_id.strip() not in clubs:
            path = f"{prefix(index)}.club" if prefix(index) else "club"
            foreign.append(
                Problem(
                    path,
                    f"you submit results for {', '.join(sorted(clubs))} only, "
                    f"not for {club_id.strip()}",
                )
            )
    if foreign:
        raise ApiProblems(foreign, status.HTTP_403_FORBIDDEN)
    return secretary.clubs


def _match_write_responses(code: int) -> dict[int | str, Any]:
    """The documented responses of a POST that changes one match: the match with ``code``,
    404 (not yours or no such match), 422 (Idempotency-Key reused) and the common errors."""
    return {
        code: MatchOutputSerializer,
        404: ErrorsSerializer,
        415: ErrorsSerializer,
        422: ErrorsSerializer,
        **_ERROR_RESPONSES,
    }


class MatchDetailAPI(_AuthenticatedAPI):
    """``GET /api/matches/{pk}``."""

    @extend_schema(
        operation_id="matches_retrieve",
        summary="One match by database id",
        parameters=[_PK_PARAMETER],
        description="404 for a match of a club you are not the secretary of (unless admin).",
        responses={200: MatchOutputSerializer, 404: ErrorsSerializer, **_ERROR_RESPONSES},
        tags=["matches"],
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(MatchOutputSerializer(_visible_match(request, pk)).data)


@extend_schema_field(MatchFieldsSerializer)
class _CorrectedMatchField(serializers.JSONField):
    """Any JSON here: the validation module checks the match and reports every problem."""


class MatchCorrectAPI(_AuthenticatedAPI):
    """``POST /api/matches/{pk}/correct``."""

    class InputSerializer(serializers.Serializer):
        match = _CorrectedMatchField(
            help_text="the corrected match; id and club may be left out (they cannot change)"
        )
        reason = serializers.CharField(required=False, allow_blank=True, max_length=2000)

        class Meta:
            ref_name = "MatchCorrection"

    @extend_schema(
        operation_id="matches_correct",
        summary="Correct a match (a new revision; the old one stops counting)",
        description=(
            "A secretary may correct their club's match until the deadline of the month it "
            "counts in (403 after); an admin at any time. Problems have paths under match."
        ),
        request=InputSerializer,
        parameters=[_PK_PARAMETER, _IDEMPOTENCY_PARAMETER],
        responses=_match_write_responses(201),
        tags=["matches"],
    )
    def post(self, request: Request, pk: int) -> Response:
        return respond_once(request, lambda: self._correct(request, pk))

    def _correct(self, request: Request, pk: int) -> Response:
        match = _visible_match(request, pk)
        serializer = self.InputSerializer(data=json_body(request))
        serializer.is_valid(raise_exception=True)
        payload = serializer.validated_data["match"]
        if isinstance(payload, Mapping):
            fixed = {"id": match.external_id, "club": match.club.club_id}
            changed = [
                Problem(f"match.{name}", f"a correction keeps the match's {name} {value!r}")
                for name, value in fixed.items()
                if name in payload and payload[name] != value
            ]
            if changed:
                raise InvalidSubmission(changed)
            payload = {**payload, **fixed}
        try:
            new = services.match_correct(
                match=match,
                payload=payload,
                by=request.user,
                now=clock.now(),
                reason=serializer.validated_data.get("reason", ""),
                as_admin=request.user.is_staff,
                channel=Channel.API,
            )
        except InvalidSubmission as exc:
            raise InvalidSubmission(
                [Problem(f"match.{p.path}" if p.path else "match", p.message) for p in exc.problems]
            ) from exc
        return Response(
            MatchOutputSerializer(_visible_match(request, new.pk)).data,
            status=status.HTTP_201_CREATED,
        )


class MatchVoidAPI(_AuthenticatedAPI):
    """``POST /api/matches/{pk}/void`` (admin)."""

    class InputSerializer(serializers.Serializer):
        reason = serializers.CharField(max_length=2000, help_text="why; kept in the audit trail")

        class Meta:
            ref_name = "MatchVoid"

    @extend_schema(
        operation_id="matches_void",
        summary="Void a match from the first list it can still affect (admin only)",
        request=InputSerializer,
        parameters=[_PK_PARAMETER, _IDEMPOTENCY_PARAMETER],
        responses=_match_write_responses(200),
        tags=["matches"],
    )
    def post(self, request: Request, pk: int) -> Response:
        return respond_once(request, lambda: self._void(request, pk))

    def _void(self, request: Request, pk: int) -> Response:
        if not request.user.is_staff:
            raise ApiProblems(
                [Problem("", "only federation admins void matches")], status.HTTP_403_FORBIDDEN
            )
        match = _visible_match(request, pk)
        serializer = self.InputSerializer(data=json_body(request))
        serializer.is_valid(raise_exception=True)
        services.match_void(
            match=match,
            by=request.user,
            reason=serializer.validated_data["reason"],
            now=clock.now(),
        )
        return Response(MatchOutputSerializer(_visible_match(request, pk)).data)


class ClubOutputSerializer(serializers.Serializer):
    club_id = serializers.CharField()
    name = serializers.CharField()
    country = serializers.CharField()
    city = serializers.CharField()

    class Meta:
        ref_name = "Club"


class MeAPI(_AuthenticatedAPI):
    """``GET /api/me``: who you are, your clubs, and how long the open month stays open."""

    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        is_admin = serializers.BooleanField()
        clubs = ClubOutputSerializer(many=True)
        server_time = serializers.DateTimeField()
        open_month = serializers.CharField(help_text="YYYY-MM: matches played now count in it")
        deadline = serializers.DateTimeField(help_text="first instant of the next month")
        seconds_to_deadline = serializers.IntegerField()
        countdown = serializers.CharField(help_text="e.g. '3 days 04:05:06'")

        class Meta:
            ref_name = "Me"

    @extend_schema(
        operation_id="me",
        summary="Your clubs and the deadline of the open month",
        responses={200: OutputSerializer, **_ERROR_RESPONSES},
        tags=["auth"],
    )
    def get(self, request: Request) -> Response:
        now = clock.now()
        tz = clock.federation_tz()
        month = local_month(now, tz)
        due = deadline(month, tz)
        left = max(0, int((due - now).total_seconds()))
        days, rest = divmod(left, 86400)
        hours, rest = divmod(rest, 3600)
        minutes, seconds = divmod(rest, 60)
        body = {
            "username": request.user.get_username(),
            "is_admin": bool(request.user.is_staff),
            "clubs": list(caller_clubs(request).clubs),
            "server_time": now,
            "open_month": str(month),
            "deadline": due,
            "seconds_to_deadline": left,
            "countdown": f"{days} day{'s' if days != 1 else ''} "
            f"{hours:02d}:{minutes:02d}:{seconds:02d}",
        }
        return Response(self.OutputSerializer(body).data)
