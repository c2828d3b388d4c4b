"""The admin's review before the close (rankings.selectors.anomalies, review_movers): each
flag raised by a case it is meant for and not by its near miss, with the matches behind
it; movers, new entries and drop-outs of the projection against the current list."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import pytest

from matches.models import Club, Match, Player
from matches.months import Month, deadline
from matches.services import match_batch_submit, match_void
from rankings.selectors import anomalies
from rankings.selectors.lists import current_list
from rankings.selectors.projection import projected_list
from rankings.selectors.review_movers import projection_movers
from rankings.services.projection import projection_refresh
from tests.matches.factories import ClubFactory, PlayerFactory, match_payload
from tests.rankings.factories import BERLIN, close, received

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
    [flag] = anomalies.club_volume_flags("fido", JULY)
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
    assert anomalies.club_volume_flags("fido", JULY) == []
    store(new, round_robin(players, 1), day="2026-07-03", prefix="m")
    assert len(anomalies.club_volume_flags("fido", JULY)) == 1


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
    flags = anomalies.busy_day_flags("fido", JULY)
    assert [(f.subject, f.figures["results"], f.figures["day"]) for f in flags] == [
        (f"{tireless.name} ({tireless.player_id})", most + 1, dt.date(2026, 7, 4))
    ]
    assert flags[0].match_count == most + 1 and len(flags[0].matches) == anomalies.MATCHES_SHOWN


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
    [flag] = anomalies.last_hour_flags("fido", JULY, BERLIN)
    assert "CLUB-L" in flag.subject and flag.match_count == n
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
    flags = anomalies.pair_flags("fido", JULY)
    assert [f.figures for f in flags] == [
        {"shared": least, "first_total": least + 1, "second_total": least}
    ]
    assert a.player_id in flags[0].subject and b.player_id in flags[0].subject
    assert len(flags[0].matches) == least


def test_team_mates_are_not_a_pair_against_each_other() -> None:
    club = ClubFactory(club_id="CLUB-T")
    a, b, c, d = people(club, 4)
    store(club, [([a, b], [c, d])] * anomalies.PAIR_MIN_SHARED, day="2026-07-08", prefix="tm")
    pairs = {frozenset(f.subject.split(" / ")) for f in anomalies.pair_flags("fido", JULY)}
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
    [flag] = anomalies.near_duplicate_flags("fido", JULY)
    assert [m.pk for m in flag.matches] == [first.pk, second.pk]
    assert flag.subject == "CLUB-X/d10 / CLUB-Y/d20" and flag.figures == {
        "day": dt.date(2026, 7, 12)
    }
    match_void(match=second, by=None, reason="entered twice", now=received(dt.date(2026, 7, 20)))
    assert anomalies.near_duplicate_flags("fido", JULY) == []


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
    projection_refresh(discipline="fido")
    projected = projected_list("fido")
    assert projected is not None
    movers = projection_movers(projected.ranking_list, current_list(discipline="fido"))
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
    assert f"/admin/matches/match/{Match.objects.get(external_id='r10').pk}/change/" in page
    assert "Review before the close" in client.get("/dashboard/").content.decode()
    german = client.get(url, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "dieselben Spieler am selben Tag (2026-07-12)" in german
    assert "Nichts Auffälliges." in german
