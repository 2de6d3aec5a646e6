"""Ids that carry their owner's tag, so listing "mine" reads only the owner's own records.

A collection or a watch is one folder named by its id. Listing a person's collections
used to read every collection's record to find whose it was: one read per collection of
every user, on every listing. An id minted here starts with the owner's tag (a hash of
tenant and principal id, never the id itself), so the listing keeps the folder names that
start with it and reads those alone.

Ids minted before tags existed (``prefix`` + 32 hex digits) still belong to someone: they
are read and checked as before, so nothing made earlier drops out of its owner's listing.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Iterable

from shared.core.session_models import Owner

OWNER_TAG_CHARS = 24  # 96 bits of a SHA-256: no two owners meet by accident
_UNTAGGED = re.compile(r"[0-9a-f]{32}")


def owner_tag(owner: Owner) -> str:
    return hashlib.sha256(f"{owner.tenant}\n{owner.id}".encode()).hexdigest()[:OWNER_TAG_CHARS]


def new_id(owner: Owner, prefix: str = "") -> str:
    """``prefix`` + the owner's tag + ``-`` + a random uuid (57 characters after ``prefix``)."""
    return f"{prefix}{owner_tag(owner)}-{uuid.uuid4().hex}"


def candidates(names: Iterable[str], owner: Owner, prefix: str = "") -> list[str]:
    """The folder names among ``names`` that may be ``owner``'s: minted for them, or minted
    before ids carried a tag. Callers still check each record's owner: a tag is a filter,
    not a proof."""
    tag = f"{owner_tag(owner)}-"
    out = []
    for name in names:
        rest = name[len(prefix) :] if name.startswith(prefix) else ""
        if rest.startswith(tag):
            rest = rest[len(tag) :]
        if _UNTAGGED.fullmatch(rest):
            out.append(name)
    return out
