"""The admin's review before the close (rankings.selectors.anomalies, review_movers), as the
projection computes and stores it (rankings.services.projection_review): each flag raised
by a case it is meant for and not by its near miss, with the matches behind it; movers,
new entries and drop-outs of the projection against the current list. The page reads what
was stored and asks no question itself."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import pytest
from django.db import DatabaseError, connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from matches import clock
from matches.models import Club, Match, Player
from matches.months import Month, deadline
from matches.services import match_batch_submit, match_void
from rankings.models import ProjectionReview, ProjectionRun
from rankings.selectors import anomalies
from rankings.selectors.lists import current_list
from rankings.selectors.projection import projected_list
from rankings.selectors.review_movers import projection_movers
from rankings.selectors.stored_review import StoredReview, stored_review
from rankings.services import projection_review
from rankings.services.projection import projection_refresh
from tests.clock import BERLIN
from tests.matches.factories import ClubFactory, PlayerFactory, match_payload
from tests.rankings.factories import close, received

pytestmark = pytest.mark.django_db
JULY = Month.parse("2026-07")
Table = tuple[Sequence[Player], Sequence[Player]]


def store(
    club: Club, tables: Sequence[Table], *, day: str, prefix: str, now: dt.datetime | None = None
) -> list[Match]:
    """Tables (first side wins 2:1) played on ``day``, stored in one batch."""
    payloads = [
        match_payload(club, [(list(a), 2), (list(b), 1)], id=f"{prefix}{n}", date=day)
        for n, (a, b) in enumerate(tables)
    ]
    match_batch_submit(
        payloads=payloads,
        submitted_by=None,
        now=now or received(dt.date.fromisoformat(day)),
        channel="api",
    )
    return list(Match.objects.filter(external_id__startswith=prefix, club=club))


def reviewed(month: Month = JULY) -> StoredReview:
    """Refresh the projection (the review is computed with it) and read the stored review,
    which must equal what the questions answer now."""
    projected = projection_refresh(discipline="fido")
    assert Month.of(projected.month) == month
    stored = stored_review(projected.pk)
    assert stored is not None
    assert stored.flags == anomalies.all_flags("fido", month, clock.federation_tz())
    info = projected_list("fido")
    assert info is not None
    assert stored.movers == projection_movers(info.ranking_list, current_list(discipline="fido"))
    return stored


def flags(kind: str) -> list[anomalies.Flag]:
    """One question's flags, as stored with the projection."""
    return reviewed().flags[kind]


def close_months_before(month: Month, first: Month) -> None:
    """Close ``first`` .. the month before ``month`` in order, so ``month`` is the open one."""
    while first != month:
        close(first)
        first = first.next()


def people(club: Club, n: int) -> list[Player]:
    return [PlayerFactory(club=club) for _ in range(n)]


def round_robin(players: Sequence[Player], count: int) -> list[Table]:
    """``count`` tables, each of two players, cycling through every pair."""
    pairs = [(a, b) for i, a in enumerate(players) for b in players[i + 1 :]]
    return [([pairs[n % len(pairs)][0]], [pairs[n % len(pairs)][1]]) for n in range(count)]


def test_a_club_far_above_its_usual_volume() -> None:
    quiet, busy = ClubFactory(club_id="CLUB-Q"), ClubFactory(club_id="CLUB-B")
    q, b = people(quiet, 8), people(busy, 8)
    for k in range(1, 7):  # the six months before July: 1 a month, and 10 a month
        day = f"{(JULY + -k)}-05"
        store(quiet, round_robin(q, 1), day=day, prefix=f"q{k}-")
        store(busy, round_robin(b, 10), day=day, prefix=f"b{k}-")
    store(quiet, round_robin(q, 25), day="2026-07-10", prefix="qj-")  # 25 >= 3 x 1 and 1 + 20
    store(busy, round_robin(b, 25), day="2026-07-10", prefix="bj-")  # 25 < 3 x 10
    close_months_before(JULY, JULY + -6)
    [flag] = flags("club_volume")
    assert flag.kind == "club_volume" and "CLUB-Q" in flag.subject
    assert flag.figures["matches"] == 25 and flag.figures["usual"] == 1.0
    assert flag.match_count == 25 and len(flag.matches) == anomalies.MATCHES_SHOWN
    assert all(m.label.startswith("CLUB-Q/qj-") for m in flag.matches)


def test_a_club_without_history_needs_the_minimum_extra() -> None:
    new = ClubFactory(club_id="CLUB-N")
    players = people(new, 8)
    store(
        new, round_robin(players, anomalies.CLUB_VOLUME_MIN_EXTRA - 1), day="2026-07-02", prefix="n"
    )
    assert flags("club_volume") == []
    store(new, round_robin(players, 1), day="2026-07-03", prefix="m")
    assert len(flags("club_volume")) == 1


def test_more_results_in_a_day_than_a_day_allows() -> None:
    club = ClubFactory(club_id="CLUB-D")
    tireless, steady, *others = people(club, 12)
    most = anomalies.RESULTS_PER_DAY_MAX
    store(
        club,
        [([tireless], [others[n % 10]]) for n in range(most + 1)],
        day="2026-07-04",
        prefix="t",
    )
    store(club, [([steady], [others[n % 10]]) for n in range(most)], day="2026-07-04", prefix="s")
    store(club, [([steady], [others[n % 10]]) for n in range(most)], day="2026-07-05", prefix="u")
    busy = flags("busy_day")
    assert [(f.subject, f.figures["results"], f.figures["day"]) for f in busy] == [
        (f"{tireless.name} ({tireless.player_id})", most + 1, dt.date(2026, 7, 4))
    ]
    assert busy[0].match_count == most + 1 and len(busy[0].matches) == anomalies.MATCHES_SHOWN


def test_many_results_in_the_last_hour_before_the_deadline() -> None:
    late, early = ClubFactory(club_id="CLUB-L"), ClubFactory(club_id="CLUB-E")
    end = deadline(JULY, BERLIN)
    n = anomalies.LAST_HOUR_MIN
    store(
        late,
        round_robin(people(late, 6), n),
        day="2026-07-30",
        prefix="l",
        now=end - dt.timedelta(minutes=20),
    )
    # Not many in the last hour: the same number an hour and a minute before, and one fewer
    # inside the hour.
    ep = people(early, 6)
    store(
        early, round_robin(ep, n), day="2026-07-30", prefix="e", now=end - dt.timedelta(minutes=61)
    )
    store(
        early,
        round_robin(ep, n - 1),
        day="2026-07-30",
        prefix="f",
        now=end - dt.timedelta(minutes=5),
    )
    [flag] = flags("last_hour")
    assert "CLUB-L" in flag.subject and flag.match_count == n
    assert flag.figures["deadline"] == end
    assert {m.label for m in flag.matches} == {f"CLUB-L/l{k}" for k in range(n)}


def test_a_pair_with_most_results_against_each_other() -> None:
    club = ClubFactory(club_id="CLUB-P")
    a, b, c, d, e, f = people(club, 6)
    least = anomalies.PAIR_MIN_SHARED
    store(club, [([a], [b])] * least + [([a], [c])], day="2026-07-08", prefix="ab")
    # c and d met as often, but each played more against others than against each other;
    # e and f met fewer times than the threshold.
    store(
        club,
        [([c], [d])] * least + [([c], [e])] * least + [([d], [f])] * least,
        day="2026-07-09",
        prefix="cd",
    )
    store(club, [([e], [f])] * (least - 1), day="2026-07-10", prefix="ef")
    pairs = flags("pair")
    assert [f.figures for f in pairs] == [
        {"shared": least, "first_total": least + 1, "second_total": least}
    ]
    assert a.player_id in pairs[0].subject and b.player_id in pairs[0].subject
    assert len(pairs[0].matches) == least


def test_team_mates_are_not_a_pair_against_each_other() -> None:
    club = ClubFactory(club_id="CLUB-T")
    a, b, c, d = people(club, 4)
    store(club, [([a, b], [c, d])] * anomalies.PAIR_MIN_SHARED, day="2026-07-08", prefix="tm")
    pairs = {frozenset(f.subject.split(" / ")) for f in flags("pair")}
    names = {p.pk: f"{p.name} ({p.player_id})" for p in (a, b, c, d)}
    assert frozenset({names[a.pk], names[b.pk]}) not in pairs
    assert frozenset({names[a.pk], names[c.pk]}) in pairs


def test_near_duplicate_matches() -> None:
    club, other = ClubFactory(club_id="CLUB-X"), ClubFactory(club_id="CLUB-Y")
    a, b, c = people(club, 3)
    [first] = store(club, [([a], [b])], day="2026-07-12", prefix="d1")
    [second] = store(
        other, [([b], [a])], day="2026-07-12", prefix="d2"
    )  # same players, entered twice
    store(club, [([a], [b])], day="2026-07-13", prefix="d3")  # another day
    store(club, [([a], [c])], day="2026-07-12", prefix="d4")  # another opponent
    store(club, [([a, b], [c])], day="2026-07-12", prefix="d5")  # more players
    [flag] = flags("near_duplicate")
    assert [m.pk for m in flag.matches] == [first.pk, second.pk]
    assert flag.subject == "CLUB-X/d10 / CLUB-Y/d20" and flag.figures == {
        "day": dt.date(2026, 7, 12)
    }
    match_void(match=second, by=None, reason="entered twice", now=received(dt.date(2026, 7, 20)))
    assert flags("near_duplicate") == []


def test_movers_new_entries_and_drop_outs() -> None:
    club = ClubFactory(club_id="CLUB-M")
    a, b, c, d, e = people(club, 5)
    store(club, [([a], [b]), ([a], [c]), ([c], [b]), ([d], [c])], day="2026-06-10", prefix="j")
    close("2026-06")
    # In July c wins a national event: c climbs; e is new; a result of June still counts,
    # so nobody drops out unless voided: void d's only win, so d drops out.
    store(club, [([c], [a]), ([c], [b]), ([e], [a])], day="2026-07-10", prefix="k")
    void = Match.objects.get(external_id="j3")
    match_void(match=void, by=None, reason="wrong player", now=received(dt.date(2026, 7, 20)))
    movers = reviewed().movers
    assert [m.player_id for m in movers.up][:1] == [c.player_id]
    assert all(m.places is not None and m.places > 0 for m in movers.up)
    assert all(m.places is not None and m.places < 0 for m in movers.down)
    assert [m.player_id for m in movers.new_entries] == [e.player_id] and movers.new_count == 1
    assert [m.player_id for m in movers.drop_outs] == [d.player_id] and movers.drop_count == 1
    assert movers.drop_outs[0].new_rank is None and movers.drop_outs[0].old_cents


@pytest.mark.usefixtures("fast_passwords")
def test_the_review_page_shows_flags_with_their_matches(client) -> None:
    from tests.matches.factories import UserFactory

    club = ClubFactory(club_id="CLUB-R")
    a, b = people(club, 2)
    store(club, [([a], [b])], day="2026-07-12", prefix="r1")
    store(club, [([a], [b])], day="2026-07-12", prefix="r2")
    url = "/dashboard/review/fido/"
    assert client.get(url).status_code == 302
    client.force_login(UserFactory(is_staff=False))
    assert client.get(url).status_code == 403
    client.force_login(UserFactory(is_staff=True))
    assert client.get("/dashboard/review/chess/").status_code == 404
    assert "no projected list to review yet" in client.get(url).content.decode()
    projection_refresh(discipline="fido")
    page = client.get(url).content.decode()
    assert "CLUB-R/r10 / CLUB-R/r20: the same players on the same day (2026-07-12)." in page
    assert "1 flag to look at" in page and page.count("Nothing unusual.") == 4
    assert "Flags as of " in page and ", with the projection." in page
    assert f"/admin/matches/match/{Match.objects.get(external_id='r10').pk}/change/" in page
    assert "Review before the close" in client.get("/dashboard/").content.decode()
    german = client.get(url, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "dieselben Spieler am selben Tag (2026-07-12)" in german
    assert "Nichts Auffälliges." in german
    assert "mit der Hochrechnung berechnet" in german


def reviewer(client: Client) -> Client:
    from tests.matches.factories import UserFactory

    client.force_login(UserFactory(is_staff=True))
    return client


def duplicates_stored() -> None:
    club = ClubFactory(club_id="CLUB-S")
    a, b = people(club, 2)
    store(club, [([a], [b])], day="2026-07-12", prefix="s1")
    store(club, [([a], [b])], day="2026-07-12", prefix="s2")


def review_page(client: Client, **headers: str) -> tuple[str, list[str]]:
    """The review page's text and the statements it ran."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/dashboard/review/fido/", **headers)
    assert response.status_code == 200
    return response.content.decode(), [q["sql"] for q in captured.captured_queries]


def asks_no_question(statements: list[str]) -> None:
    """No statement read the month's matches (the flags) nor a list's entries (the movers)."""
    read = [sql for sql in statements if "matches_" in sql or "rankings_rankingentry" in sql]
    assert read == [], read
    assert len(statements) <= 8, statements


@pytest.mark.usefixtures("fast_passwords")
def test_the_page_reads_the_stored_review_and_asks_no_question(client: Client) -> None:
    duplicates_stored()
    projection_refresh(discipline="fido")
    # Results that arrive after the projection are not on the page until the next refresh:
    # it shows what was stored, and when.
    late = ClubFactory(club_id="CLUB-Z")
    c, d = people(late, 2)
    store(late, [([c], [d]), ([d], [c])], day="2026-07-13", prefix="z")
    page, statements = review_page(reviewer(client))
    asks_no_question(statements)
    assert "CLUB-Z" not in page and "1 flag to look at" in page
    assert "CLUB-S/s10 / CLUB-S/s20: the same players on the same day (2026-07-12)." in page
    review = ProjectionReview.objects.get()
    computed = review.computed_at.astimezone(clock.federation_tz()).strftime("%Y-%m-%d %H:%M")
    assert f"Flags as of {computed}, with the projection." in page
    assert "Who moves" in page


@pytest.mark.usefixtures("fast_passwords")
def test_a_projection_without_a_stored_review_says_so_and_offers_the_refresh(
    client: Client,
) -> None:
    duplicates_stored()
    projection_refresh(discipline="fido")
    ProjectionReview.objects.all().delete()  # as a projection made before reviews were stored
    page, statements = review_page(reviewer(client))
    asks_no_question(statements)
    assert "The flags and movers of this projection were not stored" in page
    assert 'href="/dashboard/#discipline-fido"' in page
    assert "Refresh the projection on the cycle dashboard" in page
    assert "flag to look at" not in page and "Who moves" not in page
    assert "CLUB-S/s10" not in page
    german, _statements = review_page(client, HTTP_ACCEPT_LANGUAGE="de")
    assert "Auffälligkeiten und Bewegungen dieser Hochrechnung wurden nicht" in german
    assert "Hochrechnung im Zyklus-Dashboard erneuern" in german
    # The next refresh stores the review with the projection.
    projection_refresh(discipline="fido")
    page, _statements = review_page(client)
    assert "CLUB-S/s10 / CLUB-S/s20" in page and "were not stored" not in page


def test_a_review_that_fails_fails_the_run_and_leaves_the_list_without_a_review(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    duplicates_stored()
    run = ProjectionRun.objects.create(discipline="fido", created_at=clock.now())

    def broken(*args: object) -> None:
        raise DatabaseError("canceling statement due to statement timeout")

    monkeypatch.setattr(projection_review.anomalies, "all_flags", broken)
    with pytest.raises(DatabaseError):
        projection_refresh(discipline="fido", run=run)
    run.refresh_from_db()
    assert run.state == ProjectionRun.State.FAILED and "statement timeout" in run.error
    assert run.stage == "review"
    projected = projected_list("fido")
    assert projected is not None and stored_review(projected.ranking_list.id) is None


def test_a_new_projection_replaces_the_review_with_its_list() -> None:
    duplicates_stored()
    first = projection_refresh(discipline="fido")
    second = projection_refresh(discipline="fido")
    assert list(ProjectionReview.objects.values_list("ranking_list_id", flat=True)) == [second.pk]
    assert stored_review(first.pk) is None
