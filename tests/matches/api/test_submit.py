"""POST /api/matches: what is stored, who may submit, and every kind of bad input."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from matches.models import ApiKey, Match, MatchEvent, Side, SideMember, Submission
from matches.services.tokens import token_digest
from tests.clock import BERLIN, NOW
from tests.matches.api.conftest import counts, errors_at
from tests.matches.factories import SecretaryFactory, UserFactory, match_payload

pytestmark = pytest.mark.django_db

URL = "/api/matches"


def post(client, body, **headers):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(URL, data=data, content_type="application/json", headers=headers)


# --- happy paths -----------------------------------------------------------------------


def test_one_match_is_stored_with_every_row(as_secretary, secretary, table, players, club):
    response = post(as_secretary, table())

    assert response.status_code == 201, response.json()
    body = response.json()
    match = Match.objects.get()
    assert body == {
        "pk": match.pk,
        "id": "CLUB-7/2026-03-14/t1",
        "club": "CLUB-7",
        "revision": 1,
        "status": "on_time",
        "counting_month": "2026-03",
        "received_at": "2026-03-20T12:00:00+01:00",
        "created": True,
    }
    assert (match.club, match.date_played, match.discipline, match.category) == (
        club,
        dt.date(2026, 3, 14),
        "fido",
        "club",
    )
    assert match.counting_month == dt.date(2026, 3, 1)
    submission = Submission.objects.get()
    assert (submission.channel, submission.submitted_by, submission.club) == (
        "api",
        secretary,
        club,
    )
    assert submission.received_at == dt.datetime(2026, 3, 20, 12, tzinfo=BERLIN)
    assert list(Side.objects.order_by("position").values_list("position", "score")) == [
        (1, 57),
        (2, 31),
        (3, 31),
        (4, -4),
    ]
    members = SideMember.objects.order_by("side_position")
    assert [m.player for m in members] == players[:4]
    for member, score in zip(members, [57, 31, 31, -4], strict=True):
        assert member.match == match
        assert member.discipline == "fido"
        assert member.month_played == dt.date(2026, 3, 1)
        assert member.counting_month == dt.date(2026, 3, 1)
        assert member.base == 10
        assert member.score == score
        assert member.void_effective_month is None
    event = MatchEvent.objects.get()
    assert (event.match, event.kind, event.by) == (match, "submitted", secretary)
    assert event.details["channel"] == "api"


def test_a_batch_is_stored_in_one_submission(as_secretary, table):
    batch = {"matches": [table(id=f"CLUB-7/2026-03-14/t{n}") for n in range(1, 4)]}

    response = post(as_secretary, batch)

    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["created"], body["unchanged"]) == (3, 0)
    assert [m["id"] for m in body["matches"]] == [f"CLUB-7/2026-03-14/t{n}" for n in (1, 2, 3)]
    assert counts() == {
        "Match": 3,
        "Side": 12,
        "SideMember": 12,
        "Submission": 1,
        "MatchEvent": 3,
        "IdempotencyRecord": 0,
    }
    assert set(Match.objects.values_list("submission__channel", flat=True)) == {"api"}


def test_the_same_match_again_returns_the_stored_one(as_secretary, table):
    first = post(as_secretary, table())
    before = counts()

    again = post(as_secretary, table())

    assert again.status_code == 200
    assert again.json() == {**first.json(), "created": False}
    assert counts() == before


def test_a_batch_of_known_matches_is_200_and_stores_nothing(as_secretary, table):
    batch = {"matches": [table(id="a"), table(id="b")]}
    post(as_secretary, batch)
    before = counts()

    again = post(as_secretary, batch)

    assert again.status_code == 200
    assert (again.json()["created"], again.json()["unchanged"]) == (0, 2)
    assert counts() == before


def test_a_batch_mixing_stored_and_new_matches_gives_each_its_own_receipt(as_secretary, table, now):
    """The results of a batch are formatted once per receipt time and month: a match
    already stored keeps the time it was received, the new one has this request's."""
    post(as_secretary, table(id="earlier"))
    now(NOW + dt.timedelta(hours=2))

    response = post(as_secretary, {"matches": [table(id="earlier"), table(id="later")]})

    assert response.status_code == 201, response.json()
    earlier, later = response.json()["matches"]
    assert (earlier["created"], later["created"]) == (False, True)
    assert dt.datetime.fromisoformat(earlier["received_at"]) == NOW
    assert dt.datetime.fromisoformat(later["received_at"]) == NOW + dt.timedelta(hours=2)
    assert earlier["counting_month"] == later["counting_month"] == "2026-03"
    stored = {m.external_id: m.received_at for m in Match.objects.all()}
    assert stored == {"earlier": NOW, "later": NOW + dt.timedelta(hours=2)}


def test_other_content_under_a_stored_id_is_refused(as_secretary, table):
    post(as_secretary, table())
    before = counts()
    changed = table()
    changed["sides"][0]["score"] = 58

    response = post(as_secretary, changed)

    assert response.status_code == 400
    assert errors_at(response) == ["id"]
    assert "correct that match" in response.json()["errors"][0]["message"]
    assert counts() == before


# --- who may submit ----------------------------------------------------------------------


def test_anonymous_is_401_and_stores_nothing(api, table):
    response = post(api, table())

    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Token"
    assert errors_at(response) == [""]
    assert counts()["Match"] == 0


def test_a_bad_token_is_401(api, table):
    response = post(api, table(), Authorization="Token nope")

    assert response.status_code == 401
    errors_at(response)


def test_a_token_from_the_token_endpoint_works(api, secretary, table):
    response = api.post(
        "/api/auth/token",
        {"username": secretary.username, "password": "pw-for-tests-123"},
        format="json",
    )
    assert response.status_code == 200, response.json()
    token = response.json()["token"]
    assert ApiKey.objects.get(user=secretary).digest == token_digest(token)  # hashed at rest

    submitted = post(api, table(), Authorization=f"Token {token}")

    assert submitted.status_code == 201
    assert Submission.objects.get().submitted_by == secretary


def test_a_wrong_password_gets_no_token(api, secretary):
    response = api.post(
        "/api/auth/token", {"username": secretary.username, "password": "wrong"}, format="json"
    )

    assert response.status_code == 400
    assert errors_at(response) == [""]
    assert not ApiKey.objects.exists()


def test_session_login_works(api, secretary, table):
    api.force_login(secretary)

    response = post(api, table())

    assert response.status_code == 201


def test_another_club_is_403_and_stores_nothing(as_secretary, other_club, players):
    foreign = match_payload(other_club, [([players[0]], 1), ([players[1]], 0)], id="x")

    response = post(as_secretary, foreign)

    assert response.status_code == 403
    assert errors_at(response) == ["club"]
    assert "CLUB-9" in response.json()["errors"][0]["message"]
    assert counts()["Match"] == 0


def test_one_foreign_match_in_a_batch_refuses_the_batch(as_secretary, other_club, table):
    foreign = {**table(id="x"), "club": other_club.club_id}

    response = post(as_secretary, {"matches": [table(), foreign]})

    assert response.status_code == 403
    assert errors_at(response) == ["matches[1].club"]
    assert counts()["Match"] == 0


def test_a_user_with_no_club_is_403(api, table):
    api.force_authenticate(UserFactory())

    response = post(api, table())

    assert response.status_code == 403
    assert errors_at(response) == ["club"]
    assert counts()["Match"] == 0


def test_a_secretary_of_two_clubs_may_mix_them(api, secretary, table, other_club, players):
    SecretaryFactory(user=secretary, club=other_club)
    api.force_authenticate(secretary)
    second = {**table(id="y"), "club": other_club.club_id}

    response = post(api, {"matches": [table(), second]})

    assert response.status_code == 201, response.json()
    assert sorted(Match.objects.values_list("club__club_id", flat=True)) == ["CLUB-7", "CLUB-9"]


def test_an_admin_submits_for_any_club(as_admin, other_club, players):
    response = post(
        as_admin, match_payload(other_club, [([players[0]], 1), ([players[1]], 0)], id="z")
    )

    assert response.status_code == 201
    assert Match.objects.get().club == other_club


# --- bad input: a 4xx naming the field, nothing stored ----------------------------------


def _with(table, **changes):
    payload = table()
    payload.update(changes)
    return payload


def _side(table, index, **changes):
    payload = table()
    payload["sides"][index].update(changes)
    return payload


BAD_INPUT = {
    "score is text": (lambda t, p: _side(t, 0, score="abc"), "sides[0].score"),
    "score is true": (lambda t, p: _side(t, 1, score=True), "sides[1].score"),
    "score is huge": (lambda t, p: _side(t, 1, score=10**12), "sides[1].score"),
    "sides not a list": (lambda t, p: _with(t, sides={"players": ["P-1"]}), "sides"),
    "players not a list": (lambda t, p: _side(t, 1, players="P-000001"), "sides[1].players"),
    "player not text": (lambda t, p: _side(t, 2, players=[17]), "sides[2].players[0]"),
    "unknown player": (lambda t, p: _side(t, 2, players=["P-999999"]), "sides[2].players[0]"),
    "player twice": (
        lambda t, p: _side(t, 1, players=[p[0].player_id]),
        "sides[1].players[0]",
    ),
    "one side only": (lambda t, p: _with(t, sides=t()["sides"][:1]), "sides"),
    "ten sides": (
        lambda t, p: _with(t, sides=[{"players": [x.player_id], "score": 1} for x in p]),
        "sides",
    ),
    "no sides key": (lambda t, p: {k: v for k, v in t().items() if k != "sides"}, "sides"),
    "future date": (lambda t, p: _with(t, date="2026-03-21"), "date"),
    "date older than the window": (lambda t, p: _with(t, date="2025-03-31"), "date"),
    "impossible date": (lambda t, p: _with(t, date="2026-02-30"), "date"),
    "date as a number": (lambda t, p: _with(t, date=20260314), "date"),
    "formula in the id": (
        lambda t, p: _with(t, id='=HYPERLINK("http://evil.example","x")'),
        "id",
    ),
    "control character in the id": (lambda t, p: _with(t, id="t1\x00"), "id"),
    "id too long": (lambda t, p: _with(t, id="x" * 500), "id"),
    "unknown discipline": (lambda t, p: _with(t, discipline="chess"), "discipline"),
    "unknown category": (lambda t, p: _with(t, category="galactic"), "category"),
    "unknown field": (lambda t, p: _with(t, colour="red"), "colour"),
    "submitted_at is the admin import's": (
        lambda t, p: _with(t, submitted_at="2026-03-01T00:00:00+01:00"),
        "submitted_at",
    ),
    "a list, not a match": (lambda t, p: [t()], ""),
    "a string, not a match": (lambda t, p: json.dumps("match"), ""),
    "batch not a list": (lambda t, p: {"matches": t()}, "matches"),
    "empty batch": (lambda t, p: {"matches": []}, "matches"),
    "batch with extra field": (lambda t, p: {"matches": [t()], "x": 1}, "x"),
    "bad match in a batch": (
        lambda t, p: {"matches": [t(id="ok"), _side(t, 0, score="abc")]},
        "matches[1].sides[0].score",
    ),
    "id twice in a batch": (lambda t, p: {"matches": [t(), t()]}, "matches[1].id"),
}


@pytest.mark.parametrize("case", BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_is_a_400_naming_the_field(case, as_secretary, table, players):
    make, path = case
    before = counts()

    response = post(as_secretary, make(table, players))

    assert response.status_code == 400, response.content
    assert path in errors_at(response)
    assert counts() == before


def test_every_problem_is_reported_at_once(as_secretary, table):
    payload = _side(table, 0, score="abc")
    payload["date"] = "yesterday"
    payload["sides"][2]["players"] = ["P-999999"]
    payload["category"] = "galactic"

    response = post(as_secretary, payload)

    assert response.status_code == 400
    assert {"sides[0].score", "date", "category"} <= set(errors_at(response))


def test_unknown_players_and_club_for_an_admin(as_admin, table):
    payload = _side(table, 3, players=["P-424242"])
    payload["club"] = "CLUB-NOPE"

    response = post(as_admin, payload)

    assert response.status_code == 400
    assert {"club", "sides[3].players[0]"} <= set(errors_at(response))
    assert counts()["Match"] == 0


@pytest.mark.parametrize(
    "body",
    [b'{"id": "t1", "date": ', b"{'id': 1}", b"", b"   ", b'{"id": "\xc3\x28"}', b"[" * 100_000],
    ids=["truncated", "single quotes", "empty", "blank", "not utf-8", "nested too deep"],
)
def test_malformed_json_is_a_400_with_a_message(as_secretary, body):
    response = post(as_secretary, body)

    assert response.status_code == 400
    assert errors_at(response) == [""]
    assert counts()["Match"] == 0


def test_a_body_over_the_upload_limit_is_413(as_secretary, table, settings):
    huge = json.dumps({"matches": [table(id=f"t{n}") for n in range(40_000)]})
    assert len(huge) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE

    response = post(as_secretary, huge)

    assert response.status_code == 413
    assert errors_at(response) == [""]
    assert counts()["Match"] == 0


def test_a_batch_over_the_match_limit_is_400(as_secretary, table):
    response = post(as_secretary, {"matches": [table(id=f"t{n}") for n in range(501)]})

    assert response.status_code == 400
    assert errors_at(response) == ["matches"]
    assert counts()["Match"] == 0


# --- the clock: on time or late, and the counting month ----------------------------------


def test_the_last_second_of_the_month_is_on_time(as_secretary, table, now):
    now(dt.datetime(2026, 3, 31, 23, 59, 59, tzinfo=BERLIN))

    response = post(as_secretary, table(date="2026-03-31"))

    assert response.status_code == 201
    assert (response.json()["status"], response.json()["counting_month"]) == ("on_time", "2026-03")
    assert SideMember.objects.filter(counting_month=dt.date(2026, 3, 1)).count() == 4


def test_midnight_on_the_first_is_late_and_counts_in_the_new_month(as_secretary, table, now):
    now(dt.datetime(2026, 4, 1, 0, 0, 0, tzinfo=BERLIN))

    response = post(as_secretary, table(date="2026-03-31"))

    assert response.status_code == 201
    assert (response.json()["status"], response.json()["counting_month"]) == ("late", "2026-04")
    match = Match.objects.get()
    assert (match.status, match.counting_month) == ("late", dt.date(2026, 4, 1))
    assert match.date_played == dt.date(2026, 3, 31)
    assert set(SideMember.objects.values_list("counting_month", "month_played")) == {
        (dt.date(2026, 4, 1), dt.date(2026, 3, 1))
    }


def test_the_deadline_is_local_time_not_utc(as_secretary, table, now):
    # 22:30 UTC on 31 March is already 00:30 on 1 April in Berlin (summer time).
    now(dt.datetime(2026, 3, 31, 22, 30, tzinfo=dt.UTC))

    response = post(as_secretary, table(date="2026-03-31"))

    assert response.json()["status"] == "late"


def test_the_oldest_date_in_the_window_is_accepted(as_secretary, table, now):
    now(dt.datetime(2026, 3, 20, 12, tzinfo=BERLIN))

    response = post(as_secretary, table(date="2025-04-01"))

    assert response.status_code == 201
    assert response.json()["counting_month"] == "2026-03"


def test_bad_lines_of_a_batch_of_ten_are_named_line_by_line_and_nothing_is_stored(
    as_secretary, table, players
):
    post(as_secretary, table(id="stored"))
    changed = table(id="stored")
    changed["sides"][0]["score"] = 58
    before = counts()

    def refused(bad: dict[int, dict], key: str) -> list[str]:
        batch = [bad.get(i, table(id=f"ok{i}")) for i in range(10)]
        response = post(as_secretary, {"matches": batch}, **{"Idempotency-Key": key})
        assert response.status_code == 400, response.json()
        return sorted(errors_at(response))

    # Every bad line, each under its own index; the good ones are not mentioned.
    assert refused(
        {
            2: _side(table, 1, score="abc"),
            4: _side(table, 3, players=["P-999999"]),
            9: _with(table, id="chess", discipline="chess"),
        },
        "bad-lines",
    ) == ["matches[2].sides[1].score", "matches[4].sides[3].players[0]", "matches[9].discipline"]
    # The clock and the stored matches are asked once the lines are well formed.
    assert refused({5: _with(table, id="future", date="2026-03-21"), 7: changed}, "late") == [
        "matches[5].date",
        "matches[7].id",
    ]
    # Only the answers are kept for the keys: no match, side, member, submission or event.
    assert counts() == {**before, "IdempotencyRecord": before["IdempotencyRecord"] + 2}
    assert not Match.objects.filter(external_id__startswith="ok").exists()


def test_a_batch_costs_the_same_queries_as_one_match(as_secretary, table):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def statements(n, tag):
        batch = {"matches": [table(id=f"{tag}{i}") for i in range(n)]}
        with CaptureQueriesContext(connection) as queries:
            assert post(as_secretary, batch).status_code == 201
        return len(queries)

    assert statements(20, "big") == statements(2, "small")


def test_a_merged_player_id_resolves_to_the_surviving_record(as_secretary, table, players):
    from matches.models import Player

    old, survivor, third = players[0], players[4], players[5]
    # A chain two merges deep (the merge service keeps chains flat; resolve copes anyway).
    Player.objects.filter(pk=survivor.pk).update(merged_into=third)
    Player.objects.filter(pk=old.pk).update(merged_into=survivor)

    response = post(as_secretary, table())  # lists players[0], the oldest record

    assert response.status_code == 201, response.json()
    assert SideMember.objects.get(side_position=1).player == third
    twice = _side(table, 1, players=[third.player_id])
    twice["id"] = "t-twice"
    refused = post(as_secretary, twice)
    assert refused.status_code == 400
    assert errors_at(refused) == ["sides[1].players[0]"]


def test_wrong_types_keep_their_path_and_name_the_expected_type(as_secretary, table):
    """`"id": 5` is not "id is required"; players as a string is not "no player"."""
    body = table(id=5)
    body["sides"][0]["players"] = body["sides"][0]["players"][0]
    before = counts()
    response = post(as_secretary, body)
    assert response.status_code == 400
    assert {e["path"]: e["message"] for e in response.json()["errors"]} == {
        "id": "the match id must be text (unique per club), not a number",
        "sides[0].players": 'players must be a list of federation ids such as ["P-000001"], '
        "not text",
    }
    assert counts() == before
