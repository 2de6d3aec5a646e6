"""MemoryStore on Azure Blob Storage (sync ``azure-storage-blob`` client).

Blob name = ``{session_id}/{name}`` in the ``MEMORY_CONTAINER`` container
(created if missing). Writes are whole-blob uploads, so an activity that runs
twice overwrites the same blob. ``append`` is a conditional read-modify-write:
read the blob and its ETag, add the entry unless its marker is already there,
upload with ``If-Match`` (``If-None-Match: *`` for a new blob); a 412/409 means
another appender won, so it reads again. That keeps appends exactly-once under
activity retries and concurrent appenders without leases. Blobs over
``max_file_bytes`` are refused before upload, as on disk.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import PurePosixPath
from typing import Any

from azure.core import MatchConditions
from azure.core.exceptions import (
    AzureError,
    ClientAuthenticationError,
    HttpResponseError,
    ResourceExistsError,
    ResourceModifiedError,
    ResourceNotFoundError,
)
from azure.storage.blob import BlobServiceClient, ContainerClient, ContentSettings

from shared.adapters.stores.base import (
    MAX_MEMORY_FILE_BYTES,
    SESSION_ID_RE,
    check_size,
    validate_relative_name,
    validate_session_id,
    with_entry,
)
from shared.core.config import Settings
from shared.core.errors import ConfigurationError, NotFoundError, PermanentError, TransientError

MAX_APPEND_ATTEMPTS = 30
UPLOAD_CONCURRENCY = 4
CONTENT_TYPES = {
    ".md": "text/markdown; charset=utf-8",
    ".json": "application/json",
    ".pdf": "application/pdf",
}
DEFAULT_CONTENT_TYPE = "application/octet-stream"


def content_type_for(name: str) -> str:
    """The content type a blob gets from its extension when the caller names none."""
    return CONTENT_TYPES.get(PurePosixPath(name).suffix.lower(), DEFAULT_CONTENT_TYPE)


class BlobMemoryStore:
    """Memory files as block blobs, one virtual folder per session."""

    kind = "blob"

    def __init__(self, settings: Settings, max_file_bytes: int = MAX_MEMORY_FILE_BYTES) -> None:
        self._container = _open_container(settings)
        self.max_file_bytes = max_file_bytes
        # SDK calls by kind (upload, download, list, exists, delete, properties): storage
        # transactions are billed per call. Failed calls count too.
        self.operations: Counter[str] = Counter()
        self._operations_lock = threading.Lock()

    def operation_counts(self) -> dict[str, int]:
        """A snapshot of :attr:`operations`, safe to take while requests run."""
        with self._operations_lock:
            return dict(self.operations)

    def write(self, session_id: str, name: str, data: str | bytes, content_type: str = "") -> str:
        blob = self._blob_name(session_id, name)
        payload = data.encode("utf-8") if isinstance(data, str) else data
        check_size(blob, len(payload), self.max_file_bytes)
        with self._call("upload", blob):
            self._container.upload_blob(
                blob,
                payload,
                overwrite=True,
                content_settings=ContentSettings(
                    content_type=content_type or content_type_for(name)
                ),
                max_concurrency=UPLOAD_CONCURRENCY,
            )
        return blob

    def read(self, session_id: str, name: str) -> bytes:
        blob = self._blob_name(session_id, name)
        with self._call("download", blob):
            return self._container.download_blob(blob, max_concurrency=UPLOAD_CONCURRENCY).readall()

    def read_text(self, session_id: str, name: str) -> str:
        return self.read(session_id, name).decode("utf-8")

    def exists(self, session_id: str, name: str) -> bool:
        blob = self._blob_name(session_id, name)
        with self._call("exists", blob):
            return self._container.get_blob_client(blob).exists()

    def append(self, session_id: str, name: str, entry_id: str, text: str) -> None:
        blob = self._blob_name(session_id, name)
        for attempt in range(MAX_APPEND_ATTEMPTS):
            existing, etag = self._read_with_etag(blob)
            updated = with_entry(existing or "", entry_id, text)
            if updated is None:
                return
            payload = updated.encode("utf-8")
            check_size(blob, len(payload), self.max_file_bytes)
            condition: dict[str, Any] = (
                {"etag": etag, "match_condition": MatchConditions.IfNotModified, "overwrite": True}
                if etag is not None
                else {"overwrite": False}
            )
            try:
                with self._call("upload", blob, (ResourceModifiedError, ResourceExistsError)):
                    self._container.upload_blob(
                        blob,
                        payload,
                        content_settings=ContentSettings(content_type=content_type_for(name)),
                        **condition,
                    )
                return
            except (ResourceModifiedError, ResourceExistsError):
                # Another appender won this round; back off a little and read again.
                time.sleep(random.uniform(0, 0.005 * (attempt + 1)))
        raise TransientError(f"append to {blob!r} kept colliding; gave up")

    def list(self, session_id: str) -> list[str]:
        prefix = f"{validate_session_id(session_id)}/"
        with self._call("list", prefix):
            names = [blob.name[len(prefix) :] for blob in self._container.list_blobs(prefix)]
        return sorted(names)

    def delete_file(self, session_id: str, name: str) -> bool:
        blob = self._blob_name(session_id, name)
        try:
            with self._call("delete", blob):
                self._container.delete_blob(blob, delete_snapshots="include")
        except NotFoundError:
            return False
        return True

    def delete_session(self, session_id: str) -> int:
        """Delete every blob under the session's prefix, one call per blob.

        With soft delete on the account (the Bicep turns it on for 7 days), deleted
        blobs stay recoverable by an operator for that long, then are gone.
        """
        prefix = f"{validate_session_id(session_id)}/"
        with self._call("list", prefix):
            names = [blob.name for blob in self._container.list_blobs(prefix)]
        for name in names:
            try:
                with self._call("delete", name):
                    self._container.delete_blob(name, delete_snapshots="include")
            except NotFoundError:
                pass  # removed by a concurrent delete
        return len(names)

    def folders(self, prefix: str = "") -> list[str]:
        """The top-level prefixes, listed with a delimiter (one entry per folder, not per blob)."""
        with self._call("list", f"{prefix}*/"):
            listed = self._container.walk_blobs(name_starts_with=prefix or None, delimiter="/")
            prefixes = [item.name for item in listed]
        ids = (p.removesuffix("/") for p in prefixes if p.endswith("/"))
        return sorted(i for i in ids if SESSION_ID_RE.match(i))

    def ping(self) -> None:
        with self._call("properties", self._container.container_name):
            self._container.get_container_properties()

    def close(self) -> None:
        """Release the client's connections (tests, shutdown)."""
        self._container.close()

    # -- internals -----------------------------------------------------------------

    def _call(
        self, kind: str, what: str, passthrough: tuple[type[Exception], ...] = ()
    ) -> AbstractContextManager[None]:
        """Count one SDK call of ``kind`` and translate its errors (wrap exactly one call)."""
        with self._operations_lock:
            self.operations[kind] += 1
        return _translated(what, passthrough)

    @staticmethod
    def _blob_name(session_id: str, name: str) -> str:
        return f"{validate_session_id(session_id)}/{validate_relative_name(name)}"

    def _read_with_etag(self, blob: str) -> tuple[str | None, str | None]:
        try:
            with self._call("download", blob):
                downloader = self._container.download_blob(blob)
                return downloader.readall().decode("utf-8"), downloader.properties.etag
        except NotFoundError:
            return None, None


def _open_container(settings: Settings) -> ContainerClient:
    """The container client, creating the container if it is missing."""
    if settings.azure_storage_connection_string is not None:
        service = BlobServiceClient.from_connection_string(
            settings.azure_storage_connection_string.get_secret_value()
        )
    elif settings.azure_storage_account_url:
        from azure.identity import DefaultAzureCredential

        service = BlobServiceClient(
            settings.azure_storage_account_url, credential=DefaultAzureCredential()
        )
    else:
        raise ConfigurationError(
            "AZURE_STORAGE_CONNECTION_STRING or AZURE_STORAGE_ACCOUNT_URL is required"
        )
    container = service.get_container_client(settings.memory_container)
    try:
        with _translated(settings.memory_container, passthrough=(ResourceExistsError,)):
            container.create_container()
    except ResourceExistsError:
        pass  # created earlier, or by a concurrent worker
    return container


@contextmanager
def _translated(what: str, passthrough: tuple[type[Exception], ...] = ()) -> Iterator[None]:
    """The one place storage SDK exceptions become ``shared.core.errors``."""
    try:
        yield
    except passthrough:
        raise
    except ResourceNotFoundError as exc:
        raise NotFoundError(f"memory file {what!r} not found") from exc
    except ClientAuthenticationError as exc:
        raise ConfigurationError(f"Blob storage refused the credentials: {exc.message}") from exc
    except HttpResponseError as exc:
        status = exc.status_code
        if status is None or status in (408, 429) or status >= 500:
            raise TransientError(f"Blob storage transient failure ({status}) on {what!r}") from exc
        if status == 403:
            raise ConfigurationError(f"Blob storage refused access to {what!r}") from exc
        raise PermanentError(f"Blob storage rejected {what!r} ({status}): {exc.message}") from exc
    except AzureError as exc:  # connection failures, timeouts
        raise TransientError(f"Blob storage unavailable: {exc}") from exc
