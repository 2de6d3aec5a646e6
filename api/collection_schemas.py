"""The collection routes' response models: what ``GET /api/collections`` and
``GET /api/collections/{collection_id}`` answer (``api/openapi.json`` components)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field


class CollectionSummary(BaseModel):
    collection_id: str
    name: str
    built_in: bool = Field(
        False, description="The service's own documentation (python-docs), listed for everyone."
    )
    read_only: bool = Field(
        False, description="Documents cannot be added or deleted; DELETE and upload are 409."
    )
    created_at: datetime
    updated_at: datetime
    links: dict[str, str]


class CollectionList(BaseModel):
    collections: list[CollectionSummary]


class CollectionDetail(CollectionSummary):
    documents: list[dict[str, Any]] = Field(
        description="Each with its status, chunk count, pages and links.original "
        "(the built-in collection's have no stored original: no links.original)."
    )
    chunks: int
    progress: dict[str, int] = Field(description="Documents per status.")
