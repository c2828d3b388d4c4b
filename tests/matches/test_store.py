"""matches.store: the one-statement PostgreSQL write and the table-by-table write store the
same rows, column by column; a one-match submission is one INSERT statement there."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext

from matches import store
from matches.models import (
    IdempotencyRecord,
    Match,
    MatchEvent,
    Player,
    Side,
    SideMember,
    Submission,
)
from matches.services import match_batch_submit
from tests.clock import NOW
from tests.matches.factories import UserFactory, match_payload

pytestmark = pytest.mark.django_db


def batch(club, players, prefix: str) -> list[dict[str, Any]]:
    """A table of four singles with a game record field, and a team game of 2 x 2."""
    a, b, c, d, e, f, g, h = players
    return [
        match_payload(club, [([a], 57), ([b], 31), ([c], 31), ([d], -4)], id=f"{prefix}-1"),
        match_payload(
            club,
            [([e, f], 120), ([g, h], 95)],
            id=f"{prefix}-2",
            date="2026-02-27",
            discipline="allfives",
            category="league",
        ),
    ]


def stored(prefix: str) -> list[dict[str, Any]]:
    """Every row the batch wrote, keys replaced by what they point to."""
    rows = []
    for match in Match.objects.filter(external_id__startswith=prefix).order_by("external_id"):
        data = model_to_dict(match, exclude=["id", "submission"])
        data["external_id"] = data["external_id"].split("-", 1)[1]
        submission = model_to_dict(match.submission, exclude=["id"])
        sides = [
            (
                model_to_dict(side, exclude=["id", "match"]),
                sorted(
                    (model_to_dict(m, exclude=["id", "match", "side"]) for m in side.members.all()),
                    key=lambda m: m["player"],
                ),
            )
            for side in Side.objects.filter(match=match).order_by("position")
        ]
        events = [
            model_to_dict(e, exclude=["id", "match"])
            for e in MatchEvent.objects.filter(match=match)
        ]
        rows.append({"match": data, "submission": submission, "sides": sides, "events": events})
    return rows


@pytest.mark.postgres
def test_one_statement_and_table_by_table_store_the_same_rows(club, players, monkeypatch):
    user = UserFactory()
    match_batch_submit(
        payloads=batch(club, players, "one"), submitted_by=user, now=NOW, channel="api"
    )
    monkeypatch.setattr(store, "ONE_STATEMENT_MAX_PARAMS", 0)
    match_batch_submit(
        payloads=batch(club, players, "two"), submitted_by=user, now=NOW, channel="api"
    )

    one, two = stored("one"), stored("two")
    assert len(one) == 2
    assert sum(len(s[1]) for s in one[0]["sides"]) == 4
    assert one == two


@pytest.mark.postgres
def test_a_one_match_submission_is_one_insert_statement(club, players):
    with CaptureQueriesContext(connection) as queries:
        match_batch_submit(
            payloads=batch(club, players, "q")[:1], submitted_by=None, now=NOW, channel="api"
        )

    inserts = [q["sql"] for q in queries if "INSERT" in q["sql"]]
    assert len(inserts) == 1
    assert inserts[0].startswith("WITH s AS (INSERT")
    assert (Submission.objects.count(), Match.objects.count(), SideMember.objects.count()) == (
        1,
        1,
        4,
    )


def test_several_submissions_in_one_batch_go_table_by_table(club, players, monkeypatch):
    """An import whose lines carry their own submitted_at: one Submission per line."""
    calls = []
    real = store.write_table_by_table

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "write_table_by_table", counted)
    payloads = batch(club, players, "imp")
    payloads[0]["submitted_at"] = "2026-03-15T10:00:00+01:00"
    payloads[1]["submitted_at"] = "2026-03-16T10:00:00+01:00"

    match_batch_submit(
        payloads=payloads, submitted_by=None, now=NOW, channel="import", honour_submitted_at=True
    )

    assert calls == [1]
    assert Submission.objects.count() == 2
    assert sorted(Match.objects.values_list("submission__received_at", flat=True)) == [
        dt.datetime(2026, 3, 15, 9, tzinfo=dt.UTC),
        dt.datetime(2026, 3, 16, 9, tzinfo=dt.UTC),
    ]


def test_a_column_is_read_directly_unless_pre_save_fills_it():
    """The statement's values skip ``pre_save`` only where it would just read the attribute:
    an ``auto_now_add`` column (none on the tables written here today) still gets it."""
    assert not store._plain_pre_save(Player._meta.get_field("created_at"))
    assert not store._plain_pre_save(IdempotencyRecord._meta.get_field("created_at"))
    plain = [prep.column for prep in store._preps(Match) if prep.plain]
    assert plain == [prep.column for prep in store._preps(Match)]
    assert "received_at" in plain and "club_id" in plain and "submission_id" not in plain
