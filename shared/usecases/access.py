"""Who may see what: one rule for every entry point (HTTP routes, SSE, MCP tools).

- A session belongs to the principal that started it (``SessionRecord.owner``:
  principal id and tenant).
- Its owner may read it (status, events, reports, chat listing) and act on it
  (answer the clarifying questions, cancel, delete).
- A principal holding the admin app role (``AUTH_ADMIN_ROLE``) may read any
  session, never act on it; every such read of someone else's session is
  logged (``deepresearch.audit``), with ids only.
- Anyone else is told the session does not exist (``NotFoundError``, 404), the
  same answer as for an id nobody ever used, so ids cannot be probed.
- Chat ids are per owner: the store keeps a chat under ``chat_key(owner,
  chat_id)``, so two people who both use chat ``team-42`` never share its
  history, its active deep research or its session list.
- System owners (the anonymous owner, the MCP key holders) have no tenant
  (``shared.adapters.identity.system_principal``) and no signed-in caller lacks one,
  so no token can own, read or act on their sessions.

Usage from any entry point::

    caller = services().authenticator.principal(headers)  # UnauthorizedError -> 401
    record = session_for(services(), caller, session_id)  # NotFoundError -> 404
    record = session_for(services(), caller, session_id, "act")  # answer / cancel / delete
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Literal

from shared.adapters.identity import Principal
from shared.adapters.stores.base import MemoryStore
from shared.core.errors import NotFoundError
from shared.core.session_models import ANONYMOUS_OWNER, Owner, SessionRecord
from shared.usecases.owned_ids import owner_tag

if TYPE_CHECKING:
    from shared.ports import Services

Action = Literal["read", "act"]
audit = logging.getLogger("deepresearch.audit")
CHAT_KEY_SEPARATOR = "."  # never in a chat id (api.schemas.ID_PATTERN), so keys cannot be forged
OWNER_FILE = "owner.json"


def chat_key(owner: Owner, chat_id: str) -> str:
    """The store's chat id for ``owner``'s chat ``chat_id``.

    The anonymous owner (AUTH_MODE=none) keeps the chat id as it is, so local
    data from before sign-in existed stays where it was.
    """
    if owner == ANONYMOUS_OWNER:
        return chat_id
    return f"{chat_id}{CHAT_KEY_SEPARATOR}{owner_tag(owner)}"


def public_chat_id(key: str) -> str:
    """The chat id its owner chose, from the store's chat key."""
    return key.split(CHAT_KEY_SEPARATOR, 1)[0]


def is_admin(principal: Principal, admin_role: str) -> bool:
    return bool(admin_role) and admin_role in principal.roles


def may(principal: Principal, record: SessionRecord, action: Action, admin_role: str) -> bool:
    """Whether ``principal`` may ``action`` the session (see the module docstring)."""
    if record.owner == principal.owner:
        return True
    return action == "read" and is_admin(principal, admin_role)


def session_for(
    svc: Services, principal: Principal, session_id: str, action: Action = "read"
) -> SessionRecord:
    """The session if ``principal`` may ``action`` it; ``NotFoundError`` otherwise.

    The message is the one an unused id gets, so the two cannot be told apart.
    """
    record = svc.sessions.get(session_id)
    admin_role = svc.settings.auth_admin_role
    if not may(principal, record, action, admin_role):
        raise NotFoundError(f"unknown session {session_id!r}")
    if record.owner != principal.owner:
        audit.warning(
            "admin %s (tenant %s) read session %s of another principal",
            principal.id,
            principal.tenant,
            record.id,
        )
    return record


def write_owner_file(memory: MemoryStore, record: SessionRecord) -> None:
    """``owner.json`` in the session's memory folder: whose files these are, beside them."""
    memory.write(record.id, OWNER_FILE, record.owner.model_dump_json(), "application/json")


def visible(principal: Principal, records: list[SessionRecord]) -> list[SessionRecord]:
    """The caller's own sessions among ``records`` (a listing never shows anyone else's)."""
    return [r for r in records if r.owner == principal.owner]
