"""OfflineReasoner: the embedded, LLM-free mind (deterministic, extractive, no network).

Every answer is built from sentences the sources wrote, chosen by BM25
relevance and Maximal Marginal Relevance (``shared.reasoning.extractive``);
the only prose of its own is the fixed wording in ``templates``. Decisions
(clarify, plan, agent steps, supervision) follow simple, documented rules,
so the same query over the same corpus always yields the same report. It is
the default when no LLM endpoint is configured and what end-to-end tests run.
"""

from __future__ import annotations

import re
import threading

from shared.config import Settings
from shared.models import (
    AgentAction,
    AgentProfile,
    AgentState,
    ChatMessage,
    ClarificationRequest,
    Critique,
    FinalReport,
    Finding,
    KeyFinding,
    NewTodo,
    Page,
    PageSummary,
    QueryAnalysis,
    ReportMaterial,
    ReportSection,
    ResearchContext,
    ResearchPlan,
    ResearchTopic,
    Source,
    SupervisorReview,
    SynthesizedAnswer,
    Todo,
    TopicCoverage,
)
from shared.reasoning import extractive
from shared.reasoning.templates import (
    DECOMPOSITIONS,
    fixed_headings,
    profiles_for,
    query_type_of,
    split_comparison,
    subject_of,
    texts_for,
)
from shared.search.local import LocalCorpusSearch

# A sentence with "[3]" in it (list indexing in code prose) would read as a citation.
BRACKET_NUMBER = re.compile(r"\[\d+\]")
CITATION = re.compile(r"\[(\d+)\]")
_PRONOUN_TEXT = (
    "it this that they them its these those he she him her "
    "он она оно они это этот эта эти его её ее их ним нём нем"
)
_PRONOUNS = frozenset(_PRONOUN_TEXT.split())
KEY_FINDINGS_PER_FINDING = 6
KEY_FINDINGS_PER_PAGE = 4
COVERED_MIN_FINDINGS = 3
MAX_TODOS_PER_TOPIC = 2
SHORT_QUERY_WORDS = 6


class OfflineReasoner:
    """Reasoner over the local corpus and the pages handed in; see module docstring."""

    name = "offline"

    def __init__(self, settings: Settings, corpus: LocalCorpusSearch | None = None) -> None:
        self._settings = settings
        self._corpus = corpus
        self._lock = threading.Lock()

    @property
    def corpus(self) -> LocalCorpusSearch:
        if self._corpus is None:
            with self._lock:
                if self._corpus is None:
                    self._corpus = LocalCorpusSearch(self._settings)
        return self._corpus

    # -- sentences ------------------------------------------------------------

    def _sentences(self, page: Page) -> tuple[list[str], list[list[str]]]:
        """Usable sentences of a page with their content tokens (corpus cache first)."""
        cached = self.corpus.sentences_of(page) if page.url.startswith("corpus://") else None
        if cached is None:
            sentences = extractive.split_sentences(page.text, _script_language(page.text))
            tokens = [extractive.content_tokens(s) for s in sentences]
        else:
            sentences, tokens = cached
        keep = [i for i, s in enumerate(sentences) if not BRACKET_NUMBER.search(s)]
        return [sentences[i] for i in keep], [tokens[i] for i in keep]

    # -- chat and search modes ------------------------------------------------

    def answer(self, query: str, history: list[ChatMessage], language: str) -> SynthesizedAnswer:
        t = texts_for(language)
        resolved = self.rewrite_query(query, history, language)
        docs = self.corpus.best_documents(resolved, 3)
        pool: list[tuple[str, list[str], Page]] = []
        for doc in docs:
            sentences, tokens = self._sentences(doc)
            pool.extend(zip(sentences, tokens, [doc] * len(sentences), strict=True))
        ranked = extractive.rank_sentences(
            resolved, [p[0] for p in pool], 5, tokens=[p[1] for p in pool]
        )
        chosen = [pool[i] for i, _ in ranked]
        if not chosen:
            return SynthesizedAnswer(
                reasoning=t["answer_reasoning"].format(docs=0),
                answer=t["answer_none"],
                language=language,
            )
        titles = list(dict.fromkeys(doc.title for _, _, doc in chosen))
        sentences = [s for s, _, _ in chosen]
        body = t["answer_intro"].format(titles="; ".join(titles)) + "\n\n" + " ".join(sentences)
        return SynthesizedAnswer(
            reasoning=t["answer_reasoning"].format(docs=len(titles)),
            answer=body,
            key_points=sentences[:3],
            sources=[],
            follow_up_questions=self.follow_up_questions(resolved, body, language),
            language=language,
        )

    def rewrite_query(self, query: str, history: list[ChatMessage], language: str) -> str:
        """Append the previous question's key phrases when the new one leans on it."""
        clean = " ".join(query.split())
        words = {w.lower() for w in re.findall(r"\w+", clean)}
        previous = next(
            (
                m.content
                for m in reversed(history)
                if m.role == "user" and m.content.strip() != clean
            ),
            None,
        )
        leans = len(extractive.content_tokens(clean)) < 3 or bool(words & _PRONOUNS)
        if previous is None or not leans:
            return clean
        extra = extractive.key_phrases([previous], 3, exclude=[clean])
        return f"{clean.rstrip('?!. ')} {' '.join(extra)}".strip() if extra else clean

    def search_queries(self, query: str, n: int, language: str) -> list[str]:
        t = texts_for(language)
        subject = subject_of(query)
        concepts = extractive.candidate_phrases(query) or [subject]
        phrases = self.corpus.key_phrases(query, 4)
        candidates = [
            " ".join(query.split()),
            f"{subject} {t['q_explained']}",
            f"{concepts[0]} {t['q_overview']}",
            *(f"{subject} {p}" for p in phrases),
            *(f"{subject} {t[k]}" for k in ("q_examples", "q_pitfalls", "q_when_to_use")),
        ]
        return _unique(candidates)[: max(n, 0)]

    def follow_up_queries(
        self, query: str, summaries: list[PageSummary], n: int, language: str
    ) -> list[str]:
        t = texts_for(language)
        subject = subject_of(query)
        texts = [s.summary for s in summaries] + [
            x for s in summaries for x in s.relevant_sentences
        ]
        phrases = extractive.key_phrases(texts, max(n, 0) * 2, idf=self.corpus.idf, exclude=[query])
        fallback = (f"{subject} {t[k]}" for k in ("q_examples", "q_pitfalls", "q_how_it_works"))
        queries = _unique([*(f"{subject} {p}" for p in phrases), *fallback], skip=[query])
        return queries[: max(n, 0)]

    def summarize_page(self, query: str, page: Page, language: str) -> PageSummary:
        sentences, tokens = self._sentences(page)
        ranked = extractive.rank_sentences(query, sentences, 5, tokens=tokens)
        relevant = [sentences[i] for i, _ in ranked]
        in_order = [sentences[i] for i in sorted(i for i, _ in ranked[:3])]
        summary = " ".join(in_order) or " ".join(page.text.split()[:60])
        return PageSummary(
            url=page.url, title=page.title, summary=summary, relevant_sentences=relevant
        )

    def synthesize(
        self,
        query: str,
        summaries: list[PageSummary],
        language: str,
        min_words: int,
        max_words: int,
    ) -> SynthesizedAnswer:
        t = texts_for(language)
        pool: list[tuple[str, int]] = []
        for n, summary in enumerate(summaries, start=1):
            sentences = summary.relevant_sentences or extractive.split_sentences(summary.summary)
            pool.extend((s, n) for s in sentences if not BRACKET_NUMBER.search(s))
        ranked = extractive.rank_sentences(query, [s for s, _ in pool], len(pool))
        ranked = ranked or _leads([n for _, n in pool])
        picked: list[str] = []
        cited: set[int] = set()
        words = 0
        for i, _ in ranked:
            sentence = cite(pool[i][0], [pool[i][1]])
            size = len(sentence.split())
            if words + size > max_words:
                continue
            picked.append(sentence)
            cited.add(pool[i][1])
            words += size
            if words >= min_words:
                break
        if not picked:
            return SynthesizedAnswer(answer=t["synth_none"], language=language)
        paragraphs = [" ".join(picked[i : i + 3]) for i in range(0, len(picked), 3)]
        answer = "\n\n".join(paragraphs)
        return SynthesizedAnswer(
            reasoning=t["synth_reasoning"].format(
                sentences=len(picked), cited=len(cited), total=len(summaries)
            ),
            answer=answer,
            key_points=picked[:3],
            sources=[
                Source(n=n, url=s.url, title=s.title, tier=s.tier)
                for n, s in enumerate(summaries, start=1)
                if n in cited
            ],
            follow_up_questions=self.follow_up_questions(query, answer, language),
            language=language,
        )

    # -- deep research: before the agents --------------------------------------

    def clarify(self, context: ResearchContext) -> ClarificationRequest:
        t = texts_for(context.language)
        if context.clarification_answers:
            return ClarificationRequest(needed=False, reason=t["clarify_reason_answered"])
        short = len(context.query.split()) < SHORT_QUERY_WORDS
        vague = len(extractive.content_tokens(context.query)) < 3
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

    def analyze(self, context: ResearchContext) -> QueryAnalysis:
        """Shape by pattern; complexity from length and the number of distinct concepts."""
        query = context.query
        kind = query_type_of(query)
        concepts = _unique(extractive.candidate_phrases(query))[:6]
        words = len(query.split())
        sides = len(re.split(r"\s+(?:vs\.?|versus|or|и|или|против)\s+|,", query))
        if words > 15 or len(concepts) >= 4 or (kind == "comparison" and sides >= 3):
            complexity, agents, steps = "complex", min(5, max(3, len(concepts))), 5
        elif words <= SHORT_QUERY_WORDS and len(concepts) <= 1 and kind != "comparison":
            complexity, agents, steps = "simple", 1, 3
        else:
            complexity, agents, steps = "moderate", 2, 4
        if kind == "comparison":
            agents = max(2, min(4, sides + 1, agents + 1))
        return QueryAnalysis(
            query_type=kind,
            complexity=complexity,
            key_concepts=concepts or [subject_of(query)],
            recommended_agents=agents,
            recommended_steps=steps,
        )

    def plan(
        self, context: ResearchContext, analysis: QueryAnalysis, max_topics: int
    ) -> ResearchPlan:
        t = texts_for(context.language)
        subject = subject_of(context.query)
        count = {"simple": 3, "moderate": 4, "complex": 5}[analysis.complexity]
        count += analysis.query_type == "comparison"
        count = max(1, min(count, max_topics, 6))
        phrases = self.corpus.key_phrases(context.query, 6)
        a, b = split_comparison(subject, phrases)
        topics = []
        for i, kind in enumerate(DECOMPOSITIONS[analysis.query_type][:count], start=1):
            phrase = phrases[(i - 1) % len(phrases)] if phrases else subject
            if kind == "key_concepts" and len(phrases) > 1:
                phrase = ", ".join(phrases[:2])
            title = t[f"topic_{kind}"].format(subject=subject, phrase=phrase, a=a, b=b)
            word = t[f"q_{kind}"]
            queries = _unique([f"{subject} {word}", f"{phrase} {word}", f"{subject} {phrase}"])
            topics.append(
                ResearchTopic(
                    id=i,
                    title=title,
                    priority=min(5, 1 + (i - 1) // 2),
                    queries=queries,
                    rationale=t["plan_rationale"].format(aspect=word),
                )
            )
        return ResearchPlan(
            summary=t["plan_summary"].format(count=len(topics), query=context.query),
            topics=topics,
        )

    def agent_profiles(
        self, context: ResearchContext, plan: ResearchPlan, n: int
    ) -> list[AgentProfile]:
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

    # -- deep research: the agents ---------------------------------------------

    def agent_step(self, state: AgentState) -> AgentAction:
        """Broad search, one narrower search, read the best results, done (within max_steps)."""
        t = texts_for(state.context.language)
        if state.step >= state.max_steps - 1:
            return AgentAction(thought=t["thought_done"], tool="done")
        searches = [o for o in state.observations if o.tool == "web_search"]
        searched = {o.argument.strip().lower() for o in searches}
        read = set(state.fetched_urls) | {
            u
            for o in state.observations
            if o.tool == "scrape_url"
            for u in [o.argument, *o.page_urls]
        }
        unused = [q for q in state.todo.queries if q.strip().lower() not in searched]
        if not searches:
            broad = " ".join(f"{state.todo.topic} {subject_of(state.context.query)}".split()[:16])
            return AgentAction(thought=t["thought_broad"], tool="web_search", argument=broad)
        last_new = [r for r in searches[-1].results if r.url not in read]
        steps_left = state.max_steps - 1 - state.step
        if not last_new and unused and len(searches) < 3:
            return AgentAction(
                thought=t["thought_reformulate"], tool="web_search", argument=unused[0]
            )
        if len(searches) == 1 and unused and steps_left >= 3:
            return AgentAction(thought=t["thought_narrow"], tool="web_search", argument=unused[0])
        results = sorted(
            (r for o in searches for r in o.results if r.url not in read),
            key=lambda r: -r.score,
        )
        if results:
            return AgentAction(
                thought=t["thought_scrape"], tool="scrape_url", argument=results[0].url
            )
        return AgentAction(thought=t["thought_done"], tool="done")

    def write_finding(self, state: AgentState, pages: list[Page]) -> Finding:
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
            sentences, tokens = self._sentences(page)
            pool.extend(zip(sentences, tokens, [page] * len(sentences), strict=True))
        query = f"{todo.topic} {state.context.query}"
        ranked = extractive.rank_sentences(
            query, [p[0] for p in pool], len(pool), tokens=[p[1] for p in pool]
        )
        ranked = ranked or _leads([p[2].url for p in pool])
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
        used = [p for p in pages if p.url in per_page]
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
            sources=[Source(url=p.url, title=p.title) for p in _unique_pages(used)],
            confidence=confidence,
            notes=[t["finding_notes"].format(pages=len(pages), findings=len(key_findings))],
        )

    # -- deep research: supervision and the report ------------------------------

    def supervise(
        self,
        context: ResearchContext,
        plan: ResearchPlan,
        finding: Finding,
        findings: list[Finding],
        todos: list[Todo],
        calls_left: int,
    ) -> SupervisorReview:
        t = texts_for(context.language)
        everything = findings if finding in findings else [*findings, finding]
        coverage: list[TopicCoverage] = []
        new_todos: list[NewTodo] = []
        for topic in plan.topics:
            mine = [f for f in everything if _on_topic(f, topic)]
            count = sum(len(f.key_findings) for f in mine)
            status = (
                "covered" if count >= COVERED_MIN_FINDINGS else "shallow" if count else "missing"
            )
            coverage.append(
                TopicCoverage(topic_id=topic.id, status=status, evidence=f"{count} key findings")
            )
            topic_todos = [d for d in todos if d.topic_id == topic.id]
            busy = any(d.status in ("pending", "in_progress") for d in topic_todos)
            if status == "covered" or busy or len(topic_todos) >= MAX_TODOS_PER_TOPIC:
                continue
            if calls_left > 0:
                used = {q for d in topic_todos for q in d.queries}
                queries = [q for q in topic.queries if q not in used]
                queries = queries or [f"{topic.title} {subject_of(context.query)}"]
                new_todos.append(
                    NewTodo(
                        topic_id=topic.id,
                        instruction=t["todo_instruction"].format(topic=topic.title),
                        queries=queries,
                    )
                )
        covered = sum(c.status == "covered" for c in coverage)
        idle = not new_todos and not any(d.status in ("pending", "in_progress") for d in todos)
        decision = "finish" if covered == len(coverage) or calls_left <= 0 or idle else "continue"
        titles = {s.url: s.title or s.url for s in finding.sources}
        draft = " ".join(
            f"{k.text} ([{titles.get(k.source_urls[0], k.source_urls[0])}]({k.source_urls[0]}))"
            for k in finding.key_findings[:4]
            if k.source_urls
        )
        return SupervisorReview(
            decision=decision,
            notes=t["supervise_notes"].format(
                covered=covered, total=len(coverage), new=len(new_todos)
            ),
            draft_section_title=finding.topic,
            draft_section=draft,
            key_insights=[k.text for k in finding.key_findings[:3]],
            coverage=coverage,
            new_todos=new_todos,
        )

    def critique(self, report: FinalReport, material: ReportMaterial) -> Critique:
        """REJECT on citations outside the material, WARN on thin or uncited sections."""
        known = {s.n for s in material.sources}
        urls = {s.url for s in material.sources}
        text = "\n".join(
            [report.executive_summary, report.conclusion, *(s.content for s in report.sections)]
        )
        rejects = [
            f"citation [{n}] is not a provided source"
            for n in sorted({int(n) for n in CITATION.findall(text)} - known)
        ]
        rejects += [f"source not in material: {s.url}" for s in report.sources if s.url not in urls]
        fixed = fixed_headings()
        warns = [
            f"section without citations: {s.heading}"
            for s in report.sections
            if s.heading not in fixed and not CITATION.search(s.content)
        ]
        if len(text.split()) < 150:
            warns.append(f"report is very short ({len(text.split())} words)")
        verdict = "REJECT" if rejects else "WARN" if warns else "PASS"
        return Critique(verdict=verdict, issues=rejects + warns)

    def write_report(self, material: ReportMaterial) -> FinalReport:
        """Sections per topic from cited key findings; summary and conclusion lead with
        sentences moved out of the sections (so none appears twice); >= 3 sections."""
        context = material.context
        t = texts_for(context.language)
        sections, gaps = _topic_sections(material)
        summary_lead = [items.pop(0) for _, items in sections[:4] if len(items) >= 2]
        ordered = sorted(sections, key=lambda s: -len(s[1]))
        closing = [ordered[0][1].pop(0)] if ordered and len(ordered[0][1]) >= 3 else []
        cited = sorted(
            {n for _, items in sections for _, ns in items for n in ns}
            | {n for _, ns in summary_lead + closing for n in ns}
        )
        confidence = (
            "high"
            if len(cited) >= 4 and len(sections) >= 3
            else "medium"
            if len(cited) >= 2
            else "low"
        )
        topics = ", ".join(h for h, _ in sections)
        summary = (t["summary_intro"] if sections else t["summary_empty"]).format(
            query=context.query, sources=len(cited), topics=len(sections)
        )
        conclusion = [cite(s, ns) for s, ns in closing]
        if topics:
            conclusion.append(t["conclusion_covered"].format(topics=topics))
        conclusion.append(
            t["conclusion_confidence"].format(
                confidence=t[f"confidence_{confidence}"], sources=len(cited)
            )
        )
        if gaps:
            conclusion.append(t["conclusion_gaps"].format(gaps="; ".join(gaps)))
        report_sections = [
            ReportSection(heading=h, content=_paragraphs(items)) for h, items in sections
        ]
        report_sections += _fixed_sections(material, t, gaps, len(report_sections))
        body = " ".join([summary, *(s.content for s in report_sections)])
        return FinalReport(
            title=t["report_title"].format(subject=_capitalized(subject_of(context.query))),
            executive_summary=" ".join([summary, *(cite(s, ns) for s, ns in summary_lead)]),
            sections=report_sections,
            conclusion=" ".join(conclusion),
            sources=[s for s in material.sources if s.n in cited],
            confidence_level=confidence,
            follow_up_questions=self.follow_up_questions(context.query, body, context.language),
            language=context.language,
        )

    def follow_up_questions(self, query: str, text: str, language: str) -> list[str]:
        t = texts_for(language)
        subject = subject_of(query)
        phrases = extractive.key_phrases(
            [CITATION.sub(" ", text)], 4, idf=self.corpus.idf, exclude=[query]
        )
        forms = ("fq_relate", "fq_pitfalls", "fq_when", "fq_examples")
        questions = [
            t[form].format(phrase=p, subject=subject)
            for form, p in zip(forms, phrases, strict=False)
        ]
        questions += [
            t[k].format(subject=subject)
            for k in ("fq_generic_examples", "fq_generic_pitfalls", "fq_generic_alternatives")
        ]
        return _unique(questions)[: max(3, min(5, len(phrases) + 1))]


# -- report assembly ---------------------------------------------------------------

Cited = tuple[str, list[int]]


def cite(sentence: str, ns: list[int]) -> str:
    """``sentence`` with ``[n]`` markers placed before its final punctuation."""
    marks = "".join(f"[{n}]" for n in ns)
    text = sentence.rstrip()
    if text and text[-1] in ".!?…":
        return f"{text[:-1]} {marks}{text[-1]}"
    return f"{text} {marks}"


def _topic_sections(material: ReportMaterial) -> tuple[list[tuple[str, list[Cited]]], list[str]]:
    """Cited, globally de-duplicated key findings grouped by topic; and topics left empty."""
    numbers = {s.url: s.n for s in material.sources}
    groups: dict[str, list[Finding]] = {}
    order: dict[str, tuple[int, int]] = {}
    for index, finding in enumerate(material.findings):
        if finding.error or not finding.topic.strip():
            continue
        groups.setdefault(finding.topic, []).append(finding)
        order.setdefault(finding.topic, (finding.topic_id or 10_000, index))
    seen: list[frozenset[str]] = []
    sections, gaps = [], []
    for topic in sorted(groups, key=order.__getitem__):
        items: list[Cited] = []
        for key in (k for f in groups[topic] for k in f.key_findings):
            ns = sorted({numbers[u] for u in key.source_urls if u in numbers})
            tokens = frozenset(extractive.content_tokens(key.text))
            if not ns or BRACKET_NUMBER.search(key.text) or not tokens:
                continue
            if any(extractive.jaccard(tokens, other) >= 0.6 for other in seen):
                continue
            seen.append(tokens)
            items.append((key.text, ns))
        if items:
            sections.append((topic, items[:8]))
        else:
            gaps.append(topic)
    return sections, gaps


def _fixed_sections(
    material: ReportMaterial, t: dict[str, str], gaps: list[str], have: int
) -> list[ReportSection]:
    """Honest padding: open questions, limitations, method, as needed to reach three."""
    out = []
    if gaps or have < 3:
        body = (
            t["open_questions_body"].format(gaps="; ".join(gaps))
            if gaps
            else t["open_questions_none"]
        )
        out.append(ReportSection(heading=t["open_questions"], content=body))
    timed_out = material.context.clarification_timed_out
    if timed_out or have + len(out) < 3:
        lines = [t["limitations_body"]]
        if len(material.findings) < 3:
            lines.append(t["limitations_thin"].format(findings=len(material.findings)))
        if timed_out:
            lines.append(t["clarification_timed_out"])
        out.append(ReportSection(heading=t["limitations"], content=" ".join(lines)))
    if have + len(out) < 3:
        out.append(ReportSection(heading=t["method"], content=t["method_body"]))
    return out


def _paragraphs(items: list[Cited]) -> str:
    cited = [cite(s, ns) for s, ns in items]
    return "\n\n".join(" ".join(cited[i : i + 3]) for i in range(0, len(cited), 3))


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def _on_topic(finding: Finding, topic: ResearchTopic) -> bool:
    if finding.error:
        return False
    return finding.topic_id == topic.id if finding.topic_id else finding.topic == topic.title


def _unique(items: list[str], skip: list[str] = ()) -> list[str]:
    """Case-insensitive de-duplication keeping first occurrences (and dropping ``skip``)."""
    seen = {" ".join(s.lower().split()) for s in skip}
    out = []
    for item in items:
        key = " ".join(item.lower().split())
        if key and key not in seen:
            seen.add(key)
            out.append(" ".join(item.split()))
    return out


def _leads(groups: list) -> list[tuple[int, float]]:
    """Fallback when no sentence shares a word with the query (e.g. another language):
    the opening sentences of each source in turn, rather than nothing."""
    firsts: dict[object, list[int]] = {}
    for i, group in enumerate(groups):
        firsts.setdefault(group, []).append(i)
    order = [
        idx
        for rank in range(3)
        for idxs in firsts.values()
        if rank < len(idxs)
        for idx in [idxs[rank]]
    ]
    return [(i, 0.0) for i in order]


def _unique_pages(pages: list[Page]) -> list[Page]:
    return list({p.url: p for p in reversed(pages)}.values())[::-1]


def _script_language(text: str) -> str:
    """ "ru" for mostly Cyrillic text, else "en": the sentence splitter's rules differ."""
    sample = [c for c in text[:2000] if c.isalpha()]
    cyrillic = sum("\u0400" <= c <= "\u04ff" for c in sample)
    return "ru" if sample and cyrillic / len(sample) > 0.5 else "en"
