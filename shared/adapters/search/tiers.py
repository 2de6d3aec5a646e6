"""Source tiers: how much a result's domain can be trusted, and the source policies.

Tier 1 is official / primary (standards bodies, governments, a project's own
documentation), 2 reputable reference, academic and major publishers, 3
established media and vendor blogs (and anything unknown), 4 general blogs
and Q&A sites, 5 forums and social media. The table ships in ``tiers.json``
(with notes on the debatable choices) and ``SOURCE_TIERS_FILE`` overrides or
extends it with the same shape. ``corpus://`` URLs are the local reference
corpus and count as tier 1.

Policies (``options.source_policy``):
- ``discovery`` keeps everything, each result marked with its tier;
- ``strict`` keeps tiers 1-2, and when that leaves nothing falls back to
  everything with a warning the report shows (an empty answer helps nobody),
  unless the caller forbids the fallback (``fallback=False``: every search a
  deep research makes, whose report must rest on tiers 1-2 alone);
- ``monitor`` keeps everything so the report can contrast tier 1 with tier 5,
  warning when one side of that contrast is missing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from shared.core.errors import ConfigurationError
from shared.core.source_models import SearchResult

DEFAULT_TABLE = Path(__file__).with_name("tiers.json")
STRICT_MAX_TIER = 2
Policy = Literal["discovery", "strict", "monitor"]
STRICT_WITHHELD = (
    "strict source policy: no tier 1-2 source among {count} results; "
    "the tier 3-5 ones were left out"
)


@dataclass(frozen=True)
class SourceTiers:
    """A domain-suffix -> tier table; the longest matching suffix wins."""

    by_suffix: dict[str, int] = field(default_factory=dict)
    default: int = 3

    @classmethod
    def load(cls, path: Path | None = None) -> SourceTiers:
        """The shipped table, overridden/extended by ``path`` (``SOURCE_TIERS_FILE``) if given."""
        table = _read_table(DEFAULT_TABLE)
        by_suffix, default = _entries(table), int(table.get("default", 3))
        if path is not None:
            override = _read_table(Path(path))
            by_suffix.update(_entries(override))
            default = int(override.get("default", default))
        return cls(by_suffix=by_suffix, default=default)

    def tier_of(self, url: str) -> int:
        """Tier of ``url``'s host; ``corpus://`` and a collection's documents (their
        ``/api/collections/...`` links) are 1, unknown hosts get the default (3)."""
        try:
            parts = urlsplit(url.strip())
        except ValueError:
            return self.default
        if parts.scheme.lower() == "corpus" or url.startswith(OWN_DOCUMENTS):
            return 1
        host = (parts.hostname or "").rstrip(".").lower()
        labels = host.split(".")
        for start in range(len(labels)):  # longest suffix first
            tier = self.by_suffix.get(".".join(labels[start:]))
            if tier is not None:
                return tier
        return self.default

    def mark(self, results: Iterable[SearchResult]) -> list[SearchResult]:
        return [r.model_copy(update={"tier": self.tier_of(r.url)}) for r in results]

    def apply_policy(
        self,
        results: Iterable[SearchResult],
        policy: Policy = "discovery",
        *,
        fallback: bool = True,
    ) -> tuple[list[SearchResult], list[str]]:
        """Results marked with tiers and filtered by ``policy``, plus warnings for the report.

        ``fallback=False``: strict never falls back to tiers 3-5; an empty list then
        comes with a warning saying the lower tiers were left out.
        """
        marked = self.mark(results)
        if policy == "strict":
            kept = [r for r in marked if (r.tier or self.default) <= STRICT_MAX_TIER]
            if kept or not marked:
                return kept, []
            if not fallback:
                return [], [STRICT_WITHHELD.format(count=len(marked))]
            return marked, [
                "strict source policy: no tier 1-2 sources were found, "
                "so lower-tier sources are used; treat the answer with caution"
            ]
        if policy == "monitor":
            tiers = {r.tier for r in marked}
            warnings = [
                f"monitor source policy: no tier {t} ({label}) sources to contrast"
                for t, label in ((1, "official"), (5, "community"))
                if marked and t not in tiers
            ]
            return marked, warnings
        if policy == "discovery":
            return marked, []
        raise ConfigurationError(f"unknown source_policy {policy!r} (discovery|strict|monitor)")


OWN_DOCUMENTS = "/api/collections/"  # the caller's own documents (documents/collection_search.py)


def _read_table(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"SOURCE_TIERS_FILE {path} is not a readable JSON table") from exc
    if not isinstance(data, dict) or not isinstance(data.get("tiers", {}), dict):
        raise ConfigurationError(f'SOURCE_TIERS_FILE {path} must hold {{"tiers": {{"1": [...]}}}}')
    return data


def _entries(table: dict) -> dict[str, int]:
    entries: dict[str, int] = {}
    for tier, domains in table.get("tiers", {}).items():
        level = int(tier)
        if not 1 <= level <= 5:
            raise ConfigurationError(f"SOURCE_TIERS_FILE: tier {tier!r} is not between 1 and 5")
        for domain in domains:
            entries[domain.strip().lower().removeprefix("*.").strip(".")] = level
    return entries
