"""Schemathesis over the whole API schema, as a secretary and as an admin (issue 16, item 10).

The schema is the one ``/api/schema/`` serves (drf-spectacular's generator, with
:mod:`fido.openapi`'s hook); every request goes through the WSGI application in-process,
on the test's PostgreSQL transaction, with a real token in ``Authorization`` (a new one for
each request, so that ``DELETE /api/auth/token`` revoking it spoils nothing). Per
operation: the schema's examples, the coverage phase (boundary values, each constraint
broken in turn: negative data) and ``MAX_EXAMPLES`` generated requests, derandomized, so a
run is the same every time.

Checked on every response (schemathesis's checks): no 5xx; the status code, the content
type, the headers and the body as the schema documents them; a request that breaks the
schema refused with a 4xx (negative data); a request the schema allows accepted (positive
data). The last cannot hold where acceptance depends on the data rather than its form, and
is left out there only: a submission, correction or void names players, clubs and matches
that must exist (a 400 naming them otherwise), a what-if names an existing player, a game
record must be a legal game, a password must be right, and the match list's ``date_to``
must not be before its ``date_from`` (a 400 saying so, rather than an empty list).

Generated months and player ids rarely name a published list, so a second test sends the
ranking endpoints requests for real lists (two closed months and a projection) and runs the
same checks on their 200 answers (it found the projection's ``version`` and
``published_at``, null, documented as never null).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance  # type: ignore[attr-defined]

from fido.wsgi_body import ChunkedBodyMiddleware
from matches.services.tokens import token_issue
from tests.matches.factories import AdminFactory, ClubFactory, PlayerFactory, SecretaryFactory

MAX_EXAMPLES = 15

schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
# The application as fido.wsgi composes it (without that module's garbage-collector tuning).
schema.app = ChunkedBodyMiddleware(get_wsgi_application())
schema.config.generation.update(max_examples=MAX_EXAMPLES, deterministic=True)

# Where a request the schema allows may still be refused for its data (see above).
DATA_DEPENDENT = {
    "POST /api/auth/token",
    "GET /api/matches",
    "POST /api/matches",
    "POST /api/matches/{id}/correct",
    "POST /api/matches/{id}/void",
    "POST /api/rankings/{discipline}/whatif",
    "POST /api/records/replay",
}

pytestmark = [pytest.mark.django_db, pytest.mark.postgres, pytest.mark.redis]


@pytest.fixture
def in_process(settings: Any) -> Iterator[None]:
    """Rate limits out of the way (a 429 is documented everywhere, but would hide what the
    requests after it find); the test's connection kept open across in-process requests."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            "anon": "1000000/min",
            "user": "1000000/min",
            "submissions": "1000000/min",
        },
    }
    # In-process requests share the test's connection: it must outlive each request.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def callers(in_process: None) -> dict[str, Any]:
    """A club with players, its secretary and an admin."""
    club = ClubFactory(club_id="CLUB-7")
    for _ in range(4):
        PlayerFactory(club=club)
    return {"secretary": SecretaryFactory(club=club).user, "admin": AdminFactory()}


@pytest.mark.parametrize("role", ["secretary", "admin"])
@schema.parametrize()
@settings(suppress_health_check=list(HealthCheck), deadline=None)
def test_the_api_keeps_to_its_schema(case: Any, callers: dict[str, Any], role: str) -> None:
    key, _ = token_issue(user=callers[role])
    excluded = [positive_data_acceptance] if case.operation.label in DATA_DEPENDENT else []
    case.call_and_validate(headers={"Authorization": f"Token {key}"}, excluded_checks=excluded)


# Generated months and players rarely name a published list, so the 200 answers of the ranking
# endpoints are checked here on real lists: two closed months of the worked example and the
# projection of the month after. Every check runs, the body's schema among them.
PUBLISHED = [
    ("/api/rankings/{discipline}", {"discipline": "fido"}, {}),
    ("/api/rankings/{discipline}", {"discipline": "fido"}, {"country": "AT", "page_size": 1}),
    ("/api/rankings/{discipline}/{month}", {"discipline": "fido", "month": "2026-04"}, {}),
    (
        "/api/rankings/{discipline}/{month}",
        {"discipline": "fido", "month": "2026-03"},
        {"version": 1, "q": "Anna", "page": 1},
    ),
    ("/api/rankings/{discipline}/lists", {"discipline": "fido"}, {}),
    ("/api/rankings/{discipline}/{month}/diff", {"discipline": "fido", "month": "2026-04"}, {}),
    (
        "/api/rankings/{discipline}/{month}/diff",
        {"discipline": "fido", "month": "2026-04"},
        {"from": "2026-03"},
    ),
    (
        "/api/rankings/{discipline}/players/{player_id}",
        {"discipline": "fido", "player_id": "P-A"},
        {},
    ),
    (
        "/api/rankings/{discipline}/players/{player_id}/results",
        {"discipline": "fido", "player_id": "P-A"},
        {"month": "2026-03"},
    ),
    (
        "/api/rankings/{discipline}/players/{player_id}/ledger",
        {"discipline": "fido", "player_id": "P-A"},
        {},
    ),
    (
        "/api/rankings/{discipline}/players/{player_id}/forecast",
        {"discipline": "fido", "player_id": "P-E"},
        {},
    ),
    ("/api/rankings/{discipline}/projected", {"discipline": "fido"}, {}),
    ("/api/players", {}, {"q": "Anna"}),
]


@pytest.fixture
def lists(in_process: None) -> None:
    from rankings.services.projection import projection_refresh
    from tests.rankings.factories import submit_table, worked_example_lists

    berlin, players = worked_example_lists()
    submit_table(berlin, [([players[0]], 10), ([players[4]], 12)], id="t2", date="2026-05-05")
    projection_refresh(discipline="fido")


@pytest.mark.parametrize(("path", "path_parameters", "query"), PUBLISHED)
def test_published_lists_answer_as_documented(
    lists: None, path: str, path_parameters: dict[str, str], query: dict[str, Any]
) -> None:
    case = schema[path]["GET"].Case(path_parameters=path_parameters, query=query)
    response = case.call_and_validate()
    assert response.status_code == 200, response.text[:500]
