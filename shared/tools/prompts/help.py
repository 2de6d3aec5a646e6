"""Deep research: the supervisor answering a researcher's request for help."""

from __future__ import annotations

from shared.tools.prompts.framing import Messages, messages, preamble

ANSWER_HELP = """A researcher on your team is stuck on its task and asks for help.
Answer at once, in this order:
- answer: two or three sentences: what to try instead (other words, another angle, a
  narrower or broader question, other kinds of sources), or why the topic can be left
  open;
- new_todo: when a new attempt is worth it, the task that acts on your answer for the same
  researcher and topic: an instruction and 1-3 new search queries unlike those it tried;
  null when the topic should be left open.

Research request:
{brief}

Research plan:
{plan}

The researcher's task: topic {topic_id}
<question>
{question}
</question>
<context>
{context}
</context>
Searches it tried: {tried}"""


def build_answer_help(
    *,
    brief: str,
    plan: str,
    topic_id: int,
    question: str,
    context: str,
    tried: list[str],
    language: str,
    today: str,
) -> Messages:
    system = f"You are the supervisor of a team of research agents.\n{preamble(today, language)}"
    text = ANSWER_HELP.format(
        brief=brief,
        plan=plan,
        topic_id=topic_id,
        question=question,
        context=context or "(none)",
        tried="; ".join(tried) or "(none)",
    )
    return messages(system, text)
