"""The audit trail nobody can forge (issue 14, item 4).

In the admin, submissions, match events, player merges and their undos, closed months, close
runs, ranking lists and their entries are read-only for everyone (a superuser here): the add,
change and delete URLs are refused and nothing changes. Outside the services, their model's
save and delete are refused before any SQL runs. A merge can be undone within its month, as a
new event, and not after it.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import models

from matches import audit
from matches.audit import AuditRecordRefused
from matches.models import (
    ClosedMonth,
    Match,
    MatchEvent,
    Player,
    PlayerMerge,
    PlayerMergeUndo,
    Side,
    SideMember,
    Submission,
)
from matches.months import Month
from matches.services import (
    match_submit,
    match_void,
    month_freeze,
    player_merge,
    player_merge_undo,
)
from matches.validation import InvalidSubmission
from rankings.models import CloseRun, RankingEntry, RankingList
from rankings.services.close_run import close_run_create
from tests.clock import BERLIN, NOW
from tests.matches.factories import AdminFactory, ClubFactory, PlayerFactory, match_payload

pytestmark = pytest.mark.django_db
AUDIT_MODELS: list[type[models.Model]] = [
    Submission,
    MatchEvent,
    PlayerMerge,
    PlayerMergeUndo,
    ClosedMonth,
    CloseRun,
    RankingList,
    RankingEntry,
]


@pytest.fixture
def trail(fast_passwords):
    """One row of every audit model, each made by its service (lists: a test fixture)."""
    admin = AdminFactory()
    club = ClubFactory()
    a, b, c = (PlayerFactory(club=club) for _ in range(3))
    match_submit(
        club=club,
        payload=match_payload(club, [([a], 1), ([b], 0)], id="m1"),
        submitted_by=admin,
        now=NOW,
        channel="web",
    )
    merge = player_merge(source=a, target=c, by=admin, reason="same person", now=NOW)
    player_merge_undo(merge=merge, by=admin, reason="not the same person", now=NOW)
    month_freeze(discipline="fido", month=Month(2026, 2), by=admin, now=NOW)
    close_run_create(month="2026-02", discipline="fido", by=admin)
    with audit.recording():  # a stored list, as the close writes it (its own tests)
        ranking_list = RankingList.objects.create(
            discipline="fido", month=dt.date(2026, 2, 1), created_at=NOW
        )
        RankingEntry.objects.create(
            ranking_list=ranking_list, player=b, rank=1, fladub_cents=100, results_counted=1
        )
    return admin, {model: model.objects.first() for model in AUDIT_MODELS}


def _url(model: type[models.Model], suffix: str) -> str:
    return f"/admin/{model._meta.app_label}/{model._meta.model_name}/{suffix}"


def _counts() -> list[int]:
    return [model.objects.count() for model in AUDIT_MODELS]


@pytest.mark.parametrize("model", AUDIT_MODELS, ids=lambda m: m.__name__)
def test_the_admin_refuses_add_change_and_delete_even_to_a_superuser(client, trail, model):
    admin, rows = trail
    assert admin.is_superuser
    client.force_login(admin)
    row = rows[model]
    before = _counts()
    assert client.get(_url(model, "")).status_code == 200  # the list is there to read
    assert client.get(_url(model, "add/")).status_code == 403
    assert client.post(_url(model, "add/"), {"reason": "fake"}).status_code == 403
    page = client.get(_url(model, f"{row.pk}/change/"))
    assert page.status_code == 200 and b'name="_save"' not in page.content  # read, not edit
    assert client.post(_url(model, f"{row.pk}/change/"), {"reason": "x"}).status_code == 403
    assert client.get(_url(model, f"{row.pk}/delete/")).status_code == 403
    assert client.post(_url(model, f"{row.pk}/delete/"), {"post": "yes"}).status_code == 403
    bulk = {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"}
    client.post(_url(model, ""), bulk)
    assert _counts() == before
    assert model.objects.filter(pk=row.pk).exists()


@pytest.mark.parametrize("model", AUDIT_MODELS, ids=lambda m: m.__name__)
def test_saving_or_deleting_outside_the_services_is_refused(trail, model):
    _, rows = trail
    row = rows[model]
    before = _counts()
    with pytest.raises(AuditRecordRefused, match="audit trail"):
        row.save()
    with pytest.raises(AuditRecordRefused, match="audit trail"):
        row.delete()
    row.pk = None  # a forged copy: a new row
    with pytest.raises(AuditRecordRefused):
        row.save()
    assert _counts() == before


def test_a_forged_merge_cannot_be_created_by_hand(trail) -> None:
    admin, _ = trail
    a, b = PlayerFactory(), PlayerFactory()
    with pytest.raises(AuditRecordRefused):
        PlayerMerge.objects.create(
            source=a, target=b, merged_by=admin, merged_at=NOW, reason="fake", results_moved=0
        )
    assert PlayerMerge.objects.count() == 1


@pytest.fixture
def merged(fast_passwords):
    admin = AdminFactory()
    club = ClubFactory()
    a, b, d, e, old = (PlayerFactory(club=club) for _ in range(5))
    for n, opponent in enumerate([b, d]):
        match_submit(
            club=club,
            payload=match_payload(club, [([a], 1), ([opponent], 0)], id=f"m{n}"),
            submitted_by=admin,
            now=NOW,
            channel="api",
        )
    earlier = player_merge(source=old, target=a, by=admin, reason="old duplicate", now=NOW)
    merge = player_merge(source=a, target=e, by=admin, reason="same person?", now=NOW)
    return admin, merge, (a, e, old), earlier


def test_a_merge_is_undone_within_its_month_as_a_new_event(merged) -> None:
    admin, merge, (a, e, old), _earlier = merged
    assert merge.results_moved == 2 and SideMember.objects.filter(player=a).count() == 0
    later = NOW + dt.timedelta(days=5)
    undo = player_merge_undo(merge=merge, by=admin, reason="two people after all", now=later)
    assert (undo.results_moved, undo.undone_by, undo.undone_at) == (2, admin, later)
    assert SideMember.objects.filter(player=a).count() == 2
    assert SideMember.objects.filter(player=e).count() == 0
    a.refresh_from_db()
    old.refresh_from_db()
    assert a.merged_into is None and old.merged_into == a  # the earlier merge stands again
    events = MatchEvent.objects.filter(kind="unmerged")
    assert events.count() == 2
    assert {e.reason for e in events} == {"two people after all"}
    # The merge itself is unchanged: history is appended to, never rewritten.
    assert PlayerMerge.objects.get(pk=merge.pk).reason == "same person?"
    with pytest.raises(InvalidSubmission, match="already undone"):
        player_merge_undo(merge=merge, by=admin, reason="again", now=later)
    assert PlayerMergeUndo.objects.count() == 1


def test_a_merge_of_an_earlier_month_or_without_reason_is_not_undone(merged) -> None:
    admin, merge, (a, e, _old), _ = merged
    april = dt.datetime(2026, 4, 1, 0, 30, tzinfo=BERLIN)
    with pytest.raises(InvalidSubmission, match="within the month it was made in"):
        player_merge_undo(merge=merge, by=admin, reason="too late", now=april)
    with pytest.raises(InvalidSubmission, match="needs a reason"):
        player_merge_undo(merge=merge, by=admin, reason=" ", now=NOW)
    assert PlayerMergeUndo.objects.count() == 0
    assert SideMember.objects.filter(player=a).count() == 0
    assert Player.objects.get(pk=a.pk).merged_into == e


def test_undo_from_the_admin_asks_a_reason(client, merged, set_now) -> None:
    admin, merge, (a, *_), _ = merged
    client.force_login(admin)
    set_now(NOW + dt.timedelta(days=1))
    data = {"action": "undo_merges", "_selected_action": [merge.pk]}
    page = client.post(_url(PlayerMerge, ""), data)
    assert page.status_code == 200 and b"reason" in page.content
    client.post(_url(PlayerMerge, ""), {**data, "apply": "1", "reason": "two people"})
    assert PlayerMergeUndo.objects.get().undone_by == admin
    assert Player.objects.get(pk=a.pk).merged_into is None


@pytest.mark.parametrize("model", [Match, Side, SideMember], ids=lambda m: m.__name__)
def test_a_stored_result_is_not_edited_in_place_nor_deleted_by_hand(trail, model) -> None:
    """The results themselves: a correction is a new revision, a void an event (services);
    a shell's ``save()`` of a changed row or ``delete()`` is refused before any SQL runs."""
    row = model.objects.first()
    assert row is not None
    before = {m: m.objects.count() for m in (Match, Side, SideMember)}
    if model is Match:
        row.void_reason = "edited by hand"
    with pytest.raises(AuditRecordRefused, match="cannot be changed by hand"):
        row.save()
    with pytest.raises(AuditRecordRefused, match="cannot be deleted by hand"):
        row.delete()
    assert {m: m.objects.count() for m in (Match, Side, SideMember)} == before
    if model is Match:
        assert Match.objects.get(pk=row.pk).void_reason == ""


def test_the_void_service_still_marks_a_match_voided(trail) -> None:
    admin, _ = trail
    match = Match.objects.first()
    assert match is not None and match.voided_at is None
    match_void(match=match, by=admin, reason="entered twice", now=NOW)
    match.refresh_from_db()
    assert match.voided_at == NOW and match.void_reason == "entered twice"
