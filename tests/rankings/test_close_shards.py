"""The close split across Celery workers (``close_month --workers N``): shards by player,
merged into the list a single process computes, bit for bit.

- in one process: the shards' totals, merged, equal the single-process totals (on
  PostgreSQL through the loader's ``COPY`` with the shard condition in SQL, on SQLite
  through the in-memory filter);
- with two real worker processes on Redis and PostgreSQL: one list, equal;
- with the only worker killed while it holds a shard: the shard is redelivered to
  another worker, the list is still equal and published once.
"""

from __future__ import annotations

import base64
import os
import signal
import threading
from typing import Any

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.db import connections

from rankings import fladub, seal
from rankings.models import RankingList
from rankings.selectors.shard_totals import (
    shard_totals,
    totals_from_wire,
    totals_to_wire,
)
from rankings.selectors.window import window
from tests.rankings.factories import after_deadline, close, random_results
from tests.rankings.test_close_worker import (  # noqa: F401  (fixtures)
    MONTHS,
    TARGET,
    current_id,
    entries,
    history,
    undisturbed,
    wait_for,
    worker_process,
)


def _single_totals() -> fladub.PlayerTotals:
    inputs = window(discipline="fido", month=TARGET)
    results = fladub.match_points(inputs.sides.in_window(TARGET.index), inputs.published)
    return fladub.player_totals(results, TARGET.index)


@pytest.mark.django_db
@pytest.mark.parametrize("shards", [2, 3])
def test_shards_merge_to_the_single_process_totals(shards: int) -> None:
    random_results(seed=5, matches=200, players=60, months=MONTHS)
    for month in MONTHS[:-1]:
        close(month)
    parts = [
        shard_totals(discipline="fido", month=TARGET, shard=w, shards=shards) for w in range(shards)
    ]
    assert all(len(p.player) for p in parts)  # every shard has players of its own
    assert all((p.player % shards == w).all() for w, p in enumerate(parts))
    # Through the wire format, as the tasks return them.
    merged = fladub.merge_totals([totals_from_wire(totals_to_wire(p)) for p in parts])
    assert merged.equals(_single_totals())
    inputs = window(discipline="fido", month=TARGET)
    previous, order = inputs.published.get(TARGET.index - 1), inputs.player_order
    expected = fladub.compute_list(
        inputs.sides, TARGET.index, inputs.published, player_order=inputs.player_order
    )
    assert fladub.rank_list(merged, TARGET.index, previous=previous, player_order=order).equals(
        expected
    )


def test_a_shard_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match=r"shard 2 is not in 0\.\.1"):
        shard_totals(discipline="fido", month=TARGET, shard=2, shards=2)


def test_the_wire_format_rejects_columns_of_different_lengths() -> None:
    wire = totals_to_wire(
        fladub.PlayerTotals(
            player=np.arange(3, dtype=np.int64),
            units=np.arange(3, dtype=np.int64),
            results_counted=np.arange(3, dtype=np.int64),
        )
    )
    wire["units"] = base64.b64encode(np.arange(2, dtype="<i8").tobytes()).decode()
    with pytest.raises(ValueError, match="differ in length"):
        totals_from_wire(wire)


@pytest.mark.django_db
@pytest.mark.parametrize("workers", ["0", "65"])
def test_close_month_refuses_a_bad_number_of_workers(workers: str) -> None:
    with pytest.raises(CommandError, match=r"--workers must be 1\.\.64"):
        call_command("close_month", str(TARGET), "--discipline", "fido", "--workers", workers)


@pytest.mark.django_db(transaction=True)
def test_shards_nobody_computes_fail_the_close_with_a_clear_message(capsys) -> None:
    """No worker is running: the command gives up after --timeout, publishes nothing and
    says why."""
    from fido.celery import app

    app.control.purge()
    random_results(seed=5, matches=40, players=20, months=MONTHS[-2:])
    close(MONTHS[-2])
    with pytest.raises(CommandError, match="did not publish a list"):
        call_command(
            "close_month", str(TARGET), "--discipline", "fido", "--workers", "2", "--timeout", "2"
        )
    err = capsys.readouterr().err
    assert "the 2 shards of the close did not all finish within 2 s" in err
    assert "are Celery workers running?" in err
    assert RankingList.objects.filter(month=TARGET.first_day, status="published").count() == 0
    app.control.purge()


# --- real workers ---------------------------------------------------------------------------


def _ping(names: set[str], timeout: float) -> None:
    from fido.celery import app

    def ready() -> bool:
        replies = app.control.ping(timeout=1.0) or []
        seen = {name.split("-")[0] for reply in replies for name in reply}
        return names <= seen

    wait_for(ready, timeout, f"workers {sorted(names)} to answer a ping")


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_two_real_workers_publish_the_single_process_list(
    history,  # noqa: F811
    worker_process,  # noqa: F811
    tmp_path,
    capsys,
) -> None:
    from fido.celery import app

    app.control.purge()
    expected = undisturbed(TARGET)
    worker_process("first")
    worker_process("second")
    _ping({"first", "second"}, 120)
    call_command(
        "close_month", str(TARGET), "--discipline", "fido", "--workers", "2", "--timeout", "120"
    )
    out = capsys.readouterr().out
    assert f"fido {TARGET}: closing in 2 shards on workers (run " in out
    lists = RankingList.objects.filter(month=TARGET.first_day)
    assert [x.status for x in lists] == ["published"]
    assert entries(lists[0]) == expected
    assert current_id() == lists[0].pk
    # The seal's input digest covers the whole window, as a single-process close's does.
    whole = seal.inputs_digest(window(discipline="fido", month=TARGET).sides)
    assert (lists[0].inputs_sha256, lists[0].inputs_count) == (whole.sha256, whole.count)
    logs = [(tmp_path / f"{name}.log").read_text() for name in ("first", "second")]
    assert sum(log.count("shard 0/2 of fido") + log.count("shard 1/2 of fido") for log in logs) == 2


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_shard_is_redelivered_and_the_list_is_equal(
    history,  # noqa: F811
    worker_process,  # noqa: F811
    tmp_path,
) -> None:
    from fido.celery import app

    app.control.purge()
    expected = undisturbed(TARGET)
    doomed = worker_process("doomed", app="tests.rankings.shard_pause")
    _ping({"doomed"}, 120)
    outcome: dict[str, Any] = {}

    def coordinator() -> None:
        try:
            outcome["list"] = close(TARGET, now=after_deadline(TARGET), workers=2)
        except BaseException as exc:  # reported by the assertion below
            outcome["error"] = exc
        finally:
            connections.close_all()

    thread = threading.Thread(target=coordinator)
    thread.start()
    log = tmp_path / "doomed.log"
    wait_for(lambda: "shard_pause: sleeping" in log.read_text(), 120, "a shard to start")
    os.kill(doomed.pid, signal.SIGKILL)
    doomed.wait(30)
    # Another worker: Redis hands it the unacknowledged shard after the visibility timeout,
    # and the shard nobody had taken yet.
    worker_process("rescuer")
    thread.join(180)
    assert not thread.is_alive(), "the coordinator did not finish"
    assert "error" not in outcome, outcome.get("error")
    lists = RankingList.objects.filter(month=TARGET.first_day)
    assert [x.status for x in lists] == ["published"]
    assert outcome["list"].pk == lists[0].pk
    assert entries(lists[0]) == expected
    assert current_id() == lists[0].pk
    rescued = (tmp_path / "rescuer.log").read_text()
    assert "shard 0/2 of fido" in rescued and "shard 1/2 of fido" in rescued
