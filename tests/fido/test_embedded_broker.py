"""The embedded broker and result backend never expose a half-written file.

kombu's stock filesystem transport creates the message file and then writes into it; a
consumer that lists the folder in between takes an empty message and the worker dies on
``JSONDecodeError``. These tests hold the write open at that instant and look.
"""

from __future__ import annotations

import os
import threading

import pytest
from kombu import Connection

from fido import embedded_broker


def _hold_writes(
    monkeypatch: pytest.MonkeyPatch, started: threading.Event, release: threading.Event
) -> None:
    """Make every write block half-way until ``release`` is set."""
    real_fdopen = os.fdopen

    class SlowFile:
        def __init__(self, handle):
            self._file = handle

        def __enter__(self):
            self._file.__enter__()
            return self

        def __exit__(self, *exc):
            return self._file.__exit__(*exc)

        def write(self, data: bytes) -> int:
            written = self._file.write(data[:1])
            self._file.flush()
            started.set()
            release.wait(10)
            return written + self._file.write(data[1:])

    monkeypatch.setattr(
        embedded_broker.os, "fdopen", lambda fd, mode: SlowFile(real_fdopen(fd, mode))
    )


def test_a_message_being_written_is_invisible_to_the_consumer(tmp_path, monkeypatch) -> None:
    folder = tmp_path / "queue"
    folder.mkdir()
    options = {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "store_processed": False,
    }
    started, release = threading.Event(), threading.Event()
    with Connection(
        "filesystem://", transport=embedded_broker.Transport, transport_options=options
    ) as conn:
        queue = conn.SimpleQueue("jobs")
        _hold_writes(monkeypatch, started, release)
        writer = threading.Thread(target=queue.put, args=({"task": "fido.ping"},))
        writer.start()
        assert started.wait(10)
        # Mid-write: a consumer finds nothing (the stock transport hands it an empty file).
        with pytest.raises(queue.Empty):
            queue.get(block=False)
        release.set()
        writer.join(10)
        assert queue.get(timeout=5).payload == {"task": "fido.ping"}
        assert [p.name for p in folder.iterdir()] == []


def test_a_result_being_written_is_never_read_partially(tmp_path, monkeypatch) -> None:
    from fido.celery import app

    backend = embedded_broker.AtomicFilesystemBackend(app=app, url=f"file://{tmp_path}")
    started, release = threading.Event(), threading.Event()
    _hold_writes(monkeypatch, started, release)
    writer = threading.Thread(
        target=backend.set, args=(b"celery-task-meta-x", b'{"status": "SUCCESS"}')
    )
    writer.start()
    assert started.wait(10)
    assert backend.get(b"celery-task-meta-x") is None
    release.set()
    writer.join(10)
    assert backend.get(b"celery-task-meta-x") == b'{"status": "SUCCESS"}'
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".partial-")]
