"""The offline reasoner's deep research rules: clarify, analyze, plan, agents, findings.

Supervision (coverage by topic) is in ``offline_supervisor``.

Plain functions over the local corpus so each rule reads on its own; the
``OfflineReasoner`` class only delegates here. Determinism matters more than
cleverness: a finding depends only on its todo (never on which agent finished
first), so the same question over the same corpus yields the same findings
whatever order parallel agents complete in.

Why topics are anchored in different documents: every topic of a question
shares its subject, so searches for "subject + aspect" all return the same
two best documents and a report would cite two sources. The plan therefore
gives each topic a query aimed at one of the other documents about the
question's concepts (``Corpus.focus_documents``); the agent reads
that document and the best one of its broad search.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from shared.adapters.reasoning import offline_meaning, relevance
from shared.adapters.reasoning.offline_text import leads
from shared.adapters.reasoning.question_shape import (
    concepts_of,
    lower_first,
    query_type_of,
    split_comparison,
    subject_of,
)
from shared.adapters.reasoning.question_terms import searched_for
from shared.adapters.reasoning.templates import (
    DECOMPOSITIONS,
    profiles_for,
    texts_for,
    texts_for_question,
    topic_title,
)
from shared.adapters.search.base import Corpus, FocusDocument
from shared.core.limits import NUM_AGENTS
from shared.core.research_models import (
    AgentAction,
    AgentProfile,
    AgentState,
    ClarificationRequest,
    Finding,
    KeyFinding,
    QueryAnalysis,
    ResearchContext,
    ResearchPlan,
    ResearchTopic,
)
from shared.core.source_models import Page, SearchResult, Source
from shared.tools import lexical

KEY_FINDINGS_PER_FINDING = 6
KEY_FINDINGS_PER_PAGE = 4
SHORT_QUERY_WORDS = 6
# Steps per researcher todo (DEEP_RESEARCH_AGENT_MAX_STEPS caps them), after the spec's
# effort scaling: simple fact-finding 3-10 tool calls, direct comparisons 10-15 each.
STEPS_BY_COMPLEXITY = {"simple": 3, "moderate": 6, "complex": 10}
COMPARISON_STEPS = 12
CORE_DOCUMENTS = 2  # the best documents every broad search reaches anyway
FOCUS_POOL = 12  # documents looked at for anchors about the question
MAX_TOPICS = 6  # one per decomposition (templates.DECOMPOSITIONS)


def clarify(context: ResearchContext) -> ClarificationRequest:
    t = texts_for(context.language)
    if context.clarification_answers:
        return ClarificationRequest(needed=False, reason=t["clarify_reason_answered"])
    short = len(context.query.split()) < SHORT_QUERY_WORDS
    vague = len(lexical.content_tokens(context.query)) < 3
    if not (short or vague):
        return ClarificationRequest(needed=False, reason=t["clarify_reason_clear"])
    subject = subject_of(context.query)
    return ClarificationRequest(
        needed=True,
        questions=[
            t[k].format(subject=subject)
            for k in ("clarify_scope", "clarify_period", "clarify_depth")
        ],
        reason=t["clarify_reason_short"],
    )


def analyze(context: ResearchContext) -> QueryAnalysis:
    """Shape by pattern; complexity from length and the number of distinct concepts."""
    query = context.query
    kind = query_type_of(query)
    concepts = lexical.unique_texts(lexical.candidate_phrases(query))[:6]
    words = len(query.split())
    sides = len(re.split(r"\s+(?:vs\.?|versus|or|и|или|против)\s+|,", query))
    if words > 15 or len(concepts) >= 4 or (kind == "comparison" and sides >= 3):
        agents = min(NUM_AGENTS.le, max(3, len(concepts)))
        complexity = "complex"
    elif words <= SHORT_QUERY_WORDS and len(concepts) <= 1 and kind != "comparison":
        complexity, agents = "simple", 1
    else:
        complexity, agents = "moderate", 2
    steps = STEPS_BY_COMPLEXITY[complexity]
    if kind == "comparison":
        agents = max(2, min(4, sides + 1, agents + 1))
        steps = max(steps, COMPARISON_STEPS)
    return QueryAnalysis(
        query_type=kind,
        complexity=complexity,
        key_concepts=concepts or [subject_of(query)],
        recommended_agents=agents,
        recommended_steps=steps,
    )


def _relevant(
    corpus: Corpus, focus: list[FocusDocument], context: ResearchContext
) -> list[FocusDocument]:
    """The focus documents about the question: by meaning when the corpus has vectors, else
    (``relevance``) those whose title names it first, then those with sentences about it."""
    if (meant := offline_meaning.about(corpus, focus, context.query, context.language)) is not None:
        return meant
    sentences = {}
    for doc in focus:
        cached = corpus.document_sentences(doc.url)
        sentences[doc.url] = cached[0] if cached else ()
    gate = relevance.question_gate(context.query, corpus.idf, context.language)
    if not gate.judges():
        return []  # nothing tells pages apart: topics spread over the focus documents
    gate = gate.calibrated(s for group in sentences.values() for s in group)
    about = [d for d in focus if gate.is_about(d.title, sentences[d.url])]
    return sorted(about, key=lambda d: not gate.names(d.title))  # stable: focus order within


def _plannable(
    corpus: Corpus, context: ResearchContext, relevant: list[FocusDocument], count: int
) -> list[FocusDocument]:
    """The documents about the question that get a topic: the first ``count``, and each
    further one that is about it by quotes carrying the question's share (a topic left
    out would leave it unread; a page that only repeats one word of the question, the
    debugger's ``continue``, gets none)."""
    if len(relevant) <= count:
        return relevant
    gate = relevance.question_gate(context.query, corpus.idf, context.language)

    def strictly_about(doc: FocusDocument) -> bool:
        cached = corpus.document_sentences(doc.url)
        return bool(cached) and gate.is_about(doc.title, cached[0], strict=True)

    return relevant[:count] + [d for d in relevant[count:] if strictly_about(d)]


def _anchors(
    focus: list[FocusDocument], relevant: list[FocusDocument], count: int
) -> list[FocusDocument]:
    """The documents about the question first, then the others that mention its concepts
    (a long reference page with a section on it: the report cites it for a quote when the
    question is documented there, ``offline_quotes``). When none is about the question:
    the documents about its concepts beyond the core ones first (so topics spread out),
    then the core ones; all of them when none names a concept."""
    if relevant:
        return relevant + [d for d in focus if d.about and d not in relevant]
    about = [d for d in focus[: count + CORE_DOCUMENTS] if d.about]
    if not about:
        return focus[: count + CORE_DOCUMENTS]
    return about[CORE_DOCUMENTS:] + about[:CORE_DOCUMENTS]


def plan(
    corpus: Corpus, context: ResearchContext, analysis: QueryAnalysis, max_topics: int
) -> ResearchPlan:
    t = texts_for_question(context.query, context.language)
    subject = subject_of(context.query)
    count = {"simple": 3, "moderate": 4, "complex": 5}[analysis.complexity]
    count += analysis.query_type == "comparison"
    count = max(1, min(count, max_topics, MAX_TOPICS))
    # a question in another language: the documents its carried terms find (``carried``)
    searched = searched_for(context.query, corpus.idf, context.language) or context.query
    phrases = corpus.key_phrases(searched, 6)
    focus = corpus.focus_documents(searched, FOCUS_POOL, concepts_of(subject))
    relevant = _plannable(corpus, context, _relevant(corpus, focus, context), count)
    anchors = _anchors(focus, relevant, count)
    if relevant:  # a topic per document about the question, then per one on its concepts
        count = min(max(count, len(relevant)), len(anchors), max_topics, MAX_TOPICS)
    a, b = split_comparison(subject, phrases)
    topics = []
    for i, kind in enumerate(DECOMPOSITIONS[analysis.query_type][:count], start=1):
        anchor = anchors[(i - 1) % len(anchors)] if anchors else None
        phrase = phrases[(i - 1) % len(phrases)] if phrases else subject
        if anchor is not None:
            phrase = lower_first(anchor.title)
        word = t[f"q_{kind}"]
        focused = f"{anchor.title} {anchor.phrase}" if anchor else f"{subject} {phrase}"
        queries = lexical.unique_texts([f"{subject} {word}", focused, f"{phrase} {word}"])
        topics.append(
            ResearchTopic(
                id=i,
                title=topic_title(
                    context.query, context.language, kind, subject=subject, phrase=phrase, a=a, b=b
                ),
                priority=min(5, 1 + (i - 1) // 2),
                queries=queries,
                rationale=t["plan_rationale"].format(aspect=word),
            )
        )
    return ResearchPlan(
        summary=t["plan_summary"].format(count=len(topics), query=context.query), topics=topics
    )


def agent_profiles(context: ResearchContext, n: int) -> list[AgentProfile]:
    base = profiles_for(context.language)
    profiles = []
    for agent_id in range(1, max(n, 0) + 1):
        name, specialization, style, prefs = base[(agent_id - 1) % len(base)]
        if agent_id > len(base):
            name = f"{name} {agent_id}"
        profiles.append(
            AgentProfile(
                agent_id=agent_id,
                name=name,
                specialization=specialization,
                working_style=style,
                source_preferences=list(prefs),
            )
        )
    return profiles


def agent_step(state: AgentState) -> AgentAction:
    """The todo's broad query, then its focused one, then read, then done (within max_steps).

    Stuck (every search came back empty, and no planned query is left or the step
    budget is spent): ask the supervisor, who answers with a reformulated todo.

    Reading alternates between searches, narrowest first: the focused search's
    best unread result (the topic's anchor document), then the broad one's.
    Within a search the tool's order is kept: the researcher lists URLs that
    earlier todos on this topic already read last, so a deepening todo reads
    something new.
    """
    t = texts_for(state.context.language)
    searches = [o for o in state.observations if o.tool == "web_search"]
    searched = {o.argument.strip().lower() for o in searches}
    unused = [q for q in state.todo.queries if q.strip().lower() not in searched]
    last = state.step >= state.max_steps - 1
    if searches and not any(o.results for o in searches) and (last or not unused):
        return _ask_supervisor(state, searches)
    if last:
        return AgentAction(thought=t["thought_done"], tool="done")
    if not searches:
        first = unused[0] if unused else f"{state.todo.topic} {subject_of(state.context.query)}"
        return AgentAction(thought=t["thought_broad"], tool="web_search", argument=first)
    read = set(state.fetched_urls) | {
        u for o in state.observations if o.tool == "scrape_url" for u in [o.argument, *o.page_urls]
    }
    steps_left = state.max_steps - 1 - state.step
    if not [r for r in searches[-1].results if r.url not in read] and unused and len(searches) < 3:
        return AgentAction(thought=t["thought_reformulate"], tool="web_search", argument=unused[0])
    if len(searches) == 1 and unused and steps_left >= 3:
        return AgentAction(thought=t["thought_narrow"], tool="web_search", argument=unused[0])
    scraped = sum(1 for o in state.observations if o.tool == "scrape_url")
    pick = _next_to_read([o.results for o in reversed(searches)], read, scraped)
    if pick is not None:
        return AgentAction(thought=t["thought_scrape"], tool="scrape_url", argument=pick.url)
    return AgentAction(thought=t["thought_done"], tool="done")


def _ask_supervisor(state: AgentState, searches: list) -> AgentAction:
    """Stuck: every search of the todo came back empty and nothing is left to try."""
    tried = "; ".join(repr(o.argument) for o in searches)
    return AgentAction(
        thought=f"No search returned anything ({tried}); nothing left to try.",
        tool="ask_supervisor",
        argument=f"My searches for {state.todo.topic!r} found nothing: how should I reformulate?",
    )


def _next_to_read(
    result_lists: list[list[SearchResult]], read: set[str], turn: int
) -> SearchResult | None:
    """Round-robin over the searches (starting at ``turn``): each one's first unread result."""
    for k in range(len(result_lists)):
        results = result_lists[(turn + k) % len(result_lists)]
        fresh = next((r for r in results if r.url not in read), None)
        if fresh is not None:
            return fresh
    return None


def write_finding(
    state: AgentState,
    pages: list[Page],
    sentences_of: Callable[[Page], tuple[Sequence[str], Sequence[Sequence[str]]]],
    idf: Mapping[str, float] | None = None,
) -> Finding:
    """Extractive: the pages' sentences ranked against topic + question, MMR, <= 4 per page;
    those the citation gate admits first (``Gate.first``, weighed by ``idf``), so the report
    can cite every page read whose passages are about the question."""
    t = texts_for(state.context.language)
    todo = state.todo
    base = {
        "agent_id": state.profile.agent_id,
        "topic": todo.topic,
        "topic_id": todo.topic_id,
        "todo_id": todo.id,
    }
    pool: list[tuple[str, list[str], Page]] = []
    for page in pages:
        sentences, tokens = sentences_of(page)
        pool.extend(zip(sentences, tokens, [page] * len(sentences), strict=True))
    query = f"{todo.topic} {state.context.query}"
    ranked = lexical.rank_sentences(
        query, [p[0] for p in pool], len(pool), tokens=[p[1] for p in pool]
    )
    ranked = ranked or leads([p[2].url for p in pool])
    if idf is not None:
        gate = relevance.question_gate(state.context.query, idf, state.context.language)
        gate = gate.calibrated(p[0] for p in pool)
        ranked.sort(key=lambda r: gate.first(pool[r[0]][0], gate.names(pool[r[0]][2].title)))
    per_page: dict[str, int] = {}
    key_findings: list[KeyFinding] = []
    for i, _ in ranked:
        sentence, _, page = pool[i]
        if per_page.get(page.url, 0) >= KEY_FINDINGS_PER_PAGE:
            continue
        per_page[page.url] = per_page.get(page.url, 0) + 1
        key_findings.append(KeyFinding(text=sentence, source_urls=[page.url]))
        if len(key_findings) >= KEY_FINDINGS_PER_FINDING:
            break
    if not key_findings:
        return Finding(
            **base, summary=t["finding_none"], confidence="low", notes=[t["finding_none"]]
        )
    used = list({p.url: p for p in pages if p.url in per_page}.values())
    confidence = (
        "high"
        if len(key_findings) >= 4 and len(used) >= 2
        else "medium"
        if len(key_findings) >= 2
        else "low"
    )
    return Finding(
        **base,
        summary=" ".join(k.text for k in key_findings[:2]),
        key_findings=key_findings,
        sources=[Source(url=p.url, title=p.title) for p in used],
        confidence=confidence,
        notes=[t["finding_notes"].format(pages=len(pages), findings=len(key_findings))],
    )
