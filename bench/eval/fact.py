"""FACT-style checks of one report: its cited statements against the pages they cite.

Each (statement, cited page) pair is one citation. The page is fetched through
the app's fetcher (the SSRF guard, size and time caps; ``corpus://`` pages from
the local corpus), once per URL. Offline, what can be checked for real is the
quote: the statement's sentence is in the cited page, word for word (an
extractive writer must quote). With a judge, it also decides whether the page
supports the statement: citation accuracy is the supported share of the judged
citations, effective citations the number of supported ones (DeepResearch Bench's terms).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bench.eval.judge import Judge
from bench.eval.statements import Statement, quoted_in
from shared.adapters.fetch.base import Fetcher
from shared.core.errors import ResearchError

log = logging.getLogger(__name__)


@dataclass
class FactResult:
    statements: int = 0
    citations: int = 0
    fetched: int = 0  # citations whose page could be read
    quotes_found: int = 0
    judged: int = 0
    supported: int = 0

    @property
    def quote_share(self) -> float | None:
        return self.quotes_found / self.fetched if self.fetched else None

    @property
    def accuracy(self) -> float | None:
        return self.supported / self.judged if self.judged else None


def check(statements: list[Statement], fetcher: Fetcher, judge: Judge | None) -> FactResult:
    result = FactResult(statements=len(statements))
    pages: dict[str, str | None] = {}
    for statement in statements:
        for url in statement.urls:
            result.citations += 1
            if url not in pages:
                pages[url] = _read(fetcher, url)
            text = pages[url]
            if text is None:
                continue
            result.fetched += 1
            # a quote opened with the member it describes: that name is the page's too
            named = statement.member is None or quoted_in(statement.member, text)
            result.quotes_found += quoted_in(statement.text, text) and named
            if judge is not None:
                try:
                    supported = judge.supports(statement.text, text)
                except ResearchError as exc:  # no usable verdict: the citation stays unjudged
                    log.warning("the judge gave no verdict on %s: %s", url, exc)
                    continue
                result.judged += 1
                result.supported += supported
    return result


def _read(fetcher: Fetcher, url: str) -> str | None:
    try:
        return fetcher.fetch(url).text
    except ResearchError as exc:  # refused or unreachable: the citation cannot be checked
        log.warning("could not fetch %s: %s", url, exc)
        return None
