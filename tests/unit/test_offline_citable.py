"""Which read pages the offline report may cite (``offline_quotes``): a page whose title
names the question, a page about it, and a page with a quote about it from where the
question is documented."""

from __future__ import annotations

from shared.adapters.reasoning.offline_quotes import topic_sections
from shared.core.report_models import ReportMaterial
from shared.core.research_models import Finding, KeyFinding, ResearchContext
from shared.core.source_models import Source

IDF = {"with": 0.3, "statement": 1.1, "context": 1.4, "manager": 2.7, "filler": 0.1}
WITH = "corpus://reference/with"
COMPOUND = "corpus://reference/compound"
UNITTEST = "corpus://library/unittest"
WITH_MODULE = "corpus://library/with"
QUOTES = {
    WITH: "The with statement calls the context manager's enter method.",
    COMPOUND: "A with statement runs its block inside a context manager.",
    UNITTEST: "The assertion can be used as a context manager in a with statement.",
    WITH_MODULE: "The with statement calls the context manager's enter method.",
}
TITLES = {
    WITH: "The with statement",
    COMPOUND: "Compound statements",
    UNITTEST: "unittest — Unit testing framework",
    WITH_MODULE: "with — Tools for the with statement",
}
FILLER = [f"Filler sentence number {i} about files." for i in range(80)]


def _material(query: str, topic: str, said: dict[str, list[str]], titles: dict[str, str]):
    """A report's material: one finding on ``topic`` quoting ``said`` (URL -> its quotes),
    the sources numbered in the order of ``titles`` (URL -> title)."""
    return ReportMaterial(
        context=ResearchContext(session_id="s", query=query),
        findings=[
            Finding(
                agent_id=1,
                topic=topic,
                topic_id=1,
                summary=next(iter(said.values()))[0],
                key_findings=[
                    KeyFinding(text=s, source_urls=[u]) for u, ss in said.items() for s in ss
                ],
            )
        ],
        sources=[Source(n=n, url=u, title=t) for n, (u, t) in enumerate(titles.items(), 1)],
    )


def _numbers(sections) -> set[int]:
    return {n for _, items in sections for _, ns in items for n in ns}


def _cited(urls: list[str]) -> set[str]:
    """The URLs a report over pages ``urls`` (each quoted once) cites."""
    material = _material(
        "How does the with statement work?",
        "How it works: context managers",
        {u: [QUOTES[u]] for u in urls},
        {u: TITLES[u] for u in urls},
    )
    whole = {u: [QUOTES[u], *FILLER[:5]] for u in (WITH, WITH_MODULE)}  # the rest: in passing

    def sentences(url: str) -> list[str]:
        return whole.get(url, [*FILLER[:40], QUOTES[url], *FILLER[40:]])

    sections, _ = topic_sections(material, IDF, sentences)
    numbers = _numbers(sections)
    return {s.url for s in material.sources if s.n in numbers}


def test_a_quote_from_where_the_question_is_documented_is_cited():
    # the page that names the question is in the reference: its other pages are citable
    # for a quote about the question; the library's page that uses it in passing is not
    assert _cited([WITH, COMPOUND, UNITTEST]) == {WITH, COMPOUND}


def test_without_a_page_naming_the_question_a_passing_mention_is_not_cited():
    assert _cited([COMPOUND, UNITTEST]) == set()


def test_a_library_module_named_by_the_question_does_not_vouch_for_other_modules():
    # the question's page is a module's: the library's other modules only use what it
    # documents, so a quote in passing there is not cited
    assert _cited([WITH_MODULE, UNITTEST]) == {WITH_MODULE}


def test_a_how_to_no_page_is_about_cites_the_page_that_answers_it_best():
    os_url, time_url = "corpus://library/os", "corpus://library/time"
    idf = {"read": 1.7, "environment": 2.0, "variable": 1.3, "filler": 0.1}
    said = {
        os_url: ["Get an environment variable.", "Change or add an environment variable."],
        time_url: ["The TZ environment variable sets the zone."],
    }
    material = _material(
        "How do I read an environment variable?",
        "How it works: os",
        said,
        {time_url: "time — Time access", os_url: "os — OS routines"},
    )
    long = {u: [*FILLER, *ss, *FILLER] for u, ss in said.items()}  # too few for the share
    sections, _ = topic_sections(material, idf, long.get)
    assert _numbers(sections) == {2}


def test_documents_chosen_by_meaning_are_cited_and_pages_outside_the_collection_still_by_words():
    web = "https://example.org/with-guide"
    urls = [WITH, COMPOUND, UNITTEST, web]
    quotes = {**QUOTES, web: "Every with statement needs a context manager to call."}
    titles = {**TITLES, web: "A guide to the with statement"}
    material = _material(
        "How does the with statement work?",
        "How it works: context managers",
        {u: [quotes[u]] for u in urls},
        {u: titles[u] for u in urls},
    )

    def sentences(url: str) -> list[str] | None:  # the collection's documents only
        return None if url == web else [quotes[url], *FILLER[:5]]

    # by meaning, the unittest page is about the question and the compound page is not
    meant = frozenset({WITH, UNITTEST})
    sections, _ = topic_sections(material, IDF, sentences, meant)
    numbers = _numbers(sections)
    cited = {s.url for s in material.sources if s.n in numbers}
    assert cited == {WITH, UNITTEST, web}
