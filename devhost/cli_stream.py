"""The CLI's reader of a session's event stream: the answer or report as it is written.

The progress panel polls the session's status; the text the model writes comes
only as ``answer_chunk`` events on ``/api/research/{id}/events``. This reader
follows that stream in a thread of its own, as EventSource would (reconnect with
``Last-Event-ID``, stop at 204), and keeps what a client holds of each part: the
text after the part's last ``reset``. The panel shows the part being written.
"""

from __future__ import annotations

import json
import threading

import httpx

RECONNECT_SECONDS = 1.0
READ_TIMEOUT_SECONDS = 60.0  # a long poll holds ~25 s; a streamed response sends keep-alives


class StreamedText:
    """The parts of one session's answer text so far; ``close()`` stops the reader."""

    def __init__(self, http: httpx.Client, session_id: str) -> None:
        self._client = httpx.Client(
            base_url=http.base_url,
            headers=http.headers,
            timeout=httpx.Timeout(10.0, read=READ_TIMEOUT_SECONDS),
        )
        self._path = f"/api/research/{session_id}/events"
        self._lock = threading.Lock()
        self._parts: dict[str, str] = {}
        self._latest: str | None = None
        self._last_id: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, name="answer-stream", daemon=True)
        self._thread.start()

    def writing(self) -> tuple[str, str] | None:
        """The part that got text last and its text so far (None before any)."""
        with self._lock:
            if self._latest is None:
                return None
            return self._latest, self._parts.get(self._latest, "")

    def settled(self, timeout: float) -> None:
        """Wait (up to ``timeout``) for the stream's end: every chunk comes before it."""
        self._thread.join(timeout)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self._client.close()

    def _follow(self) -> None:
        while not self._stop.is_set():
            headers = {"Accept": "text/event-stream"}
            if self._last_id:
                headers["Last-Event-ID"] = self._last_id
            try:
                with self._client.stream("GET", self._path, headers=headers) as response:
                    if response.status_code != 200:  # 204: the end; errors: the panel says
                        return
                    self._read(response)
            except httpx.HTTPError:
                self._stop.wait(RECONNECT_SECONDS)

    def _read(self, response: httpx.Response) -> None:
        event_id, name, data = None, "message", []
        for line in response.iter_lines():
            if self._stop.is_set():
                return
            if line == "":
                if data and name == "answer_chunk":
                    self._apply(json.loads("\n".join(data)))
                self._last_id = event_id if event_id is not None else self._last_id
                event_id, name, data = None, "message", []
            elif not line.startswith(":"):
                field, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if field == "id":
                    event_id = value
                elif field == "event":
                    name = value
                elif field == "data":
                    data.append(value)

    def _apply(self, chunk: dict) -> None:
        part = chunk["part"]
        with self._lock:
            if chunk["kind"] == "reset":
                self._parts[part] = ""
            self._parts[part] = self._parts.get(part, "") + chunk["text"]
            self._latest = part
