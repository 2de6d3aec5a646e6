"""Deep research: one researcher's ReAct step, and the finding it writes at the end."""

from __future__ import annotations

from shared.tools.prompts.framing import Messages, messages, preamble

AGENT_SYSTEM = """You are {name}, a researcher on a team. Specialization: {specialization}.
Working style: {working_style}. Preferred sources: {source_preferences}.
{preamble}"""

AGENT_STEP = """Your current task (topic {topic_id}: {topic}):
{instruction}
Suggested queries: {queries}

This is step {step} of at most {max_steps} (your tool budget for this task: {left} more
tool calls after this one). Choose exactly one tool:
- web_search: argument = a search query, in whatever language finds the best sources;
- scrape_url: argument = one URL taken from the search results below, to read the page;
- done: argument = empty;
- ask_supervisor: argument = your question to the supervisor; it ends this task with
  what you have, and the supervisor answers at its next review (advice, or a new task).
  Ask only when stuck: your searches keep finding nothing relevant and you see no other
  angle to try.

How to work:
- start broad, then narrow down to specifics (numbers, dates, named sources);
- read (scrape_url) the most promising results before searching again; never scrape a
  page you already read; judge each page by the passages shown for it below;
- if the last results were irrelevant, reformulate the query (other words, other
  angle) rather than repeating it;
- every 3 steps (steps 3, 6, 9 ...) start your thought with "Reflection:" and say what
  you have, what is missing and whether to stop.
Stop (done) when any of these holds:
- the passages you read answer the task, with at least {enough} independent sources
  agreeing on the key facts;
- your last two searches returned results you had already been offered;
- this is your last step.
Return thought (one to three sentences, building on your earlier thoughts), tool and
argument.

What the team knows so far (key insights):
{insights}

Your own recent notes:
{notes}

Your earlier thoughts on this task:
{thoughts}

Research request:
{brief}

Pages already read:
{fetched}

What your tools returned so far (read pages show their passages on your task):
{observations}"""

WRITE_FINDING = """Your task (topic {topic_id}: {topic}):
{instruction}

Write your finding from the pages below, and only from them, in this order:
- key_findings: the specific findings the task needs (facts, figures, dates, named
  claims), as many as the pages support; each has text and source_urls, the url
  attribute of the page(s) that state it, copied exactly; a finding no page supports
  must be left out; note a page's date when it matters;
- notes: 1-3 notes for your team: gaps, contradictions, leads worth following;
- summary: one paragraph answering the task from those findings;
- confidence, drawn from the above: high (several consistent, reliable pages), medium,
  or low.

Research request:
{brief}

{sources}"""

ENOUGH_SOURCES = 2  # independent sources that agree before a researcher may stop early


def build_agent_system(
    name: str,
    specialization: str,
    working_style: str,
    source_preferences: list[str],
    language: str,
    today: str,
) -> str:
    return AGENT_SYSTEM.format(
        name=name,
        specialization=specialization,
        working_style=working_style or "methodical",
        source_preferences=", ".join(source_preferences) or "reliable primary sources",
        preamble=preamble(today, language),
    )


def build_agent_step(
    system: str,
    *,
    topic_id: int,
    topic: str,
    instruction: str,
    queries: list[str],
    step: int,
    max_steps: int,
    insights: list[str],
    notes: list[str],
    brief: str,
    fetched: list[str],
    observations: str,
    thoughts: list[str] | None = None,
) -> Messages:
    text = AGENT_STEP.format(
        topic_id=topic_id,
        topic=topic,
        instruction=instruction or topic,
        queries="; ".join(queries) or "(none)",
        step=step,
        max_steps=max_steps,
        left=max(0, max_steps - step),
        enough=ENOUGH_SOURCES,
        thoughts="\n".join(f"{i}. {t}" for i, t in enumerate(thoughts or [], 1)) or "(none yet)",
        insights="\n".join(f"- {i}" for i in insights) or "(none yet)",
        notes="\n".join(f"- {n}" for n in notes) or "(none yet)",
        brief=brief,
        fetched="\n".join(f'<page url="{u}"/>' for u in fetched) or "(none)",
        observations=observations or "(nothing yet: this is your first step)",
    )
    return messages(system, text)


def build_write_finding(
    system: str, *, topic_id: int, topic: str, instruction: str, brief: str, sources: str
) -> Messages:
    text = WRITE_FINDING.format(
        topic_id=topic_id,
        topic=topic,
        instruction=instruction or topic,
        brief=brief,
        sources=sources,
    )
    return messages(system, text)
