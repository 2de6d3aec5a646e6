"""Fixtures for the Reasoner contract suite: one reasoner per factory, fixture inputs.

``REASONER_FACTORIES`` maps a name to ``factory(tmp_path) -> Reasoner``; every
test in ``test_reasoner_contract.py`` runs once per entry, so holding another
implementation to the contract is one more entry here. The inputs (pages,
summaries, findings, report material) come from the default local corpus and
are built without any reasoner, so every implementation sees the same data.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import pytest

from shared.adapters.reasoning.base import Reasoner
from shared.adapters.search.builtin_corpus import BuiltinCorpus
from shared.core.config import Settings
from shared.core.report_models import ReportMaterial
from shared.core.research_models import Finding, KeyFinding, ResearchContext
from shared.core.source_models import Page, PageSummary, Source
from shared.tools import sentence_split

DEFAULT_QUESTION = "How do context managers and the with statement work in Python?"
FIXTURE_URLS = (
    "corpus://python-reference/with",
    "corpus://python-reference/context-managers",
    "corpus://python-reference/try",
)


@lru_cache(maxsize=1)
def shared_corpus() -> BuiltinCorpus:
    """The default corpus, indexed once per test process.

    Its disk cache lives in the system temp folder (keyed by corpus content, so
    never stale): splitting the corpus takes seconds, loading the cache ms.
    """
    data_dir = Path(tempfile.gettempdir()) / "deep-research-test-corpus"
    corpus = BuiltinCorpus(Settings(data_dir=data_dir, local_corpus_path=None))
    corpus.data  # noqa: B018 - build or load now, outside any timed test
    return corpus


def _offline(tmp_path: Path) -> Reasoner:
    from shared.adapters.reasoning.offline import OfflineReasoner

    return OfflineReasoner(shared_corpus())


def _llm(tmp_path: Path) -> Reasoner:
    from shared.adapters.reasoning.llm import LLMReasoner
    from tests.fakes.openai_server import shared_fake_openai

    server = shared_fake_openai()  # schema-aware OpenAI-protocol fake on 127.0.0.1
    settings = Settings(openai_base_url=server.base_url, openai_api_key="test", data_dir=tmp_path)
    return LLMReasoner(settings)


REASONER_FACTORIES: dict[str, Callable[[Path], Reasoner]] = {"offline": _offline, "llm": _llm}


@pytest.fixture(params=sorted(REASONER_FACTORIES))
def reasoner(request: pytest.FixtureRequest, tmp_path: Path) -> Reasoner:
    return REASONER_FACTORIES[request.param](tmp_path)


@pytest.fixture
def offline_reasoner(tmp_path: Path) -> Reasoner:
    """For the cases only the offline reasoner promises: generated once, never skipped."""
    return REASONER_FACTORIES["offline"](tmp_path)


@pytest.fixture(scope="session")
def corpus() -> BuiltinCorpus:
    return shared_corpus()


def fixture_pages() -> list[Page]:
    corpus = shared_corpus()
    return [corpus.fetch(url) for url in FIXTURE_URLS]


def fixture_summaries() -> list[PageSummary]:
    out = []
    for page in fixture_pages():
        sentences = list(sentence_split.split_sentences(page.text))[:4]
        out.append(
            PageSummary(
                url=page.url,
                title=page.title,
                summary=" ".join(sentences[:2]),
                relevant_sentences=sentences,
            )
        )
    return out


def fixture_context(language: str = "en", **extra: object) -> ResearchContext:
    query = DEFAULT_QUESTION if language == "en" else "Как работают менеджеры контекста в Python?"
    return ResearchContext(session_id="s-contract", query=query, language=language, **extra)


TOPICS = {
    "en": ["How the with statement works", "Context manager protocol", "Exceptions inside with"],
    "ru": ["Как работает оператор with", "Протокол менеджера контекста", "Исключения внутри with"],
}


def fixture_findings(language: str = "en") -> list[Finding]:
    """Three findings, one per topic, each citing sentences of the fixture pages."""
    pages = fixture_pages()
    findings = []
    for i, topic in enumerate(TOPICS[language], start=1):
        keys = []
        for page in (pages[(i - 1) % 3], pages[i % 3]):
            for sentence in list(sentence_split.split_sentences(page.text))[i : i + 3]:
                keys.append(KeyFinding(text=sentence, source_urls=[page.url]))
        findings.append(
            Finding(
                agent_id=i,
                topic=topic,
                topic_id=i,
                todo_id=f"todo-{i}",
                summary=keys[0].text,
                key_findings=keys,
                sources=[
                    Source(url=u, title=u)
                    for u in dict.fromkeys(u for k in keys for u in k.source_urls)
                ],
            )
        )
    return findings


def fixture_material(language: str = "en", **context_extra: object) -> ReportMaterial:
    pages = fixture_pages()
    return ReportMaterial(
        context=fixture_context(language, **context_extra),
        findings=fixture_findings(language),
        sources=[Source(n=n, url=p.url, title=p.title) for n, p in enumerate(pages, start=1)],
    )
