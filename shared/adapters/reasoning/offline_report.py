"""The offline reasoner's report: assembled from cited sentences, checked by a critic.

``write_report`` builds one section per researched topic from the findings'
key findings that are about the question, and one from the deep search when it
is part of the evidence (which quotes each gets: ``offline_quotes``); an
executive summary and a conclusion that lead with sentences *moved* out of the
sections (so no sentence appears twice), and honest fixed sections (open
questions, method, scope) only as needed to reach three. The Limitations say
first that an extractive engine wrote it over a fixed corpus, without a model;
the confidence comes from how many independent sources each section rests on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from shared.adapters.reasoning import relevance
from shared.adapters.reasoning.offline_near import near_summary, nearest_section
from shared.adapters.reasoning.offline_quotes import (
    Cited,
    Sentences,
    names_only_subject,
    topic_sections,
)
from shared.adapters.reasoning.offline_text import Member, named
from shared.adapters.reasoning.question_shape import (
    query_type_of,
    split_comparison,
    subject_of,
    with_article,
)
from shared.adapters.reasoning.templates import (
    fixed_headings,
    report_title,
    statement_for,
    texts_for,
    texts_for_question,
    topic_heading,
)
from shared.adapters.report.citations import CITATION_RE, cited_numbers
from shared.core.report_models import Critique, FinalReport, ReportMaterial, ReportSection
from shared.core.research_models import Confidence
from shared.core.source_models import Source
from shared.tools import lexical

CONTRAST_ITEMS = 3  # claims per side in the monitor policy's contrast
FollowUps = Callable[[str, str, str], list[str]]


def cite(sentence: str, ns: list[int]) -> str:
    """``sentence`` with ``[n]`` markers placed before its final punctuation. A quote that
    ends on a closing parenthesis or quotation mark without a period inside ("… (defaults
    to functools.WRAPPER_ASSIGNMENTS)", "… "tuple()" or "tuple(iterable)"") gets one after
    its markers, so the quote after it does not read as the same sentence."""
    marks = "".join(f"[{n}]" for n in ns)
    text = sentence.rstrip()
    if text and text[-1] in ".!?…":
        return f"{text[:-1]} {marks}{text[-1]}"
    if text[-1:] in (")", '"', "”", "»") and text[-2:-1] not in (".", "!", "?", "…"):
        return f"{text} {marks}."
    return f"{text} {marks}"


def write_report(
    material: ReportMaterial,
    engine_note: str,
    follow_up_questions: FollowUps,
    idf: Mapping[str, float],
    sentences: Sentences = lambda _: None,
    meant: frozenset[str] = frozenset(),
    member: Member = lambda _url, _sentence: None,
) -> FinalReport:
    """See module docstring. ``engine_note`` says how the report was made (it opens the
    Limitations); ``follow_up_questions(query, text, language)`` is the reasoner's fallback;
    ``idf`` weighs the question's words when deciding what a quote is about; ``sentences``
    gives a corpus document's sentences, to judge a whole document by; ``meant``: the URLs
    of the documents about the question by meaning (``offline_meaning``); ``member(url,
    sentence)``: what a quote from a page documenting several things describes."""
    context = material.context
    t = texts_for(context.language)
    sections, gaps = topic_sections(material, idf, sentences, meant)
    answered = bool(sections)
    # a question in another language of which no word carries over, and only the corpus's
    # documents read: no page comes near it
    blind = relevance.question_gate(context.query, idf, context.language).carries_nothing()
    blind = blind and all(sentences(s.url) is not None for s in material.sources)
    near = None if answered or blind or not material.sources else nearest_section(material, idf)
    if near:  # nothing about the question: the nearest page's passages, flagged
        sections = [near]
    urls = {s.n: s.url for s in material.sources}
    sections = [
        (h, [(named(s, [urls.get(n, "") for n in ns], member), ns) for s, ns in i])
        for h, i in sections
    ]
    subject = subject_of(context.query)
    # before sentences move to the summary and conclusion: what each section rests on
    support = {heading: _sources_of(items) for heading, items in sections}
    summary_lead = _summary_lead(sections)
    ordered = sorted(sections, key=lambda s: -len(s[1]))
    closing = [ordered[0][1].pop(0)] if ordered and len(ordered[0][1]) >= 3 else []
    cited = sorted(
        {n for _, items in sections for _, ns in items for n in ns}
        | {n for _, ns in summary_lead + closing for n in ns}
    )
    read = [s.title for s in material.sources]
    if answered:  # the sections are about the subject, and the pages read: not open
        gaps = [g for g in gaps if not names_only_subject(g, context, read)]
    else:  # the question itself is open, not the planner's guesses from pages found off topic
        gaps = [g for g in gaps if names_only_subject(g, context)] or gaps
    confidence = "low" if near else _confidence(support, gaps + material.gaps)
    # nothing cited: say whether nothing was read, or what was read had nothing to quote
    empty = "summary_uncited" if material.sources else "summary_empty"
    empty = "answer_untranslatable" if blind and material.sources else empty
    summary = t["summary_intro" if sections else empty].format(
        query=context.query, sources=len(cited), topics=len(sections), read=len(material.sources)
    )
    summary = near_summary(material, near[0]) if near else summary
    conclusion = [cite(s, ns) for s, ns in closing]
    conclusion.append(_strongest(support, t))
    # the confidence is the report's label alone: the pipeline may lower it afterwards (a
    # thin report, a critic's last rejection), and a sentence here would then contradict it
    conclusion.append(t["conclusion_cited"].format(sources=len(cited)))
    if gaps:
        conclusion.append(t["conclusion_gaps"].format(gaps="; ".join(gaps)))
    report_sections = [ReportSection(heading=h, content=_paragraphs(i)) for h, i in sections]
    # what follow-up questions are drawn from: the quotes, not this engine's own words
    # ("What are practical examples of maximal marginal relevance?")
    quoted = " ".join([*(s for s, _ in summary_lead), *(s.content for s in report_sections)])
    if context.source_policy == "monitor":
        report_sections.append(_contrast(sections, material.sources, t))
    report_sections += _fixed_sections(material, t, gaps, len(report_sections), read)
    sources = [s for s in material.sources if s.n in cited]
    return FinalReport(
        title=report_title(context.query, context.language, subject),
        executive_summary=" ".join([summary, *(cite(s, ns) for s, ns in summary_lead)]),
        sections=report_sections,
        conclusion=" ".join(conclusion),
        sources=sources,
        confidence_level=confidence,
        follow_up_questions=_follow_ups(material, sources, gaps)
        or follow_up_questions(context.query, quoted, context.language),
        language=context.language,
        limitations=_limitations(material, t, engine_note),
    )


def _summary_lead(sections: list[tuple[str, list[Cited]]]) -> list[Cited]:
    """The first sentence of each of the first four sections (every quote there is about
    the question), moved out of its section; sections with one sentence keep it."""
    return [items.pop(0) for _, items in sections[:4] if len(items) >= 2]


def _sources_of(items: list[Cited]) -> int:
    return len({n for _, ns in items for n in ns})


def _confidence(support: dict[str, int], gaps: list[str]) -> Confidence:
    """From the evidence, never from counts alone: ``high`` only when every planned topic
    was researched and every section rests on at least three independent sources;
    ``medium`` when most topics were researched and at least half of the sections rest
    on two or more; otherwise ``low``."""
    if not support:
        return "low"
    counts = list(support.values())
    coverage = len(counts) / (len(counts) + len(gaps))
    corroborated = sum(1 for c in counts if c >= 2)
    if not gaps and min(counts) >= 3:
        return "high"
    if coverage >= 0.5 and corroborated * 2 >= len(counts):
        return "medium"
    return "low"


def _strongest(support: dict[str, int], t: dict[str, str]) -> str:
    """The (at most two) sections that rest on the most independent sources, if any rests
    on more than one."""
    ranked = sorted(((c, h) for h, c in support.items() if c >= 2), key=lambda item: -item[0])[:2]
    if not ranked:
        return t["conclusion_thin"]
    named = ", ".join(f"{h} ({t['sources_count'].format(n=c)})" for c, h in ranked)
    return t["conclusion_covered"].format(topics=named)


def _follow_ups(material: ReportMaterial, sources: list[Source], gaps: list[str]) -> list[str]:
    """Real questions: what the unresearched topics hold, and how the cited documents that
    are not about the subject itself relate to it."""
    language = material.context.language
    t = texts_for(language)
    query = material.context.query
    questions = [t["fq_gap"].format(phrase=topic_heading(gap, query, language)) for gap in gaps[:2]]
    titles = [s.title for s in sources]
    return source_questions(questions, titles, material.context.query, language)


def source_questions(asked: list[str], titles: list[str], query: str, language: str) -> list[str]:
    """``asked``, then how each cited document that is not about the subject itself relates
    to it, then its pitfalls: questions a reader can take to the sources (none when fewer
    than three). A module's page goes by the module's name ("atexit"), not its synopsis."""
    t = texts_for_question(query, language)
    subject = follow_up_subject(query, language)
    framed = subject is None  # the question is quoted as asked
    subject = subject or _quoted(query, t)
    subject_words = set(lexical.content_tokens(subject))
    questions = list(asked)
    for title in titles:
        words = set(lexical.content_tokens(title))
        if title and words and not words <= subject_words:
            name = relevance.module_title(title) or title
            questions.append(t["fq_source"].format(phrase=name, subject=subject))
    pitfalls = t["fq_generic_pitfalls"].format(subject=subject)
    questions.append(asked_again(query, t) if framed else pitfalls)
    return _enough(questions)


def _enough(questions: list[str]) -> list[str]:
    """At most five questions, and none when there are fewer than three."""
    return lexical.unique_texts(questions)[:5] if len(questions) >= 3 else []


def asked_again(query: str, texts: dict[str, str]) -> str:
    """ "What do other sources say about “Where does Python look for modules”?"."""
    return texts["fq_gap"].format(phrase=query.strip().rstrip("?？"))


def _quoted(query: str, texts: dict[str, str]) -> str:
    """The question in the quotation marks of its language, as ``fq_gap`` sets them."""
    head, _, tail = texts["fq_gap"].partition("{phrase}")
    return f"{head.rstrip()[-1:]}{query.strip().rstrip('?？')}{tail.lstrip()[:1]}"


# an English question word the subject opens with: its frame was not taken off ("Where does
# Python look for modules"), and no template can set it where a noun goes
_FRAME_LEFT_RE = re.compile(
    r"^(?:what|where|which|who|whose|how|when|why|is|are|do|does|did|can|could|should|would|"
    r"will)\b",
    re.IGNORECASE,
)


def follow_up_subject(query: str, language: str) -> str | None:
    """What follow-up questions are about: the question's subject with its article ("What is
    a generator?": "a generator"), a comparison's two sides ("What is the difference between
    a list and a tuple?": "a list and a tuple", not "What are common mistakes with difference
    between a list and a tuple?"), or the statement a question asks about ("Why is my program
    slow?": "my program is slow"). None when the question keeps its frame ("Where
    does Python look for modules?"): follow-up questions then quote it."""
    if statement := statement_for(query, language):
        return statement
    subject = subject_of(query)
    if _FRAME_LEFT_RE.match(subject):
        return None
    if query_type_of(query) != "comparison":
        return with_article(query, subject)
    a, b = split_comparison(subject, [""])
    return texts_for(language)["fq_sides"].format(a=a, b=b) if b else subject


def _fixed_sections(
    material: ReportMaterial, t: dict[str, str], gaps: list[str], have: int, read: list[str]
) -> list[ReportSection]:
    """Honest padding: open questions, method, scope, as needed to reach three sections."""
    out = []
    # topics without evidence, then phases and agents that failed (not the subject itself,
    # nor a page read: ``read`` are their titles)
    context = material.context
    gaps += [g for g in material.gaps if not (have and names_only_subject(g, context, read))]
    if gaps or have < 3:
        if gaps:
            body = t["open_questions_body"].format(gaps="; ".join(gaps))
        else:
            body = t["open_questions_none"] if have else t["finding_none"]
        out.append(ReportSection(heading=t["open_questions"], content=body))
    if have + len(out) < 3:
        out.append(ReportSection(heading=t["method"], content=t["method_body"]))
    if have + len(out) < 3:
        out.append(ReportSection(heading=t["scope"], content=t["scope_body"]))
    return out


def _contrast(
    sections: list[tuple[str, list[Cited]]], sources: list[Source], t: dict[str, str]
) -> ReportSection:
    """The monitor policy's section: what official (tier 1) and community (tier 5) sources
    say, side by side; an extractive writer lists their claims, it cannot weigh them."""
    tier = {s.n: s.tier for s in sources}
    items = [item for _, section in sections for item in section]
    sides = []
    for wanted, label in ((1, "contrast_official"), (5, "contrast_community")):
        said = [cite(s, ns) for s, ns in items if any(tier.get(n) == wanted for n in ns)]
        sides.append(f"{t[label]} " + (" ".join(said[:CONTRAST_ITEMS]) or t["contrast_none"]))
    return ReportSection(heading=t["contrast_heading"], content="\n\n".join(sides))


def _limitations(material: ReportMaterial, t: dict[str, str], engine_note: str) -> list[str]:
    """How the report was made, then what it had to do without."""
    lines = [engine_note]
    if len(material.findings) < 3:
        lines.append(t["limitations_thin"].format(findings=len(material.findings)))
    if material.context.clarification_timed_out:
        lines.append(t["clarification_timed_out"])
    return lines


def critique(report: FinalReport, material: ReportMaterial) -> Critique:
    """REJECT on citations outside the material, WARN on thin or uncited sections."""
    known = {s.n for s in material.sources}
    urls = {s.url for s in material.sources}
    text = "\n".join(
        [report.executive_summary, report.conclusion, *(s.content for s in report.sections)]
    )
    rejects = [
        f"citation [{n}] is not a provided source" for n in sorted(cited_numbers(text) - known)
    ]
    rejects += [f"source not in material: {s.url}" for s in report.sources if s.url not in urls]
    fixed = fixed_headings()
    warns = [
        f"section without citations: {s.heading}"
        for s in report.sections
        if s.heading not in fixed and not CITATION_RE.search(s.content)
    ]
    contrast = texts_for(material.context.language)["contrast_heading"]
    if material.context.source_policy == "monitor" and all(
        s.heading != contrast for s in report.sections
    ):
        warns.append("monitor source policy: no section contrasts official and community sources")
    if len(text.split()) < 150:
        warns.append(f"report is very short ({len(text.split())} words)")
    verdict = "REJECT" if rejects else "WARN" if warns else "PASS"
    return Critique(verdict=verdict, issues=rejects + warns)


def _paragraphs(items: list[Cited]) -> str:
    cited = [cite(s, ns) for s, ns in items]
    return "\n\n".join(" ".join(cited[i : i + 3]) for i in range(0, len(cited), 3))
