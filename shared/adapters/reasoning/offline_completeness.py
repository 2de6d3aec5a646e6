"""The offline reasoner's completeness check: per topic, and of content, by extraction.

No model judges here, so a topic counts as covered when a sentence the session read
passes the relevance gate (it is about the question, ``relevance``) and carries the
topic's cue: "X is a ..." for a definition, "for example" or quoted code for
examples, "avoid" for pitfalls. Two such sentences from two pages score 1.0, one
scores ``COVERED_SCORE``, a sentence about the question without the cue scores
0.3 (shallow), and nothing scores 0. Cues are English; in another language a topic
is judged by the gate alone, so it is covered by any sentence about the question.

Topics are the offline plan's decomposition of the question's shape (what is, how,
compare...), the same the deep research uses, four of them. The content check asks
for a definition ("what is"), steps ("how to ...", "how do I ...") and code (a
technical question), and flags pages that gave nothing but menu fragments.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Protocol

from shared.adapters.reasoning import relevance
from shared.adapters.reasoning.question_shape import query_type_of, split_comparison, subject_of
from shared.adapters.reasoning.templates import (
    DECOMPOSITIONS,
    texts_for,
    texts_for_question,
    topic_phrase,
    topic_title,
)
from shared.core.completeness_models import (
    COVERED_SCORE,
    CompletenessReview,
    ContentCheck,
    Need,
    TopicCompleteness,
)
from shared.core.source_models import PageSummary
from shared.tools.sentence_split import split_sentences

TOPICS = 4  # the spec's patterns name four topics per question shape
SHALLOW_SCORE = 0.3
PROSE_WORDS = 8  # a sentence this long is prose; menus and tables of contents are shorter

# code as written, not named in prose: a call with its parentheses, a prompt, a statement
_CODE = (
    r"`[^`]+`|\b\w+(?:\.\w+)*\([^()]*\)|>>>|^\s*\$\s|"
    r"^\s*(?:async\s+def|def|class|import|from\s+\S+\s+import)\s+\w"
)
_CUES: Mapping[str, re.Pattern[str]] = {
    kind: re.compile(pattern, re.I | re.M)
    for kind, pattern in {
        "definition": r"\b(?:is|are)\s+(?:a|an|the|one)\b|\brefers?\s+to\b|\bmeans\b|"
        r"\bdefined\s+as\b|\bis\s+used\s+(?:to|for)\b",
        # what the subject's terms are is a key concept of it: a definition counts too ("A
        # context manager is an object that defines the runtime context …"), else a search
        # answer quoting it said "Not covered: Key concepts: context managers"
        "key_concepts": r"\b(?:key|main|core|central|important|essential)\b|\bconcepts?\b|"
        r"\bfeatures?\b|\bsupports?\b|\bprovides?\b|\bconsists?\s+of\b|\b(?:is|are)\s+"
        r"(?:a|an|the|one)\b|\bdefined\s+as\b",
        "how_it_works": r"\bwhen\b|\bthen\b|\bonce\b|\bworks?\b|\binternally\b|\bcalls?\b|"
        r"\bruns?\b|\breturns?\b|\bschedules?\b|\braises?\b",
        "examples": r"\bfor\s+(?:example|instance)\b|\be\.g\.|\bsuch\s+as\b|\bexamples?\b|" + _CODE,
        "pitfalls": r"\bavoid\b|\bmistakes?\b|\bpitfalls?\b|\bbeware\b|\bcareful\b|\bnever\b|"
        r"\bdon['’]t\b|\bdo\s+not\b|\berrors?\b|\bwarning\b|\bcaveats?\b|\bunless\b|\bmust\b",
        "when_to_use": r"\bwhen\s+(?:to|you)\b|\bprefer\b|\bbest\s+for\b|\bsuited\b|\buseful\b|"
        r"\bshould\b|\buse\s+\w+\s+(?:to|for|when|if)\b",
        "comparison": r"\bunlike\b|\bwhereas\b|\bdiffer|\binstead\s+of\b|\bcompared\b|"
        r"\bwhile\b|\bthan\b|\bboth\b",
    }.items()
}
_NEEDS: Mapping[Need, re.Pattern[str]] = {
    "definition": _CUES["definition"],
    # an enumeration, a sequence word or an imperative opening the sentence (steps read so)
    "steps": re.compile(
        r"^\s*(?:\d+[.)]\s|step\s+\d|(?:first(?:ly)?|then|next|finally|after\s+that)\b|"
        r"(?:install|run|create|open|add|call|import|use|set|write|configure|pass|wrap|"
        r"click|type|enter|download|start)\s)",
        re.I | re.M,
    ),
    "code": re.compile(_CODE, re.M),
}
# "how to X", "how do I X": a task, which needs steps ("how do coroutines work" does not)
_TASK = re.compile(
    r"^\s*how\s+(?:to|do\s+i|can\s+i|should\s+i|do\s+you|would\s+i)\b|\bsteps?\s+to\b|"
    r"^\s*как\s+(?:сделать|установить|настроить|написать|создать)|"
    r"^\s*wie\s+(?:kann|soll|muss)\s+(?:ich|man)|^[\s¿]*c[óo]mo\s+(?:puedo|se\s+hace)|"
    r"^\s*comment\s+(?:faire|installer|puis-je|peut-on)|如何|怎么",
    re.I,
)
_TECHNICAL = re.compile(
    r"\b(?:python|javascript|typescript|java|rust|golang|c\+\+|sql|api|code|function|class|"
    r"method|library|module|package|script|command|cli|install|configure|docker|kubernetes|"
    r"terraform|git|asyncio|async|regex|json|http|syntax|compile|decorator|generator|"
    r"coroutine|exception|programm\w*)\b|\w\(\)|\w_\w",
    re.I,
)
_NEED_QUERY = {"definition": "q_definition", "steps": "q_how_it_works", "code": "q_examples"}
_NEED_QUERY_EN = {"definition": "definition", "steps": "step by step", "code": "code example"}


def topics_for(query: str, language: str) -> list[tuple[str, str, str]]:
    """(kind, title, gap query) of the question's topics, from its shape."""
    t = texts_for_question(query, language)
    subject = subject_of(query)
    a, b = split_comparison(subject, [])
    out = []
    phrase = topic_phrase(query, language, subject, a, b)
    for kind in DECOMPOSITIONS[query_type_of(query)][:TOPICS]:
        title = topic_title(query, language, kind, subject=subject, phrase=phrase, a=a, b=b)
        out.append((kind, title, f"{subject} {t[f'q_{kind}']}"))
    return out


def evaluate(
    query: str,
    topics: Sequence[str],
    summaries: Sequence[PageSummary],
    language: str,
    idf: Mapping[str, float],
) -> CompletenessReview:
    """Each topic judged on the admitted sentences; the content check on the same ones."""
    pool = [
        (sentence, n)
        for n, summary in enumerate(summaries, start=1)
        for sentence in summary.relevant_sentences or split_sentences(summary.summary)
    ]
    gate = relevance.question_gate(query, idf, language).calibrated(s for s, _ in pool)
    admitted = [(s, n) for s, n in pool if gate.admits(s)]
    english = language.split("-")[0].lower() == "en"
    derived = topics_for(query, language)
    if topics and [title for _, title, _ in derived] != list(topics):
        derived = [("", title, title) for title in topics]  # another reasoner's topics
    t = texts_for(language)
    judged = [
        _topic(kind if english else "", title, gap_query, admitted, t.get(f"q_{kind}", ""))
        for kind, title, gap_query in derived
    ]
    content = _content(query, admitted, pool, english)
    words = _NEED_QUERY_EN if english else {k: t[v] for k, v in _NEED_QUERY.items()}
    subject = subject_of(query)
    return CompletenessReview(
        topics=judged,
        content=content,
        content_queries=[f"{subject} {words[need]}" for need in content.missing],
    )


def _topic(
    kind: str, title: str, gap_query: str, admitted: list[tuple[str, int]], aspect: str
) -> TopicCompleteness:
    cue = _CUES.get(kind)
    hits = [(s, n) for s, n in admitted if cue is None or cue.search(s)]
    pages = {n for _, n in hits}
    if hits:
        score = 1.0 if len(pages) >= 2 else COVERED_SCORE
        return TopicCompleteness(topic=title, covered=True, score=score, evidence=hits[0][0])
    if admitted:
        gap = f"the pages read are about the question but give no {aspect or 'detail'} on it"
        score = SHALLOW_SCORE
    else:
        gap = f"nothing read covers {title}"
        score = 0.0
    return TopicCompleteness(topic=title, score=score, gaps=[gap], gap_query=gap_query)


def _content(
    query: str, admitted: list[tuple[str, int]], pool: list[tuple[str, int]], english: bool
) -> ContentCheck:
    needs: list[Need] = []
    if query_type_of(query) == "definition":
        needs.append("definition")
    if _TASK.search(query):
        needs.append("steps")
    if _TECHNICAL.search(query):
        needs.append("code")
    said = [s for s, _ in admitted]
    # without English cues nothing can be checked but that something relevant was read
    missing = [n for n in needs if not any(_NEEDS[n].search(s) for s in said)] if english else []
    navigation_only = bool(pool) and not any(len(s.split()) >= PROSE_WORDS for s, _ in pool)
    return ContentCheck(needs=needs, missing=missing, navigation_only=navigation_only)


class _HasIdf(Protocol):
    idf: Mapping[str, float]


class OfflineCompleteness:
    """Mixed into ``OfflineReasoner``: the Reasoner port's ``evaluate_completeness``."""

    corpus: _HasIdf

    def evaluate_completeness(
        self, query: str, topics: list[str], summaries: list[PageSummary], language: str
    ) -> CompletenessReview:
        return evaluate(query, topics, summaries, language, self.corpus.idf)
