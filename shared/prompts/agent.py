"""Deep research: one researcher's ReAct step, and the finding it writes at the end."""

from __future__ import annotations

from shared.prompts.framing import Messages, messages, preamble

AGENT_SYSTEM = """You are {name}, a researcher on a team. Specialization: {specialization}.
Working style: {working_style}. Preferred sources: {source_preferences}.
{preamble}"""

AGENT_STEP = """Your current task (topic {topic_id}: {topic}):
{instruction}
Suggested queries: {queries}

This is step {step} of at most {max_steps}. Choose exactly one tool:
- web_search: argument = a search query;
- scrape_url: argument = one URL taken from the search results below, to read the page;
- done: argument = empty; choose it when the pages you read answer the task, or when
  this is the last step.

How to work:
- start broad, then narrow down to specifics (numbers, dates, named sources);
- read (scrape_url) the most promising results before searching again; never scrape a
  page you already read;
- if the last results were irrelevant, reformulate the query (other words, other
  angle) rather than repeating it;
- every 3 steps (steps 3, 6, 9 ...) start your thought with "Reflection:" and say what
  you have, what is missing and whether to stop.
Return thought (one to three sentences), tool and argument.

What the team knows so far (key insights):
{insights}

Your own recent notes:
{notes}

Research request:
{brief}

Pages already read:
{fetched}

What your tools returned so far:
{observations}"""

WRITE_FINDING = """Your task (topic {topic_id}: {topic}):
{instruction}

Write your finding from the pages below, and only from them:
- summary: one paragraph answering the task;
- key_findings: 3-8 specific findings (facts, figures, dates, named claims); each has
  text and source_urls, the url attribute of the page(s) that state it, copied exactly;
  a finding no page supports must be left out;
- confidence: high (several consistent, reliable pages), medium, or low;
- notes: 1-3 notes for your team: gaps, contradictions, leads worth following.

Research request:
{brief}

{sources}"""


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
) -> Messages:
    text = AGENT_STEP.format(
        topic_id=topic_id,
        topic=topic,
        instruction=instruction or topic,
        queries="; ".join(queries) or "(none)",
        step=step,
        max_steps=max_steps,
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
