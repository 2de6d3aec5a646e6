"""Function keys, for hosts started with ``DEVHOST_REQUIRE_KEYS=true``.

Azure refuses a call to an ``AuthLevel.FUNCTION`` route without a function
key (or the host's master key) in the ``x-functions-key`` header or the
``code`` query parameter, with an empty 401; ``AuthLevel.ADMIN`` routes take
only the master key. Core Tools checks nothing locally, so neither does
devhost by default. With the setting on, devhost checks as Azure does.

Azure keeps its keys in the host's secrets store and they survive restarts;
devhost keeps them in ``DATA_DIR/devhost-keys.json`` (created on first use,
mode 0600) so a client configured once keeps working, and prints the
function key at start-up. The MCP endpoint (``/runtime/webhooks/mcp``) takes
the ``mcp_extension`` system key or the master key, as in Azure.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

KEY_HEADER = "x-functions-key"
KEY_QUERY = "code"


@dataclass(frozen=True)
class FunctionKeys:
    function: str
    master: str
    mcp_extension: str = ""

    def allows(self, auth_level: str, headers: Mapping[str, str], query: Mapping[str, str]) -> bool:
        """Whether a request carrying ``headers``/``query`` may call a route of ``auth_level``."""
        level = auth_level.lower()
        if level == "anonymous":
            return True
        given = headers.get(KEY_HEADER) or query.get(KEY_QUERY) or ""
        accepted = (self.master,) if level == "admin" else (self.function, self.master)
        return _matches(given, accepted)

    def allows_mcp(self, headers: Mapping[str, str], query: Mapping[str, str]) -> bool:
        """Whether a request may use the MCP endpoint (system key ``mcp_extension`` or master)."""
        given = headers.get(KEY_HEADER) or query.get(KEY_QUERY) or ""
        return _matches(given, tuple(k for k in (self.mcp_extension, self.master) if k))


def _matches(given: str, accepted: tuple[str, ...]) -> bool:
    return any(secrets.compare_digest(given.encode(), key.encode()) for key in accepted)


def load_or_create_keys(path: Path) -> FunctionKeys:
    """The keys stored at ``path``; new random ones (saved there) on first use.

    A file from before the MCP endpoint keeps its keys and gains ``mcp_extension``.
    """
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        keys = FunctionKeys(stored["function"], stored["master"], stored.get("mcp_extension", ""))
    except (OSError, ValueError, KeyError, TypeError):
        keys = FunctionKeys(function=secrets.token_urlsafe(32), master=secrets.token_urlsafe(32))
    if keys.mcp_extension:
        return keys
    keys = FunctionKeys(keys.function, keys.master, secrets.token_urlsafe(32))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(
            {"function": keys.function, "master": keys.master, "mcp_extension": keys.mcp_extension},
            file,
        )
    return keys
