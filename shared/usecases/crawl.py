"""Pages from the web into a collection: the given URLs and, to ``crawl_depth``, the links
they hold on the same site (scheme and host), through the SSRF-guarded fetcher.

Each page is stored as the fetcher's clean text (title as a first heading), under
its URL as the document's name, so fetching the same unchanged page again is a
no-op and a changed one replaces its chunks, as with uploads. A page that cannot be
fetched is a ``failed`` document naming why; the crawl goes on. A given URL the SSRF
guard refuses (a private or loopback address, another scheme or port) is the
request's error, not a page's: 422 naming each, and nothing is stored.
``collection_max_crawl_pages`` bounds the whole crawl: the given URLs alone over it
are refused (422 naming the limit); links past it are not followed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from shared.core.collection_models import Collection, DocumentRecord, DocumentStatus, document_id
from shared.core.errors import FetchRefused, InvalidInputError, ResearchError
from shared.usecases.collections import save_document
from shared.usecases.ingestion import Added, Upload, add_documents

if TYPE_CHECKING:
    from shared.ports import Services


def crawl(svc: Services, collection: Collection, urls: list[str], depth: int) -> list[Added]:
    limit = svc.settings.collection_max_crawl_pages
    if len(urls) > limit:
        raise InvalidInputError(
            f"{len(urls)} URLs: over collection_max_crawl_pages ({limit})",
            [{"limit": "collection_max_crawl_pages", "value": len(urls)}],
        )
    seen: list[str] = []
    pages: list[Upload] = []
    failures: list[tuple[str, str]] = []
    refused: list[dict] = []
    frontier = list(dict.fromkeys(urls))
    for level in range(depth + 1):
        following: list[str] = []
        for url in frontier:
            if url in seen or len(seen) >= limit:
                continue
            seen.append(url)
            try:
                page, links = svc.web_fetcher.fetch_with_links(url, links=level < depth)
            except FetchRefused as exc:
                if level > 0:
                    failures.append((url, f"{type(exc).__name__}: {exc}"[:300]))
                else:
                    refused.append({"loc": ["urls", urls.index(url)], "msg": str(exc)[:300]})
                continue
            except ResearchError as exc:
                failures.append((url, f"{type(exc).__name__}: {exc}"[:300]))
                continue
            body = f"# {page.title}\n\n{page.text}" if page.title else page.text
            pages.append(Upload(name=url, data=body.encode("utf-8")))
            following += [link for link in links if _same_site(link, url)]
        if refused:
            reasons = "; ".join(r["msg"] for r in refused)
            raise InvalidInputError(f"not fetched (SSRF guard): {reasons}"[:1000], refused)
        frontier = following
    added = add_documents(svc, collection, pages) if pages else []
    return added + [_failed(svc, collection, url, why) for url, why in failures]


def _same_site(link: str, page: str) -> bool:
    a, b = urlsplit(link), urlsplit(page)
    return (a.scheme, a.netloc) == (b.scheme, b.netloc)


def _failed(svc: Services, collection: Collection, url: str, why: str) -> Added:
    record = DocumentRecord(
        id=document_id(collection.id, url),
        collection_id=collection.id,
        name=url,
        media_type="",
        size=0,
        content_hash="",
        status=DocumentStatus.failed,
        error=why,
        updated_at=datetime.now(UTC),
    )
    save_document(svc, record)
    return Added(record, changed=False)
