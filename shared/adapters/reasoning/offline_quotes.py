"""Which cited quotes each section of the offline report gets, and which topics stay open.

A section per researched topic holds the findings' key findings that are about
the question, from sources that are (``relevance``: what it quotes is what it
cites), globally de-duplicated, each with the compressed numbering; the deep
search adds a section of its own when it is part of the evidence.

How the primary text (draft_report.md or main.md) helps an extractive writer:
it cannot paraphrase a draft, but the draft and main.md's key insights record
which sentences the supervisor judged key, so those lead their sections and
the summary; main.md's plan names the topics that were planned, so a planned
topic nobody researched is reported as open rather than silently missing.
Only the *set* of endorsed sentences is used, never the draft's order, which
depends on which agent finished first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from urllib.parse import urlsplit

from shared.adapters.reasoning import question_terms, relevance
from shared.adapters.reasoning.templates import texts_for, topic_heading
from shared.adapters.report.citations import CITATION_RE, sentence_key
from shared.core.report_models import ReportMaterial
from shared.core.research_models import Finding, KeyFinding, ResearchContext
from shared.core.source_models import Page, PageSummary
from shared.tools import lexical, sentence_split

MARKDOWN_LINK = re.compile(r"\s*\(\[[^\]]*\]\([^)]*\)\)|\[([^\]]*)\]\([^)]*\)")
# main.md's plan lines (memory_files.topic_line): "- **Title**: why (Priority: high, ...)"
PLAN_TOPIC = re.compile(
    r"(?m)^- \*\*(.+?)\*\*(?::.*)? \(Priority: \w+, Estimated sources: \d+\)\s*$"
)
ITEMS_PER_SECTION = 8
DEEP_SEARCH_ITEMS = 6
DEEP_SEARCH_AGENT = 0  # compress files the deep search answer as agent 0's finding

Cited = tuple[str, list[int]]
Sentences = Callable[[str], Sequence[str] | None]  # a corpus document's sentences, by URL


def endorsed_sentences(primary: str) -> set[str]:
    """Keys of the sentences the primary text quotes (links removed; the key drops [n])."""
    text = MARKDOWN_LINK.sub(lambda m: m.group(1) or "", primary)
    keys = set()
    for line in text.splitlines():
        line = line.strip().removeprefix("- ").strip()
        if not line or line.startswith(("#", "**", "<!--")):
            continue
        keys.update(sentence_key(s) for s in sentence_split.split_sentences(line))
    return keys


def planned_topics(primary: str) -> list[str]:
    """Topic titles of main.md's research plan (empty for a draft)."""
    return PLAN_TOPIC.findall(primary)


def is_deep_search(finding: Finding) -> bool:
    return finding.agent_id == DEEP_SEARCH_AGENT and finding.topic_id == 0


def topic_sections(
    material: ReportMaterial,
    idf: Mapping[str, float],
    sentences: Sentences = lambda _: None,
    meant: frozenset[str] = frozenset(),
) -> tuple[list[tuple[str, list[Cited]]], list[str]]:
    """Cited, globally de-duplicated key findings about the question, grouped by topic
    (endorsed ones first), then the deep search's most relevant sentences; and the topics
    left empty. ``sentences`` gives a corpus document's whole text, which says better
    than the quotes taken from it whether the document is about the question; ``meant``:
    the documents about it by meaning (``offline_meaning``), cited with their quotes
    instead, when the research read any of them."""
    language = material.context.language
    t = texts_for(language)
    endorsed = endorsed_sentences(material.primary)
    groups: dict[str, list[Finding]] = {}
    order: dict[str, tuple[int, int]] = {}
    for index, finding in enumerate(material.findings):
        if finding.error or not finding.topic.strip() or is_deep_search(finding):
            continue
        groups.setdefault(finding.topic, []).append(finding)
        order.setdefault(finding.topic, (finding.topic_id or 10_000, index))
    gates = _gates(material, list(groups), idf)
    question = relevance.question_gate(material.context.query, idf, material.context.language)
    named = {s.url for s in material.sources if question.names(s.title)}
    citable = _citable(material, groups, gates, question, sentences, named)
    chosen = {s.n for s in material.sources if s.url in meant}
    urls = {s.n: s.url for s in material.sources}
    citable = meaning_first(chosen, citable, lambda n: sentences(urls[n]) is not None)
    vouched = {urls[n] for n in chosen}
    seen: list[frozenset[str]] = []
    sections, gaps = [], []
    for topic in sorted(groups, key=order.__getitem__):
        keys = [k for f in groups[topic] for k in f.key_findings]
        items = _fresh_items(material, keys, seen, gates(topic), citable, named, vouched)
        items.sort(key=lambda item: sentence_key(item[0]) not in endorsed)  # stable
        if items:
            heading = _unique_heading(topic, sections, material.context)
            sections.append((heading, items[:ITEMS_PER_SECTION]))
        elif not _fresh_items(material, keys, [], gates(topic), citable, named, vouched):
            gaps.append(topic)
    gaps += [p for p in planned_topics(material.primary) if p not in groups]
    sections = _by_module(sections, material)
    deep = [k for f in material.findings if is_deep_search(f) for k in f.key_findings]
    if deep:
        items = _fresh_items(material, deep, seen, gates(""), citable, named, vouched)
        items = items[:DEEP_SEARCH_ITEMS]
        if items:
            sections.append((t["deep_search_heading"], items))
    return sections, gaps


def _by_module(
    sections: list[tuple[str, list[Cited]]], material: ReportMaterial
) -> list[tuple[str, list[Cited]]]:
    """Sections headed by a module's name ("Subprocess") hold only that module's quotes: a
    reader takes such a section to be about the module, and its researcher also quoted
    the other pages it read (atexit's "Register a function to be executed upon normal
    program termination" under "Subprocess"). Such a quote moves to its own module's
    section when there is one, else to the first section that names no module (the
    question's own); a section left with nothing is dropped."""
    module = {s.n: relevance.module_title(s.title).casefold() for s in material.sources}
    headed = {i: m for i, (h, _) in enumerate(sections) if (m := h.casefold()) in module.values()}
    if not headed:
        return sections
    home = {m: i for i, m in headed.items()}
    plain = next((i for i in range(len(sections)) if i not in headed), None)
    moved: list[list[Cited]] = [[] for _ in sections]
    for i, (_, items) in enumerate(sections):
        for item in items:
            owners = {module[n] for n in item[1]}
            if i not in headed or headed[i] in owners:
                moved[i].append(item)
                continue
            target = next((home[m] for m in owners if m in home), plain)
            moved[i if target is None else target].append(item)
    return [(h, items) for (h, _), items in zip(sections, moved, strict=True) if items]


def _gates(
    material: ReportMaterial, topics: list[str], idf: Mapping[str, float]
) -> Callable[[str], relevance.Gate]:
    """What a topic's quotes must be about: the question (its bar calibrated on all the
    quotes at hand). A question that says little in the corpus's words (one in another
    language names "with" at best) is helped by the topic's title, which planning took
    from the corpus (the deep search takes every topic's)."""
    context = material.context
    quotes = [k.text for f in material.findings for k in f.key_findings]
    gate = relevance.question_gate(context.query, idf, context.language)
    if not gate.light():
        gate = gate.calibrated(quotes)
        return lambda _topic: gate
    every = gate.with_words(" ".join(topics), idf).calibrated(quotes)
    by_topic = {t: gate.with_words(t, idf).calibrated(quotes) for t in topics}
    return lambda topic: by_topic.get(topic, every)


def _citable(
    material: ReportMaterial,
    groups: dict[str, list[Finding]],
    gates: Callable[[str], relevance.Gate],
    question: relevance.Gate,
    sentences: Sentences,
    named: set[str],
) -> set[int]:
    """The sources a report may cite: those about the question (``relevance``), judged by
    their title and by their sentences: all of them for a corpus document, else the quotes
    its topics' gates admit from it. A corpus document with a quote about the question is
    citable too when it comes from where the question is documented: the collection of a
    page whose title names it (the language reference for a construct: its long pages on
    compound statements or the type hierarchy each hold a section on it), not a library
    module that uses the construct in passing. A module's page names the question only
    for itself: the other modules of the library document their own API."""
    quotes: dict[str, set[str]] = {}
    topics = [(topic, f) for topic, fs in groups.items() for f in fs]
    topics += [("", f) for f in material.findings if is_deep_search(f)]
    for topic, finding in topics:
        gate = gates(topic)
        for key in finding.key_findings:
            if gate.admits(key.text, bool(named.intersection(key.source_urls))):
                for url in key.source_urls:
                    quotes.setdefault(url, set()).add(key.text)
    whole = gates("")
    titles = {s.url: s.title for s in material.sources}
    home = {urlsplit(u).netloc for u in named if not relevance.module_title(titles.get(u, ""))}

    def about(url: str, title: str) -> bool:
        said = sentences(url)
        if said is None:
            return question.is_about(title, quotes.get(url, ()))
        if url not in quotes or question.carries_nothing():  # nothing to match it by
            return False
        return urlsplit(url).netloc in home or whole.is_about(title, said)

    citable = {s.n for s in material.sources if about(s.url, s.title)}
    if citable:
        return citable
    # a how-to whose answer is one function of a long page: the page that answers it best
    read = {s.url: said for s in material.sources if s.url in quotes and (said := sentences(s.url))}
    best = question.answering(read)
    return {s.n for s in material.sources if s.url == best}


def _fresh_items(
    material: ReportMaterial,
    keys: list[KeyFinding],
    seen: list[frozenset[str]],
    gate: relevance.Gate,
    citable: set[int],
    named: set[str],
    vouched: set[str],
) -> list[Cited]:
    """Key findings from a citable source, about the question (``relevance``: a quote that
    is not is off-topic however well it ranked in its document) and no near-duplicate
    already used (``seen`` grows); ``named``: the URLs of pages whose title names it,
    ``vouched``: of those about it by meaning."""
    numbers = {s.url: s.n for s in material.sources if s.n in citable}
    items: list[Cited] = []
    for key in keys:
        ns = sorted({numbers[u] for u in key.source_urls if u in numbers})
        on_named = bool(named.intersection(key.source_urls))
        on_vouched = bool(vouched.intersection(key.source_urls))
        if not ns or CITATION_RE.search(key.text):
            continue
        if not gate.admits(key.text, on_named, on_vouched):
            continue
        tokens = frozenset(lexical.content_tokens(key.text))
        if any(lexical.jaccard(tokens, other) >= 0.6 for other in seen):
            continue
        seen.append(tokens)
        items.append((key.text, ns))
    return items


def names_only_subject(topic: str, context: ResearchContext, read: Sequence[str] = ()) -> bool:
    """Whether a topic names nothing but the question's own subject ("Key concepts: the
    with statement" for a question on the with statement), or a page the research read
    (``read``: their titles). "Examples: contextlib" beside the contextlib page's quotes is
    no open question: the report answers it. Nor is "Key concepts: the dataclasses module"
    in a report on lists and tuples: the planner took it from that page, which was read
    and found off topic."""
    named = re.search(r"\((.+)\)", topic)  # a gap clause: "topic 2 (Examples: …) was …"
    heading = topic_heading(named.group(1) if named else topic, context.query, context.language)
    words = _stemmed(heading)
    if words <= _stemmed(context.query):
        return True
    return any(words <= _stemmed(t) | _stemmed(relevance.module_title(t)) for t in read)


def _stemmed(text: str) -> set[str]:
    return {question_terms.stem(w) for w in lexical.content_tokens(text)}


def _unique_heading(
    topic: str, sections: list[tuple[str, list[Cited]]], context: ResearchContext
) -> str:
    """The topic's subject as heading, or its full title when another section has it."""
    heading = topic_heading(topic, context.query, context.language)
    return topic if any(h == heading for h, _ in sections) else heading


def about_the_question(
    gate: relevance.Gate,
    ranked: list[tuple[int, float]],
    pool: list[tuple[str, int]],
    summaries: Sequence[PageSummary | Page],
    meant: frozenset[str],
    in_corpus: Callable[[str], object],
) -> list[tuple[int, float]]:
    """The ranked sentences a reader would accept as about the question, from pages that
    are about it, judged as ``topic_sections`` judges a report's sources: the corpus's
    documents chosen by meaning (``meant``, when any was read; their title vouches for
    them, so a distinctive word of the question is enough in a quote), any other page by
    the words of its quotes (``relevance``); none of the corpus's for a question of which
    no word carries over to it. A search answer cites what it quotes. Sentences saying what a
    part of the question is come first (``Gate.defines``), in ranked order otherwise."""
    if gate.carries_nothing():  # no word of it to match the corpus's pages by
        ranked = [r for r in ranked if not in_corpus(summaries[pool[r[0]][1] - 1].url)]
    gate = gate.calibrated(s for s, _ in pool)
    chosen = {n for n, s in enumerate(summaries, start=1) if s.url in meant}
    named = {n for n, s in enumerate(summaries, start=1) if gate.names(s.title)}
    admitted = [
        (i, score)
        for i, score in ranked
        if gate.admits(pool[i][0], pool[i][1] in named, pool[i][1] in chosen)
    ]
    quotes: dict[int, list[str]] = {}
    for i, _ in admitted:
        quotes.setdefault(pool[i][1], []).append(pool[i][0])
    pages = {n for n, said in quotes.items() if gate.is_about(summaries[n - 1].title, said)}
    pages = meaning_first(chosen, pages, lambda n: bool(in_corpus(summaries[n - 1].url)))
    about = [(i, score) for i, score in admitted if pool[i][1] in pages]
    return sorted(about, key=lambda quote: not gate.defines(pool[quote[0]][0]))  # stable


def meaning_first(chosen: set[int], judged: set[int], in_corpus: Callable[[int], bool]) -> set[int]:
    """The pages a text may cite: when any document chosen by meaning was read, those and
    the pages from outside the collection (the web's, a team's) that their words vouch
    for; else all that their words vouch for."""
    return chosen | {n for n in judged if not in_corpus(n)} if chosen else judged


def in_turns(
    ranked: list[tuple[int, float]], page_of: Callable[[int], int], first: Sequence[int], turn: int
) -> list[list[tuple[int, float]]]:
    """``ranked`` quotes a source at a time, ``turn`` of its best each time round, the sources
    in the order of ``first`` (the pages chosen by meaning, best first), the others after
    them by their best quote: an answer opens with the page most about the question
    (atexit's for "run code when my program exits"), not the one whose sentences share most
    words with it (pdb's "after normal exit of the program"), and each source it cites is
    heard before any is heard twice."""
    by_page: dict[int, list[tuple[int, float]]] = {}
    for quote in ranked:
        by_page.setdefault(page_of(quote[0]), []).append(quote)
    pages = [n for n in first if n in by_page] + [n for n in by_page if n not in first]
    rounds = max((len(quotes) for quotes in by_page.values()), default=0)
    return [
        by_page[n][start : start + turn]
        for start in range(0, rounds, turn)
        for n in pages
        if by_page[n][start : start + turn]
    ]
