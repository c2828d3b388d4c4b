"""Atomic writes for the embedded default's file-based broker and result backend.

Contract: a message or a result appears in its folder complete or not at all. kombu's
``filesystem`` transport creates the message file and then writes into it, and its consumer
moves any ``*.msg`` file it lists without taking the writer's lock, so a worker polling at
the wrong instant could take an empty file and die on ``JSONDecodeError`` (seen once in
CI). Celery's ``file://`` result backend has the same window for a reader of a result.
Here both write to a hidden temporary name in the same folder and ``os.replace`` it into
place, which is atomic on POSIX file systems. Used only when ``REDIS_URL`` is unset
(settings ``CELERY_BROKER_TRANSPORT`` and ``CELERY_RESULT_BACKEND``).
"""

from __future__ import annotations

import os
import tempfile
import uuid
from time import monotonic
from typing import Any

from celery.backends.filesystem import FilesystemBackend
from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


def write_atomically(folder: str, name: str, data: bytes) -> None:
    """Write ``data`` to ``folder/name`` so that no reader ever sees a partial file."""
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".partial-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, os.path.join(folder, name))
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


class Channel(filesystem.Channel):
    """kombu's filesystem channel whose messages are published atomically."""

    def _put(self, queue: str, message: Any, **kwargs: Any) -> None:  # type: ignore[override]
        # The same name as kombu's (its consumer sorts by the leading milliseconds).
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        try:
            write_atomically(self.data_folder_out, name, str_to_bytes(dumps(message)))
        except OSError as exc:
            raise ChannelError(f"Cannot add file {name!r} to directory") from exc


class Transport(filesystem.Transport):
    """The filesystem transport with :class:`Channel`."""

    Channel = Channel


class AtomicFilesystemBackend(FilesystemBackend):
    """Celery's ``file://`` result backend, each result replaced atomically."""

    def set(self, key: bytes | str, value: bytes | str) -> None:
        path = os.fsdecode(self._filename(key))  # type: ignore[attr-defined]
        data = value.encode() if isinstance(value, str) else value
        write_atomically(os.path.dirname(path), os.path.basename(path), data)
