"""The Celery application of the FIDO service.

Configuration comes from Django settings (``CELERY_*``): the production settings unless
``DJANGO_SETTINGS_MODULE`` says otherwise. With ``REDIS_URL`` unset the broker
is kombu's filesystem transport and results are files, so the embedded default needs no
server; the folders are created here, before any producer or worker touches them.
"""

from __future__ import annotations

import os
from pathlib import Path

from celery import Celery
from celery.schedules import crontab

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fido.settings.production")

app = Celery("fido")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def ensure_embedded_folders() -> None:
    """Create the folders of the filesystem broker and result backend if they are in use."""
    options = app.conf.broker_transport_options or {}
    for key in ("data_folder_in", "data_folder_out", "control_folder"):
        if options.get(key):
            Path(options[key]).mkdir(parents=True, exist_ok=True)
    backend = str(app.conf.result_backend or "")
    # "module:Class+file:///path" names a backend class for the file:// URL after the "+".
    backend = backend.rpartition("+")[2]
    if backend.startswith("file://"):
        Path(backend.removeprefix("file://")).mkdir(parents=True, exist_ok=True)


# Every few minutes: close each discipline's month whose deadline passed more than
# FIDO_CLOSE_DELAY minutes ago. The task compares aware instants (the deadline is the first
# instant of the next month in FIDO_TIMEZONE), so it is right across daylight-saving changes.
# Here rather than in the settings, so that loading the settings does not import Celery.
BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "rankings-due-months-close": {
        "task": "rankings.due_months_close",
        "schedule": crontab(minute="*/5"),
    },
    # Every night: each discipline's projected list (the open month as if it closed now).
    "rankings-projections-refresh": {
        "task": "rankings.projections_refresh",
        "schedule": crontab(hour=3, minute=17),
    },
    # Every night: the logged changes of results no result pack needs any more.
    "rankings-member-changes-prune": {
        "task": "rankings.member_changes_prune",
        "schedule": crontab(hour=4, minute=41),
    },
    # Every night: the busiest players' packs of points, for a close that ran outside a
    # worker (``close_month --inline``) or whose task could not send them.
    "rankings-player-packs-write": {
        "task": "rankings.player_packs_write",
        "schedule": crontab(hour=4, minute=53),
    },
    # Re-send close runs the broker never took, and those whose worker died (no heartbeat).
    "rankings-close-runs-recover": {
        "task": "rankings.close_runs_recover",
        "schedule": float(os.environ.get("FIDO_CLOSE_RECOVER_EVERY", "30")),
    },
}


@app.on_after_configure.connect
def _on_after_configure(sender: Celery, **_: object) -> None:
    ensure_embedded_folders()
    sender.conf.beat_schedule = {**BEAT_SCHEDULE, **(sender.conf.beat_schedule or {})}
