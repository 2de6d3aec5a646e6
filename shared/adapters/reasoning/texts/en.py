"""English wording of the offline reasoner: the reference every other language matches.

Every other language module has exactly these keys with the same ``{placeholders}``
(a unit test checks it), so a key added here must be added to each of them.
"""

from __future__ import annotations

from typing import Final

from shared.adapters.reasoning.texts import Profile

TEXTS: Final[dict[str, str]] = {
    # report headings
    "open_questions": "Open questions",
    "limitations": "Limitations",
    "method": "How the quotes were chosen",
    "scope": "Scope",
    "contrast_heading": "Official and community sources compared",
    "contrast_official": "Official sources (tier 1) say:",
    "contrast_community": "Community sources (tier 5) say:",
    "contrast_none": "no source of this tier was read, so there is nothing to set against "
    "the other side.",
    "scope_body": "The report covers only what the sources read say about the question; "
    "what they do not mention is listed under Open questions.",
    "deep_search_heading": "Further evidence from the deep search",
    "report_title": "{subject}: research report",
    # report prose
    "summary_intro": "This report answers “{query}” (cited sources: {sources}; topics: {topics}).",
    "summary_uncited": "Sources read for “{query}”: {read}. None had a passage about the question "
    "itself that this extractive engine could quote, so this report cites none.",
    "summary_near": "The sources only come near the question: no source read for “{query}” ({read} "
    "in all) is about it, so the passages below are from the nearest one ({title}) and may answer "
    "it only in part.",
    "summary_empty": "No source could be read for “{query}”, so this report has no findings.",
    "conclusion_covered": "The evidence is strongest on: {topics}.",
    "conclusion_thin": "No section rests on more than one source.",
    "sources_count": "{n} sources",
    "conclusion_cited": "Cited sources: {sources}.",
    "conclusion_gaps": "Aspects still open: {gaps}.",
    "open_questions_body": "These aspects were not covered by the sources read: {gaps}.",
    "open_questions_none": "The sources read covered every planned topic; the follow-up "
    "questions below point to adjacent aspects.",
    "engine_note": "Written offline by the extractive engine over the local corpus "
    "“{corpus}” ({documents} documents), without a language model: every sentence is "
    "quoted from a cited source, and no claim was checked beyond those sources.",
    "limitations_thin": "Coverage is thin: research findings available: {findings}.",
    "clarification_timed_out": "The clarifying questions went unanswered, so the research "
    "used its own default scope.",
    "method_body": "Sources were ranked with BM25, sentences were selected by Maximal "
    "Marginal Relevance, and near-duplicates were removed.",
    # chat / search
    "answer_intro": "From the local reference ({titles}):",
    "answer_none": "The local reference has nothing on this question; offline chat "
    "answers come only from the local reference.",
    "answer_reasoning": "Offline extractive answer from {docs} local reference documents.",
    "answer_carried": "The local reference is in English, so it was searched for the "
    "words of the question that carry over ({terms}); the quotes below are in English.",
    "answer_untranslatable": "The local reference is in English and the question has no "
    "English term to search it for; ask again naming the construct in English (for "
    "example “with” or “yield”).",
    "synth_none": "No source could be read for this question.",
    "synth_off_topic": "The sources read say nothing that fits this question closely "
    "enough to quote.",
    "synth_carried": "The sources are in English, so they were matched on the words of "
    "the question that carry over ({terms}); the quotes below are in English.",
    "synth_english": "The sources are in English; the quotes below are in English.",
    "synth_reasoning": "Extractive synthesis: {sentences} sentences from {cited} of "
    "{total} sources, ranked by BM25 relevance, near-duplicates removed.",
    # clarify
    "clarify_scope": "Which aspect of “{subject}” matters most to you (definition, "
    "how it works, examples, pitfalls)?",
    "clarify_period": "Is there a time period or version of “{subject}” you care about?",
    "clarify_depth": "How deep should the answer go: a short overview or a detailed "
    "technical report?",
    "clarify_reason_short": "The question is short or ambiguous.",
    "clarify_reason_clear": "The question is specific enough to start.",
    "clarify_reason_answered": "Clarifications were already given.",
    # plan
    "topic_definition": "Definition of {subject}",
    "topic_key_concepts": "Key concepts: {phrase}",
    "topic_how_it_works": "How it works: {subject}",
    "topic_examples": "Examples: {phrase}",
    "topic_pitfalls": "Pitfalls and edge cases: {phrase}",
    "topic_comparison": "{a} compared with {b}",
    "topic_when_to_use": "When to use {subject}",
    "topic_phrase": "{subject}",  # the subject where a page's title would go
    "q_definition": "definition",
    "q_key_concepts": "key concepts",
    "q_how_it_works": "how it works",
    "q_examples": "examples",
    "q_pitfalls": "pitfalls",
    "q_comparison": "difference",
    "q_when_to_use": "when to use",
    "q_overview": "overview",
    "q_explained": "explained",
    "plan_summary": "{count} topics for “{query}”.",
    "plan_rationale": "Covers the {aspect} aspect of the question.",
    # agents
    "thought_broad": "Start broad: search the topic together with the question.",
    "thought_narrow": "Narrow down with the topic's own query.",
    "thought_reformulate": "The last search found nothing new; reformulate.",
    "thought_scrape": "Read the best unread result.",
    "thought_done": "Enough material gathered (or step budget reached).",
    "finding_none": "Nothing relevant was found for this topic.",
    "finding_notes": "{pages} pages read, {findings} key findings",
    # supervisor
    "todo_instruction": "Dig deeper into “{topic}”: find more specific evidence.",
    "supervise_notes": "Coverage: {covered} of {total} topics covered; {new} new todos.",
    # follow-up questions
    "fq_relate": "How does {phrase} relate to {subject}?",
    "fq_pitfalls": "What are common pitfalls with {phrase}?",
    "fq_when": "When should {phrase} be used?",
    "fq_examples": "What are practical examples of {phrase}?",
    "fq_generic_examples": "What are practical examples of {subject}?",
    "fq_generic_pitfalls": "What are common mistakes with {subject}?",
    "fq_generic_alternatives": "What alternatives to {subject} exist?",
    "fq_source": "What does “{phrase}” say about {subject}?",
    "fq_gap": "What do other sources say about “{phrase}”?",
    "fq_sides": "{a} and {b}",  # what a comparison's follow-up questions are about
}

# The wording that replaces TEXTS' for a question worded as a task (TASK_QUESTION below):
# its subject is a verb phrase ("check if a file exists"), which the templates above would
# set where a noun goes ("What are common mistakes with check if a file exists?"). A
# language with TASK_TEXTS also defines TASK_QUESTION; the others need neither.
TASK_TEXTS: Final[dict[str, str]] = {
    "topic_phrase": "how to {subject}",
    "topic_definition": "What it means to {subject}",
    "topic_how_it_works": "How to {subject}",
    "topic_when_to_use": "When to {subject}",
    "fq_relate": "How does {phrase} help to {subject}?",
    "fq_generic_examples": "What is a worked example of how to {subject}?",
    "fq_generic_pitfalls": "What can go wrong when you {subject}?",
    "fq_generic_alternatives": "What other ways are there to {subject}?",
    "fq_source": "What does “{phrase}” say about how to {subject}?",
}

# The wording that replaces TEXTS' for a why-, yes/no or what-happens question, read as the
# statement it asks about (``question_statement``: "my program is slow"), which the
# templates above would set where a noun goes ("What are common mistakes with my program
# slow?", "Definition of a tuple is faster than a list"). Its topic titles are headings as
# they stand: the statement is never shown alone, as if the report claimed it.
STATEMENT_TEXTS: Final[dict[str, dict[str, str]]] = {
    "why": {
        "topic_phrase": "why {subject}",
        "report_title": "Why {subject}: research report",
        "topic_definition": "Why {subject}",
        "topic_how_it_works": "How it comes about that {subject}",
        "topic_when_to_use": "When {subject}",
        "fq_relate": "How does {phrase} explain why {subject}?",
        "fq_generic_examples": "What is a small example where {subject}?",
        "fq_generic_pitfalls": "What can I do when {subject}?",
        "fq_generic_alternatives": "What else can explain why {subject}?",
        "fq_source": "What does “{phrase}” say about why {subject}?",
    },
    "happens": {
        "topic_phrase": "what happens when {subject}",
        "report_title": "What happens when {subject}: research report",
        "topic_definition": "What happens when {subject}",
        "topic_how_it_works": "How it is handled when {subject}",
        "topic_when_to_use": "When {subject}",
        "fq_relate": "How does {phrase} bear on what happens when {subject}?",
        "fq_generic_examples": "What is a small example where {subject}?",
        "fq_generic_pitfalls": "What can go wrong when {subject}?",
        "fq_generic_alternatives": "How can I handle the case where {subject}?",
        "fq_source": "What does “{phrase}” say about what happens when {subject}?",
    },
    "whether": {
        "topic_phrase": "whether {subject}",
        "report_title": "Whether {subject}: research report",
        "topic_definition": "Whether {subject}",
        "topic_how_it_works": "How to tell whether {subject}",
        "topic_when_to_use": "When it matters whether {subject}",
        "fq_relate": "How does {phrase} bear on whether {subject}?",
        "fq_generic_examples": "What is a small example that shows whether {subject}?",
        "fq_generic_pitfalls": "When does it matter whether {subject}?",
        "fq_generic_alternatives": "How can I check for myself whether {subject}?",
        "fq_source": "What does “{phrase}” say about whether {subject}?",
    },
}

# The wording that replaces TEXTS' for a comparison whose two sides the question names:
# its subject is "difference between a list and a tuple", and "When to use difference
# between …" or "Definition of difference between …" is no English.
COMPARISON_TEXTS: Final[dict[str, str]] = {
    "topic_definition": "What {a} and {b} are",
    "topic_when_to_use": "When to use {a} or {b}",
    "topic_phrase": "{a} and {b}",  # "Key concepts: a list and a tuple"
}

# Agent profiles: (name, specialization, working style, source preferences).
PROFILES: Final[list[Profile]] = [
    (
        "Technical expert",
        "precise definitions and mechanisms",
        "reads reference documentation closely",
        ["reference documentation", "specifications"],
    ),
    (
        "Practical guide",
        "usage patterns and examples",
        "looks for worked examples",
        ["tutorials", "reference documentation"],
    ),
    (
        "Critical analyst",
        "limitations, pitfalls and edge cases",
        "checks claims against several sources",
        ["specifications", "issue trackers"],
    ),
    (
        "Historian",
        "origins and evolution",
        "traces changes across versions",
        ["release notes", "proposals"],
    ),
    (
        "Comparative analyst",
        "alternatives and trade-offs",
        "contrasts options side by side",
        ["reference documentation", "reviews"],
    ),
    (
        "Synthesizer",
        "connections between topics",
        "summarises across sources",
        ["overviews", "reference documentation"],
    ),
]

# The citation gate's everyday words (``relevance``, assembled by ``gate_words``), kept
# with the rest of the wording because each language says them its own way.
# Words that frame a question rather than name its subject.
GATE_FRAME: Final[str] = """decide decides determine determines differ differs difference
    differences including include includes like evaluated happen happens mean means matter
    matters handled behave behaves relate relates related compare compared best way ways
    possible together exactly actually really internally affect affects affected"""
# Everyday words that say how much or how well, not what: "cache the results of an expensive
# function" is about caching (the corpus hardly says "expensive": it weighed the most).
GATE_QUALIFIERS: Final[str] = """expensive costly several various efficiently efficient
    quickly easily simply properly correctly full entire whole"""
# Phrases that say when or how, not what: "iterate over two lists at the same time" is not
# about the time module, "check the type at run time" not about running.
GATE_IDIOMS: Final[tuple[str, ...]] = (
    r"at\s+the\s+same\s+time",
    r"at\s+a\s+time",
    r"at\s+once",
    r"at\s+run[\s-]?time",
    r"one\s+by\s+one",
    r"in\s+one\s+go",
    r"how\s+often",
)
# "What is the best way to ...", "Is there a way to ...": a how-to asked as a what or a yes/no.
WAY_TO: Final[str] = (
    r"what(?:'s|’s|\s+is|\s+are)\s+(?:the\s+|an?\s+)?(?:best|easiest|simplest|fastest|"
    r"quickest|cleanest|right|correct|proper|recommended|preferred|idiomatic|pythonic|standard|"
    r"most\s+\w+)\s+ways?\s+to|is\s+there\s+(?:an?\s+(?:\w+\s+)?|any\s+)way\s+to"
)
# How a question asking how to do something begins ("How do I ...", "How to ...").
GATE_HOW_TO: Final[str] = (
    r"^\s*how\s+(?:do|can|could|should|would|might)\s+(?:i|we|you|one)\b|^\s*how\s+to\b|"
    rf"^\s*(?:{WAY_TO})\b"
)
# A question worded as a task (TASK_TEXTS): a how-to, when to do something ("When should I
# use a generator instead of a list?" is about "use a generator instead of a list"), or
# "Can you show me how to …".
TASK_QUESTION: Final[str] = (
    rf"{GATE_HOW_TO}|^\s*when\s+(?:should|would|do|can)\s+(?:i|we|you|one)\b|^\s*when\s+to\b|"
    r"^\s*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:show|tell|teach)\s+me\s+how\s+to\b"
)
