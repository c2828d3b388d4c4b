"""The admin's cycle dashboard (``/dashboard/``), its close button and the run's JSON.

Staff only: anonymous visitors are sent to the login page, other users get 403. The close
button is disabled, with the reason shown, before the deadline, while the previous month
is not closed and while a close is running; a close needs a confirmation and is handed to
the worker through :func:`rankings.services.close.month_close_enqueue` (its message, sent by
task name through :mod:`rankings.dispatch`, is checked here;
tests/browser runs it on a real worker).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import socket
import subprocess
import time
from html import unescape
from typing import Any

import pytest
from django.test import Client

from fido.celery import app as celery_app
from matches import clock
from matches import services as match_services
from matches.audit import recording
from matches.models import Match, Player
from matches.months import Month
from rankings.models import CloseRun, RankingList
from rankings.services.close_run import close_run_create
from tests.clock import BERLIN
from tests.matches.factories import ClubFactory, PlayerFactory, SecretaryFactory, UserFactory
from tests.rankings.factories import after_deadline, close, received, submit_table

URL = "/dashboard/"
CLOSE = "/dashboard/close/"
pytestmark = pytest.mark.usefixtures("fast_passwords")  # set_now: tests/conftest.py


def text(html: str) -> str:
    html = re.sub(r"</?(?:code|small|strong|em|span|a|time)\b[^>]*>", "", html)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def card(html: str, discipline: str) -> str:
    found = re.search(
        rf'<section class="card" id="discipline-{discipline}".*?</section>', html, re.S
    )
    assert found, f"no card for {discipline}"
    return found.group(0)


@pytest.fixture
def staff(client: Client) -> Client:
    client.force_login(UserFactory(is_staff=True))
    return client


@pytest.fixture
def players(db: None) -> list[Player]:
    return [PlayerFactory() for _ in range(4)]


@pytest.fixture
def march(players: list[Player]) -> dict[str, Any]:
    """March 2026 of FIDO: two clubs, one on-time table each, one late table for CLUB-A."""
    a = ClubFactory(club_id="CLUB-A", name="Alpha")
    b = ClubFactory(club_id="CLUB-B", name="Beta")
    submit_table(a, [(players[:1], 30), (players[1:2], 10)], id="a1", date="2026-03-05")
    submit_table(b, [(players[2:3], 5), (players[3:], 1)], id="b1", date="2026-03-06")
    return {"a": a, "b": b}


# --- Access -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_anonymous_visitors_are_sent_to_the_login_page(client: Client) -> None:
    for method, url in (("get", URL), ("post", CLOSE), ("get", "/dashboard/runs/1.json")):
        response = getattr(client, method)(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")


@pytest.mark.django_db
def test_a_secretary_or_plain_user_gets_403(client: Client) -> None:
    secretary = SecretaryFactory().user
    for user in (secretary, UserFactory()):
        client.force_login(user)
        assert client.get(URL).status_code == 403
        assert client.post(CLOSE, {"discipline": "fido", "month": "2026-03"}).status_code == 403
        assert client.get("/dashboard/runs/1.json").status_code == 403
    assert not CloseRun.objects.exists()


@pytest.mark.django_db
def test_staff_see_every_discipline(staff: Client) -> None:
    response = staff.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    for discipline in ("fido", "allfives", "austrian"):
        card(html, discipline)
    assert "no-store" in response.get("Cache-Control", "") or "max-age=0" in response.get(
        "Cache-Control", ""
    )


# --- The open month, its deadline and its submissions ---------------------------------------


@pytest.mark.django_db
def test_open_month_deadline_and_counts_per_club(
    staff: Client, march: dict[str, Any], players: list[Player], set_now: Any
) -> None:
    # A table of February received on 3 March: late, it counts in March.
    submit_table(
        march["a"],
        [(players[:1], 3), (players[2:3], 2)],
        id="a0",
        date="2026-02-27",
        now=received(dt.date(2026, 3, 3)),
    )
    set_now(dt.datetime(2026, 3, 20, 12, 0, tzinfo=BERLIN))
    html = staff.get(URL).content.decode()
    fido = text(card(html, "fido"))
    assert "Open month 2026-03" in fido
    assert "Deadline 2026-04-01 00:00" in fido
    # Real time left: clocks go forward on 29 March, so 11 days and 11 hours, not 12.
    assert "11 d 11 h 0 min left" in fido
    assert "Counting in 2026-03 (open)" in fido
    assert "CLUB-A 1 1" in fido and "CLUB-B 1 0" in fido
    assert 'title="Alpha"' in card(html, "fido")
    assert "All clubs 2 1" in fido
    assert "Last closed month none yet" in fido
    # The countdown is live: the page hands the script the deadline and the server's now.
    assert 'data-deadline="2026-04-01T00:00:00+02:00"' in card(html, "fido")


@pytest.mark.django_db
def test_a_voided_match_is_not_counted(staff: Client, march: dict[str, Any], set_now: Any) -> None:
    set_now(dt.datetime(2026, 3, 20, 12, 0, tzinfo=BERLIN))
    match = Match.objects.get(external_id="b1")
    match_services.match_void(match=match, by=None, reason="duplicate", now=clock.now())
    fido = text(card(staff.get(URL).content.decode(), "fido"))
    assert "All clubs 1 0" in fido


# --- The close button: disabled reasons --------------------------------------------------------


@pytest.mark.django_db
def test_before_the_deadline_the_button_is_disabled_with_the_reason(
    staff: Client, march: dict[str, Any], set_now: Any
) -> None:
    set_now(dt.datetime(2026, 3, 31, 23, 59, tzinfo=BERLIN))
    html = card(staff.get(URL).content.decode(), "fido")
    assert re.search(r'<button type="submit" class="primary" disabled', html)
    assert (
        "The deadline of 2026-03 has not passed yet: it is 2026-04-01 00:00 (Europe/Berlin)."
        in text(html)
    )
    # The server refuses too, whatever the page showed.
    response = staff.post(CLOSE, {"discipline": "fido", "month": "2026-03", "confirm": "yes"})
    assert response.status_code == 400
    assert "has not passed yet" in text(response.content.decode())
    assert not CloseRun.objects.exists()


@pytest.mark.django_db
def test_after_the_deadline_the_button_is_enabled(
    staff: Client, march: dict[str, Any], set_now: Any
) -> None:
    set_now(after_deadline("2026-03"))
    html = card(staff.get(URL).content.decode(), "fido")
    assert re.search(r'<button type="submit" class="primary">Close 2026-03</button>', html)
    assert "refused-reason" not in html


@pytest.mark.django_db
def test_a_month_whose_previous_month_is_open_is_refused(
    staff: Client, march: dict[str, Any], players: list[Player], set_now: Any
) -> None:
    # February is closed (so the federation has a history), March is not.
    close("2026-02")
    set_now(after_deadline("2026-04"))
    response = staff.post(CLOSE, {"discipline": "fido", "month": "2026-04", "confirm": "yes"})
    assert response.status_code == 400
    assert "The previous month, 2026-03, is not closed yet: close it first." in text(
        response.content.decode()
    )
    assert not CloseRun.objects.filter(month=Month(2026, 4).first_day).exists()
    # The dashboard offers March, the open month, instead.
    fido = text(card(staff.get(URL).content.decode(), "fido"))
    assert "Open month 2026-03" in fido and "Last closed month 2026-02" in fido


def _march_run(discipline: str, state: str, stage: str, **fields: Any) -> CloseRun:
    """A close run of 2026-03 at ``state`` and ``stage``, made now unless ``fields`` say, as
    the close service records it."""
    fields = {"created_at": clock.now(), "timings": {"freeze": 0.01, "load": 1.5}, **fields}
    month = Month(2026, 3).first_day
    with recording():
        return CloseRun.objects.create(
            discipline=discipline, month=month, state=state, stage=stage, **fields
        )


@pytest.mark.django_db
def test_a_close_the_broker_did_not_take_says_it_starts_by_itself(
    staff: Client, march: dict[str, Any], set_now: Any
) -> None:
    set_now(after_deadline("2026-03"))
    _march_run("fido", CloseRun.State.QUEUED, CloseRun.Stage.QUEUED, dispatched_at=None)
    html = card(staff.get(URL).content.decode(), "fido")
    assert re.search(r'<button type="submit" class="primary" disabled', html)
    assert (
        "A close of 2026-03 is waiting for the task queue, which did not answer; it starts by"
        " itself within minutes of the queue's return."
    ) in text(html)
    assert "already running" not in text(html)


@pytest.mark.django_db
def test_a_running_close_disables_the_button_and_shows_its_progress(
    staff: Client, march: dict[str, Any], set_now: Any
) -> None:
    set_now(after_deadline("2026-03"))
    run = _march_run("fido", CloseRun.State.RUNNING, CloseRun.Stage.COMPUTE, percent=55)
    page = staff.get(URL).content.decode()
    html = card(page, "fido")
    assert re.search(r'<button type="submit" class="primary" disabled', html)
    assert "A close of 2026-03 is already running (running)." in text(html)
    # The progress bar, with its ARIA values, the stage and the JSON it polls.
    assert re.search(
        r'<progress id="progress-\d+" max="100" value="55" aria-valuemin="0" '
        r'aria-valuemax="100" aria-valuenow="55">',
        html,
    )
    assert "Computing FLADUB" in text(html)
    # The stages done so far by name, not by their code (issue 15, item 8).
    assert "Freezing the month 0.010 s · Loading results 1.500 s" in text(html)
    german = text(card(staff.get(URL, HTTP_ACCEPT_LANGUAGE="de").content.decode(), "fido"))
    assert "Monat wird eingefroren 0,010 s · " in german
    assert f'data-run-url="/dashboard/runs/{run.pk}.json"' in html
    assert 'data-finished="false"' in html
    # Without JavaScript the page refreshes itself while the run is active.
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in page
    response = staff.post(CLOSE, {"discipline": "fido", "month": "2026-03", "confirm": "yes"})
    assert response.status_code == 400
    assert CloseRun.objects.count() == 1
    # A run left "running" by a lost worker long ago no longer blocks the button.
    CloseRun.objects.filter(pk=run.pk).update(created_at=clock.now() - dt.timedelta(hours=2))
    html = card(staff.get(URL).content.decode(), "fido")
    assert "already running" not in html
    assert "<noscript><meta" not in staff.get(URL).content.decode()


# --- The close itself ---------------------------------------------------------------------


@pytest.mark.django_db
def test_without_confirmation_the_server_asks_and_does_nothing(
    staff: Client, march: dict[str, Any], set_now: Any
) -> None:
    set_now(after_deadline("2026-03"))
    response = staff.post(CLOSE, {"discipline": "fido", "month": "2026-03"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Close 2026-03 of the FIDO divisor game?" in text(html)
    assert '<input type="hidden" name="confirm" value="yes">' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert not CloseRun.objects.exists()


@pytest.mark.django_db
def test_the_close_needs_the_csrf_token(march: dict[str, Any], set_now: Any) -> None:
    set_now(after_deadline("2026-03"))
    client = Client(enforce_csrf_checks=True)
    client.force_login(UserFactory(is_staff=True))
    response = client.post(CLOSE, {"discipline": "fido", "month": "2026-03", "confirm": "yes"})
    assert response.status_code == 403
    assert not CloseRun.objects.exists()


@pytest.mark.django_db
def test_a_confirmed_close_is_enqueued_and_followed(
    staff: Client,
    march: dict[str, Any],
    set_now: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(celery_app, "send_task", lambda name, **kw: sent.append((name, kw)))
    set_now(after_deadline("2026-03"))
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(CLOSE, {"discipline": "fido", "month": "2026-03", "confirm": "yes"})
    assert response.status_code == 303
    assert response["Location"] == "/dashboard/#discipline-fido"
    run = CloseRun.objects.get()
    assert (run.discipline, run.month, run.state) == ("fido", dt.date(2026, 3, 1), "queued")
    assert run.requested_by is not None and run.requested_by.is_staff
    assert [(name, kw["args"], kw["task_id"]) for name, kw in sent] == [
        ("rankings.month_close", ("2026-03", "fido", run.pk), run.task_id)
    ]
    assert run.dispatched_at is not None  # out of the outbox
    page = staff.get(URL).content.decode()
    assert f"the ranking job is queued as run {run.pk}" in text(page)
    assert "Waiting for a worker" in text(card(page, "fido"))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"discipline": "chess", "month": "2026-03"}, "Unknown discipline."),
        ({"discipline": "fido", "month": "March"}, "Not a month (expected YYYY-MM)."),
    ],
)
def test_bad_close_input_is_a_400(staff: Client, data: dict[str, str], reason: str) -> None:
    response = staff.post(CLOSE, {**data, "confirm": "yes"})
    assert response.status_code == 400
    assert reason in text(response.content.decode())


@pytest.mark.django_db
def test_a_published_month_cannot_be_closed_again(
    staff: Client, march: dict[str, Any], set_now: Any
) -> None:
    close("2026-03")
    set_now(after_deadline("2026-04"))
    response = staff.post(CLOSE, {"discipline": "fido", "month": "2026-03", "confirm": "yes"})
    assert response.status_code == 400
    assert "The list of 2026-03 is already published." in text(response.content.decode())


# --- The run's JSON ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_run_json_gives_state_stage_percent_timings_and_error(staff: Client) -> None:
    with recording():
        run = _march_run(
            "allfives",
            CloseRun.State.FAILED,
            CloseRun.Stage.WRITE,
            percent=72,
            timings={"freeze": 0.01, "load": 1.25, "compute": 0.5},
            error="OperationalError: the database went away",
            created_at=dt.datetime(2026, 4, 1, 0, 5, tzinfo=BERLIN),
        )
    response = staff.get(f"/dashboard/runs/{run.pk}.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = json.loads(response.content)
    assert body["id"] == run.pk and body["discipline"] == "allfives" and body["month"] == "2026-03"
    assert (body["state"], body["stage"], body["percent"]) == ("failed", "write", 72)
    assert body["stage_label"] == "Writing entries"
    assert body["timings"] == {"freeze": 0.01, "load": 1.25, "compute": 0.5}
    assert body["timings_text"] == (
        "Freezing the month 0.010 s · Loading results 1.250 s · Computing FLADUB 0.500 s"
    )
    german = json.loads(
        staff.get(f"/dashboard/runs/{run.pk}.json", HTTP_ACCEPT_LANGUAGE="de").content
    )
    assert german["timings_text"].startswith("Monat wird eingefroren 0,010 s · ")
    assert body["error"] == "OperationalError: the database went away"
    assert body["finished"] is True and body["ranking_list"] is None
    assert staff.get("/dashboard/runs/999999.json").status_code == 404


@pytest.mark.django_db
def test_a_finished_close_shows_the_published_list_with_its_timings(
    staff: Client, march: dict[str, Any], set_now: Any
) -> None:
    run = close_run_create(month="2026-03", discipline="fido")
    published = close("2026-03", run=run)
    set_now(after_deadline("2026-03", minutes=30))
    body = json.loads(staff.get(f"/dashboard/runs/{run.pk}.json").content)
    assert (body["state"], body["stage"], body["percent"]) == ("succeeded", "done", 100)
    assert set(body["timings"]) == {"freeze", "load", "compute", "write", "publish"}
    assert body["ranking_list"] == {
        "id": published.pk,
        "month": "2026-03",
        "version": published.version,
        "entries": published.entry_count,
        "url": "/ranking/fido/2026-03/",
    }
    page = staff.get(URL).content.decode()
    fido = text(card(page, "fido"))
    assert "Open month 2026-04" in fido and "Last closed month 2026-03" in fido
    assert "Counting in 2026-03 (last closed)" in fido
    assert f"Published: the list of 2026-03, version 1, {published.entry_count} entries." in fido
    lists = re.search(r'<table class="published-lists">.*?</table>', page, re.S).group(0)
    row = text(re.search(r"<tr>\s*<td>FIDO divisor game</td>.*?</tr>", lists, re.S).group(0))
    assert row.startswith(f"FIDO divisor game 2026-03 1 {published.entry_count}")
    for stage in ("freeze", "load", "compute", "write", "publish"):
        assert f"{run.timings[stage]:.3f} s" in row
    assert '<a href="/ranking/fido/2026-03/">2026-03</a>' in lists
    assert RankingList.objects.filter(status="published").count() == 1


# --- Corrections, voids and merges --------------------------------------------------------------


@pytest.mark.django_db
def test_recent_voids_and_merges_link_to_the_admin(
    staff: Client, march: dict[str, Any], players: list[Player], set_now: Any
) -> None:
    set_now(dt.datetime(2026, 3, 20, 12, 0, tzinfo=BERLIN))
    match = Match.objects.get(external_id="a1")
    match_services.match_void(match=match, by=None, reason="wrong table", now=clock.now())
    duplicate = PlayerFactory(name="Duplicate Person")
    merge = match_services.player_merge(
        source=duplicate, target=players[0], by=None, reason="same person", now=clock.now()
    )
    page = staff.get(URL).content.decode()
    assert f'href="/admin/matches/match/{match.pk}/change/"' in page
    assert "wrong table" in page
    assert f'href="/admin/matches/playermerge/{merge.pk}/change/"' in page
    assert f'href="/players/{players[0].player_id}/"' in page
    assert "same person" in page


@pytest.mark.django_db(transaction=True)  # on_commit runs at once, as in a request
@pytest.mark.parametrize(
    "error",
    [
        "kombu",
        OSError("Connection refused"),
        # What the Redis result backend raises from the after-commit send (issue 16 item 3).
        RuntimeError("Retry limit exceeded while trying to reconnect to the Redis server."),
    ],
)
def test_an_unreachable_task_queue_is_a_503_and_the_run_waits_in_the_outbox(
    staff: Client,
    march: dict[str, Any],
    set_now: Any,
    monkeypatch: pytest.MonkeyPatch,
    error: Any,
) -> None:
    from kombu.exceptions import OperationalError

    if error == "kombu":
        error = OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    def down(name: str, **kwargs: Any) -> None:
        raise error

    monkeypatch.setattr(celery_app, "send_task", down)
    set_now(after_deadline("2026-03"))
    response = staff.post(CLOSE, {"discipline": "fido", "month": "2026-03", "confirm": "yes"})
    assert response.status_code == 503
    run = CloseRun.objects.get()
    assert (
        "The task queue is unreachable, so the close of 2026-03 has not started yet. "
        f"It is recorded as run {run.pk} and starts by itself as soon as the queue is back."
    ) in text(response.content.decode())
    assert run.state == "queued" and run.dispatched_at is None
    assert str(error) in run.error and "Traceback" not in response.content.decode()

    # The queue is back: the next recovery (beat, or the dashboard) sends the same run.
    sent: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(celery_app, "send_task", lambda name, **kw: sent.append((name, kw)))
    from rankings.services.close_recover import close_runs_recover

    later = clock.now() + dt.timedelta(seconds=30)
    assert [r.pk for r in close_runs_recover(now=later)] == [run.pk]
    run.refresh_from_db()
    assert run.dispatched_at is not None and run.state == "queued"
    assert [(name, kw["task_id"]) for name, kw in sent] == [("rankings.month_close", run.task_id)]
    assert close_runs_recover(now=later) == []  # sent once


# --- issue 16 item 3: a real Redis stopped ------------------------------------------------------


def _redis_server(port: int, folder: Any) -> subprocess.Popen[bytes]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
    )
    for _ in range(100):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.05)
    proc.kill()
    pytest.fail("the test's own redis-server did not start")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)  # on_commit runs at once, as in a request
def test_with_redis_stopped_close_now_answers_within_two_seconds_and_beat_resends_it(
    staff: Client,
    march: dict[str, Any],
    set_now: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
) -> None:
    """The project's Celery configuration (timeouts, retry policies) on a redis-server of the
    test's own, never the shared one: stopped, then started again on the same port."""
    import redis
    from celery import Celery

    import fido.celery
    from rankings.services.close_recover import close_runs_recover

    port = _free_port()
    url = f"redis://127.0.0.1:{port}/0"
    own = Celery("fido-own-redis")
    own.config_from_object("django.conf:settings", namespace="CELERY")
    own.conf.broker_url = own.conf.result_backend = url
    monkeypatch.setattr(fido.celery, "app", own)

    server = _redis_server(port, tmp_path)
    server.terminate()  # Redis stopped
    server.wait(10)
    set_now(after_deadline("2026-03"))
    started = time.monotonic()
    response = staff.post(CLOSE, {"discipline": "fido", "month": "2026-03", "confirm": "yes"})
    elapsed = time.monotonic() - started
    assert elapsed < 2, elapsed
    assert response.status_code == 503
    run = CloseRun.objects.get()
    assert "starts by itself as soon as the queue is back" in text(response.content.decode())
    assert (run.state, run.dispatched_at) == ("queued", None)

    # A second click while Redis is still down: the same answer, the same run, fast.
    later = clock.now() + dt.timedelta(seconds=30)
    set_now(later)
    started = time.monotonic()
    again = staff.post(CLOSE, {"discipline": "fido", "month": "2026-03", "confirm": "yes"})
    assert time.monotonic() - started < 2
    assert again.status_code == 503 and CloseRun.objects.count() == 1

    server = _redis_server(port, tmp_path)  # Redis is back
    try:
        assert [r.pk for r in close_runs_recover(now=later)] == [run.pk]  # beat's tick
        run.refresh_from_db()
        assert run.dispatched_at is not None and run.error == ""
        queued = redis.Redis.from_url(url).lrange("celery", 0, -1)
        assert len(queued) == 1
        assert json.loads(queued[0])["headers"]["id"] == run.task_id
        print(f"close now with Redis stopped: {response.status_code} after {elapsed:.2f} s")
    finally:
        server.terminate()
        server.wait(10)
        own.close()
