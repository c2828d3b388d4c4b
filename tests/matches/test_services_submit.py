"""matches.services: submission, classification, idempotency per id, correction, void, merge."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import IntegrityError, transaction
from django.db.transaction import TransactionManagementError

from matches import sql
from matches.models import ClosedMonth, Match, MatchEvent, Player, PlayerMerge, Side, SideMember
from matches.months import Month
from matches.services import (
    NotAllowed,
    match_batch_submit,
    match_correct,
    match_submit,
    match_void,
    month_freeze,
    player_merge,
)
from matches.validation import InvalidSubmission
from tests.clock import BERLIN, NOW
from tests.matches.factories import (
    AdminFactory,
    ClubFactory,
    PlayerFactory,
    UserFactory,
    match_payload,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def four(club):
    return [PlayerFactory(club=club) for _ in range(4)]


def submit(club, payload, now=NOW, user=None):
    return match_submit(club=club, payload=payload, submitted_by=user, now=now, channel="api")


def correct(match, payload, by, reason, **options):
    """A correction through the web form (by a secretary, now, unless ``options`` say)."""
    options = {"now": NOW, "as_admin": False, "channel": "web", **options}
    return match_correct(match=match, payload=payload, by=by, reason=reason, **options)


def counts() -> tuple[int, int, int]:
    return Match.objects.count(), Side.objects.count(), SideMember.objects.count()


def test_submit_stores_match_sides_members_and_event(club, four) -> None:
    a, b, c, d = four
    payload = match_payload(club, [([a], 57), ([b], 31), ([c], 31), ([d], -4)], category="league")
    outcome = submit(club, payload)
    assert outcome.created
    match = outcome.match
    assert (match.status, match.counting_month) == ("on_time", dt.date(2026, 3, 1))
    assert match.submission.channel == "api"
    assert list(match.sides.values_list("position", "score")) == [
        (1, 57),
        (2, 31),
        (3, 31),
        (4, -4),
    ]
    member = SideMember.objects.get(player=d)
    assert (member.base, member.score, member.side_position) == (20, -4, 4)
    assert (member.month_played, member.counting_month) == (dt.date(2026, 3, 1),) * 2
    assert member.discipline == "fido" and member.void_effective_month is None
    assert MatchEvent.objects.filter(match=match, kind="submitted").count() == 1


def test_same_id_same_content_is_not_stored_twice(club, four) -> None:
    a, b, *_ = four
    payload = match_payload(club, [([a], 3), ([b], 1)])
    first = submit(club, payload)
    again = submit(club, payload, now=NOW + dt.timedelta(hours=1))
    assert again.created is False and again.match.pk == first.match.pk
    assert counts() == (1, 2, 2)


def test_same_id_other_content_is_refused(club, four) -> None:
    a, b, *_ = four
    submit(club, match_payload(club, [([a], 3), ([b], 1)]))
    with pytest.raises(InvalidSubmission) as err:
        submit(club, match_payload(club, [([a], 1), ([b], 3)]))
    assert err.value.problems[0].path == "id"
    assert "correct that match (My submissions, Correct)" in err.value.problems[0].message
    assert counts() == (1, 2, 2)


def test_every_problem_is_reported_at_once_and_nothing_stored(club, four) -> None:
    a, *_ = four
    payload = {
        "id": '=HYPERLINK("x")',
        "date": "2026-02-30",
        "club": club.club_id,
        "discipline": "chess",
        "category": "club",
        "sides": [{"players": [a.player_id, a.player_id], "score": "abc"}],
    }
    with pytest.raises(InvalidSubmission) as err:
        submit(club, payload)
    paths = {p.path for p in err.value.problems}
    assert {"id", "date", "discipline", "sides", "sides[0].players[1]", "sides[0].score"} <= paths
    assert counts() == (0, 0, 0)


@pytest.mark.parametrize(
    ("sides", "path", "fragment"),
    [
        (
            [(["P-404"], 1), (None, 0)],
            "sides[0].players[0]",
            "there is no player P-404; check the federation id",
        ),
        ([(None, 1)], "sides", "2 to 9 sides, not 1"),
        ([(None, i) for i in range(10)], "sides", "2 to 9 sides, not 10"),
    ],
)
def test_unknown_players_and_side_counts(club, sides, path, fragment) -> None:
    payload_sides = []
    for ids, score in sides:
        player_ids = ids if ids is not None else [PlayerFactory(club=club).player_id]
        payload_sides.append({"players": player_ids, "score": score})
    payload = {**match_payload(club, []), "sides": payload_sides}
    with pytest.raises(InvalidSubmission) as err:
        submit(club, payload)
    assert any(p.path == path and fragment in p.message for p in err.value.problems)
    assert counts() == (0, 0, 0)


def test_unknown_club_and_future_date_and_old_date(four) -> None:
    a, b, *_ = four
    ghost = ClubFactory.build(club_id="CLUB-404", name="Ghost")  # never saved
    with pytest.raises(InvalidSubmission) as err:
        match_batch_submit(
            payloads=[match_payload(ghost, [([a], 1), ([b], 0)])],
            submitted_by=None,
            now=NOW,
            channel="api",
        )
    assert err.value.problems[0].as_dict() == {
        "path": "matches[0].club",
        "message": "there is no club CLUB-404; check the club id",
    }
    club = a.club
    with pytest.raises(InvalidSubmission, match="in the future"):
        submit(club, match_payload(club, [([a], 1), ([b], 0)], date="2026-03-21"))
    with pytest.raises(InvalidSubmission, match="results older than 11 months"):
        submit(club, match_payload(club, [([a], 1), ([b], 0)], date="2025-03-31"))
    assert counts() == (0, 0, 0)


def test_secretary_cannot_submit_for_another_club(club, four) -> None:
    a, b, *_ = four
    other = ClubFactory(club_id="CLUB-8")
    with pytest.raises(NotAllowed, match="CLUB-7 only"):
        match_batch_submit(
            payloads=[match_payload(other, [([a], 1), ([b], 0)])],
            submitted_by=None,
            now=NOW,
            channel="web",
            clubs=[club],
        )
    assert counts() == (0, 0, 0)


def test_batch_is_all_or_nothing(club, four) -> None:
    a, b, c, _ = four
    good = match_payload(club, [([a], 1), ([b], 0)], id="g")
    bad = match_payload(club, [([c], 1), ([c], 0)], id="b")
    with pytest.raises(InvalidSubmission) as err:
        match_batch_submit(
            payloads=[good, bad], submitted_by=None, now=NOW, channel="csv", clubs=[club]
        )
    assert err.value.problems[0].path == "matches[1].sides[1].players[0]"
    assert counts() == (0, 0, 0)


def test_late_result_counts_in_the_month_received_and_never_in_a_closed_one(club, four) -> None:
    a, b, *_ = four
    late = submit(
        club,
        match_payload(club, [([a], 1), ([b], 0)], id="late"),
        now=dt.datetime(2026, 4, 1, 0, 0, tzinfo=BERLIN),
    ).match
    assert (late.status, late.counting_month) == ("late", dt.date(2026, 4, 1))
    month_freeze(discipline="fido", month=Month(2026, 4), by=None, now=NOW)
    moved = submit(
        club,
        match_payload(club, [([a], 1), ([b], 0)], id="moved"),
        now=dt.datetime(2026, 4, 30, 9, 0, tzinfo=BERLIN),
    ).match
    assert moved.counting_month == dt.date(2026, 5, 1)
    assert ClosedMonth.objects.count() == 1


def test_honoured_submitted_at_is_only_for_the_import(club, four) -> None:
    a, b, *_ = four
    payload = match_payload(club, [([a], 1), ([b], 0)], submitted_at="2026-03-31T21:40:00+02:00")
    with pytest.raises(InvalidSubmission, match="only accepted by the admin import"):
        submit(club, payload, now=dt.datetime(2026, 4, 5, tzinfo=BERLIN))
    [outcome] = match_batch_submit(
        payloads=[payload],
        submitted_by=None,
        channel="import",
        now=dt.datetime(2026, 4, 5, tzinfo=BERLIN),
        honour_submitted_at=True,
    )
    assert outcome.match.status == "on_time"
    assert outcome.match.received_at == dt.datetime(2026, 3, 31, 19, 40, tzinfo=dt.UTC)


def test_secretary_corrects_until_the_deadline_then_not(club, four) -> None:
    a, b, c, _ = four
    user = UserFactory()
    old = submit(club, match_payload(club, [([a], 1), ([b], 0)])).match
    fixed_payload = match_payload(club, [([a], 0), ([c], 1)])
    new = correct(
        old,
        fixed_payload,
        user,
        "wrong player",
        now=dt.datetime(2026, 3, 31, 23, 59, tzinfo=BERLIN),
    )
    old.refresh_from_db()
    assert (new.revision, new.replaces_id, new.counting_month) == (2, old.pk, dt.date(2026, 3, 1))
    assert old.void_effective_month == dt.date(2026, 3, 1)  # never counts
    assert set(
        SideMember.objects.filter(match=old).values_list("void_effective_month", flat=True)
    ) == {dt.date(2026, 3, 1)}
    assert MatchEvent.objects.filter(kind="corrected").count() == 2
    with pytest.raises(NotAllowed, match="already voided or replaced"):
        correct(old, fixed_payload, user, "again")
    with pytest.raises(NotAllowed, match="deadline for 2026-03 has passed"):
        correct(
            new,
            match_payload(club, [([a], 5), ([c], 1)]),
            user,
            "late fix",
            now=dt.datetime(2026, 4, 1, 0, 0, tzinfo=BERLIN),
        )


def test_admin_correction_after_close_counts_from_the_first_open_month(club, four) -> None:
    a, b, *_ = four
    old = submit(club, match_payload(club, [([a], 1), ([b], 0)])).match
    month_freeze(discipline="fido", month=Month(2026, 3), by=None, now=NOW)
    new = correct(
        old,
        match_payload(club, [([a], 0), ([b], 1)]),
        AdminFactory(),
        "typo",
        now=dt.datetime(2026, 4, 3, tzinfo=BERLIN),
        as_admin=True,
    )
    old.refresh_from_db()
    assert old.void_effective_month == dt.date(2026, 4, 1)  # L(March) keeps the old result
    assert (new.status, new.counting_month) == ("late", dt.date(2026, 4, 1))


def test_void_takes_effect_from_the_first_open_month_with_who_and_why(club, four) -> None:
    a, b, *_ = four
    match = submit(club, match_payload(club, [([a], 1), ([b], 0)])).match
    month_freeze(discipline="fido", month=Month(2026, 3), by=None, now=NOW)
    admin = AdminFactory()
    match_void(match=match, by=admin, reason="forfeit", now=dt.datetime(2026, 4, 2, tzinfo=BERLIN))
    match.refresh_from_db()
    assert match.void_effective_month == dt.date(2026, 4, 1)
    assert SideMember.objects.filter(void_effective_month=dt.date(2026, 4, 1)).count() == 2
    event = MatchEvent.objects.get(kind="voided")
    assert (event.by, event.reason, event.details) == (
        admin,
        "forfeit",
        {"effective_month": "2026-04"},
    )
    with pytest.raises(InvalidSubmission, match="already voided"):
        match_void(match=match, by=admin, reason="again", now=NOW)
    with pytest.raises(InvalidSubmission, match="needs a reason"):
        match_void(
            match=submit(club, match_payload(club, [([a], 1), ([b], 0)], id="x")).match,
            by=admin,
            reason="  ",
            now=NOW,
        )


def test_merge_moves_every_result_and_keeps_an_audit_trail(club, four) -> None:
    a, b, c, d = four
    submit(club, match_payload(club, [([a], 1), ([b], 0)], id="m1"))
    submit(club, match_payload(club, [([a], 1), ([c], 0)], id="m2"))
    submit(club, match_payload(club, [([d], 1), ([c], 0)], id="m3"))
    merge = player_merge(source=a, target=d, by=AdminFactory(), reason="same person", now=NOW)
    assert merge.results_moved == 2
    assert SideMember.objects.filter(player=a).count() == 0
    assert SideMember.objects.filter(player=d).count() == 3
    a.refresh_from_db()
    assert a.merged_into == d
    assert MatchEvent.objects.filter(kind="merged").count() == 2
    # The old id still resolves: a new result for it goes to the survivor.
    outcome = submit(club, match_payload(club, [([a], 1), ([b], 0)], id="m4"))
    assert SideMember.objects.get(match=outcome.match, side_position=1).player == d
    assert PlayerMerge.objects.count() == 1


def test_merge_refused_when_both_played_in_one_match(club, four) -> None:
    a, b, *_ = four
    submit(club, match_payload(club, [([a], 1), ([b], 0)], id="m1"))
    with pytest.raises(InvalidSubmission, match="same match"):
        player_merge(source=a, target=b, by=None, reason="dup", now=NOW)
    assert Player.objects.filter(merged_into__isnull=False).count() == 0


def test_problems_are_worded_in_the_active_language(club, four) -> None:
    from django.utils import translation

    a, *_ = four
    payload = match_payload(club, [([a], 1)], date="2026-03-21")
    with translation.override("de"), pytest.raises(InvalidSubmission) as err:
        submit(club, payload)
    assert err.value.problems[0].message == "eine Partie hat 2 bis 9 Seiten, nicht 1"
    payload = match_payload(club, [([a], 1), ([four[1]], 0)], date="2026-03-21")
    with translation.override("de"), pytest.raises(InvalidSubmission) as err:
        submit(club, payload)
    assert err.value.problems[0].message.startswith(
        "das Spieldatum 2026-03-21 liegt in der Zukunft"
    )


# --- match_batch_submit's transaction contract (savepoint=False by default) ----------------


def _submit_in(club, payload, *, savepoint: bool):
    return match_batch_submit(
        payloads=[payload],
        submitted_by=None,
        now=NOW,
        channel="api",
        clubs=[club],
        savepoint=savepoint,
    )


def _twin_stored_meanwhile(monkeypatch) -> None:
    """The stored revisions read before the insert miss a twin's row, as when a twin request
    commits the same id between that read and this insert: the insert then violates the
    unique constraint."""
    real = sql.match_revisions
    monkeypatch.setattr(sql, "match_revisions", lambda _codes, _ids: real(["-"], ["-"]))


@pytest.fixture
def table_of_four(club, four):
    return match_payload(club, [([p], 10 * i) for i, p in enumerate(four)], id="twin")


@pytest.fixture
def twin(club, table_of_four, monkeypatch):
    """A match stored by a twin request that the next submission of it will not see."""
    submit(club, table_of_four)
    _twin_stored_meanwhile(monkeypatch)
    return table_of_four


def test_without_a_savepoint_a_twin_collision_dooms_the_callers_transaction(club, twin) -> None:
    with transaction.atomic():
        with pytest.raises(IntegrityError):
            _submit_in(club, twin, savepoint=False)
        assert transaction.get_connection().needs_rollback
        with pytest.raises(TransactionManagementError):
            Match.objects.count()
    assert Match.objects.count() == 1  # the caller's transaction rolled back; the twin stays


def test_with_a_savepoint_the_caller_goes_on_after_a_twin_collision(club, twin) -> None:
    with transaction.atomic():
        with pytest.raises(IntegrityError):
            _submit_in(club, twin, savepoint=True)
        assert not transaction.get_connection().needs_rollback
        assert Match.objects.count() == 1


@pytest.mark.parametrize("savepoint", [False, True])
def test_problems_are_raised_after_the_block_and_leave_the_callers_transaction_usable(
    club, table_of_four, savepoint
) -> None:
    unknown = {**table_of_four, "sides": [{"players": ["P-NOBODY"], "score": 1}] * 2}
    with transaction.atomic():
        with pytest.raises(InvalidSubmission):
            _submit_in(club, unknown, savepoint=savepoint)
        assert not transaction.get_connection().needs_rollback
        assert Match.objects.count() == 0
