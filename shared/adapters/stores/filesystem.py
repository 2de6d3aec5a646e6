"""MemoryStore on a local folder: ``root/{session_id}/{name}``, the local default.

Names are validated by the port's rules and then checked again after
resolving symlinks (one ``realpath`` per call, against the root resolved once),
so neither ``..`` nor a planted link can lead outside the session folder.
Every write goes to a temporary file beside the target and is moved into place
with ``os.replace``: a reader sees the old or the new file, never half of one,
and an activity that runs twice simply overwrites.

Durability is that of devhost's SQLite (WAL, ``synchronous=NORMAL``): a killed
process loses nothing (the page cache holds what was written and the rename is
atomic), a power cut may lose the last writes. There is no ``fsync``: it cost
1-3 ms on each of the ≈ 100 writes of a deep research, nearly all on its
critical path, for a guarantee the engine beside it does not give either. Blob
storage is the store that has to survive machines.

``append`` is a read-modify-write under two locks: a per-file thread lock
(devhost runs activities as threads of one process) and an OS file lock
(``filelock``: ``flock`` on POSIX, ``msvcrt`` on Windows) on a ``.~lock-`` file
beside the target, so several processes (``func start`` runs more than one
worker, a CLI may write beside a host) lose no entry either. Files over
``max_file_bytes`` are refused before anything is written. ``content_type``
has no place on disk and is ignored.
"""

from __future__ import annotations

import errno
import glob
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock
from filelock import Timeout as LockTimeout

from shared.adapters.stores.base import (
    MAX_MEMORY_FILE_BYTES,
    SESSION_ID_RE,
    check_size,
    validate_relative_name,
    validate_session_id,
    with_entry,
)
from shared.core.errors import InvalidInputError, NotFoundError, TransientError

INTERNAL_PREFIX = ".~"  # files of the store itself; never listed
TEMP_PREFIX = INTERNAL_PREFIX + "writing-"
LOCK_PREFIX = INTERNAL_PREFIX + "lock-"
APPEND_LOCK_TIMEOUT_SECONDS = 30.0
APPEND_LOCK_STRIPES = 64  # in-process locks for appends, shared by hash of the path


RMTREE_ATTEMPTS = 5  # a delete racing a last write retries, then reports busy


class FilesystemMemoryStore:
    """Memory files under ``root`` (created if missing)."""

    kind = "filesystem"

    def __init__(
        self,
        root: Path,
        max_file_bytes: int = MAX_MEMORY_FILE_BYTES,
        lock_timeout: float = APPEND_LOCK_TIMEOUT_SECONDS,
    ) -> None:
        Path(root).mkdir(parents=True, exist_ok=True)
        self.root = Path(root).resolve()
        self.max_file_bytes = max_file_bytes
        self._lock_timeout = lock_timeout
        # A fixed set of locks shared by hash: one per file would grow with every session
        # ever served (a worker lives through thousands); a rare shared stripe only serializes.
        self._locks = tuple(threading.Lock() for _ in range(APPEND_LOCK_STRIPES))

    def write(self, session_id: str, name: str, data: str | bytes, content_type: str = "") -> str:
        path = self._path(session_id, name)
        payload = data.encode("utf-8") if isinstance(data, str) else data
        check_size(f"{session_id}/{name}", len(payload), self.max_file_bytes)
        with _os_errors(session_id, name):
            _write_atomically(path, payload)
        return f"{session_id}/{name}"

    def read(self, session_id: str, name: str) -> bytes:
        path = self._path(session_id, name)
        with _os_errors(session_id, name):
            return path.read_bytes()

    def read_text(self, session_id: str, name: str) -> str:
        return self.read(session_id, name).decode("utf-8")

    def exists(self, session_id: str, name: str) -> bool:
        return self._path(session_id, name).is_file()

    def append(self, session_id: str, name: str, entry_id: str, text: str) -> None:
        path = self._path(session_id, name)
        with self._lock_for(path), _os_errors(session_id, name), self._file_lock(path):
            existing = path.read_text(encoding="utf-8") if path.is_file() else ""
            updated = with_entry(existing, entry_id, text)
            if updated is not None:
                payload = updated.encode("utf-8")
                check_size(f"{session_id}/{name}", len(payload), self.max_file_bytes)
                _write_atomically(path, payload)

    def list(self, session_id: str) -> list[str]:
        folder = self._folder(session_id)
        if not folder.is_dir():
            return []
        names = [
            path.relative_to(folder).as_posix()
            for path in folder.rglob("*")
            if path.is_file() and not path.name.startswith(INTERNAL_PREFIX)
        ]
        return sorted(names)

    def delete_file(self, session_id: str, name: str) -> bool:
        path = self._path(session_id, name)
        with _os_errors(session_id, name):
            try:
                path.unlink()
            except FileNotFoundError:
                return False
        return True

    def delete_session(self, session_id: str) -> int:
        """Remove the session folder (the store's lock and temp files with it)."""
        folder = self._folder(session_id)
        count = len(self.list(session_id))
        for attempt in range(1, RMTREE_ATTEMPTS + 1):
            try:
                shutil.rmtree(folder)
                break
            except FileNotFoundError:
                break  # never written, or removed by a concurrent delete
            except OSError as exc:
                # a step still running wrote a file while the folder was going: go again
                if exc.errno != errno.ENOTEMPTY or attempt == RMTREE_ATTEMPTS:
                    raise TransientError(f"memory folder {session_id}: {exc}") from exc
        return count

    def folders(self, prefix: str = "") -> list[str]:
        return sorted(
            p.name
            for p in self.root.glob(f"{glob.escape(prefix)}*")
            if p.is_dir() and SESSION_ID_RE.match(p.name)
        )

    def ping(self) -> None:
        if not self.root.is_dir() or not os.access(self.root, os.W_OK):
            raise TransientError(f"memory folder {self.root} is not writable")

    # -- paths ---------------------------------------------------------------------

    def _folder(self, session_id: str) -> Path:
        validate_session_id(session_id)
        folder = self.root / session_id
        if os.path.realpath(folder) != str(folder):
            raise InvalidInputError(f"session folder {session_id!r} leads outside the store")
        return folder

    def _path(self, session_id: str, name: str) -> Path:
        """The file's path; refused when a link on the way (session folder included) leaves it.

        Both names are validated and the root is resolved, so the path is
        ``root/session/name`` exactly; its real path can differ only through a
        symlink, which must stay inside the session folder.
        """
        validate_session_id(session_id)
        validate_relative_name(name)
        folder = self.root / session_id
        path = folder / name
        real = Path(os.path.realpath(path))
        if real != path and (not real.is_relative_to(folder) or real == folder):
            raise InvalidInputError(f"memory file name {name!r} leads outside the session")
        return real

    def _lock_for(self, path: Path) -> threading.Lock:
        return self._locks[hash(path) % APPEND_LOCK_STRIPES]

    @contextmanager
    def _file_lock(self, path: Path) -> Iterator[None]:
        """The cross-process lock of ``path``; waiting past the timeout is transient."""
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(path.with_name(LOCK_PREFIX + path.name), timeout=self._lock_timeout)
        try:
            lock.acquire()
        except LockTimeout as exc:
            raise TransientError(f"memory file {path.name} stayed locked; try again") from exc
        try:
            yield
        finally:
            lock.release()


def _write_atomically(path: Path, payload: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


@contextmanager
def _os_errors(session_id: str, name: str) -> Iterator[None]:
    """Translate OS errors once, at this boundary: missing → NotFound, the rest transient."""
    try:
        yield
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as exc:
        raise NotFoundError(f"memory file {session_id}/{name} not found") from exc
    except OSError as exc:
        raise TransientError(f"memory file {session_id}/{name}: {exc}") from exc
