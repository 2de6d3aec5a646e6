"""Deep research: what kind of question is this, and how much effort does it deserve?"""

from __future__ import annotations

from shared.core.limits import AGENT_MAX_STEPS, NUM_AGENTS
from shared.tools.prompts.framing import Messages, messages, preamble

ANALYZE = """{preamble}

Analyse the research request below. Return, in this order:
- key_concepts: the 3-8 concepts a complete answer must cover;
- query_type: fact, definition, how_to, comparison, why, list or open;
- complexity: simple (one fact or definition, a short answer does it), moderate or
  complex (many concepts, several angles); it sets the report's length and the effort;
- recommended_agents: how many researchers to run in parallel, between 1 and {max_agents}:
  a simple fact needs 1, a comparison 2-4, a complex open question up to {max_agents};
- recommended_steps: tool calls per agent and task, between 1 and {max_steps}: about 3
  for a simple fact, the most for a direct comparison or a complex question; a
  researcher takes this many, so do not inflate a simple one.

{brief}"""


def build_analyze(
    brief: str,
    language: str,
    today: str,
    max_agents: int = NUM_AGENTS.le,
    max_steps: int = AGENT_MAX_STEPS.le,
) -> Messages:
    text = ANALYZE.format(
        preamble=preamble(today, language),
        brief=brief,
        max_agents=max_agents,
        max_steps=max_steps,
    )
    return messages("You analyse research requests.", text)
