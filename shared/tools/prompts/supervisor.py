"""Deep research: the supervisor's review of one finding (the critic's check of a report is in
``critic``)."""

from __future__ import annotations

from shared.tools.prompts.framing import Messages, messages, preamble

SUPERVISOR_SYSTEM = """You supervise a team of research agents and keep the draft report.
{preamble}"""

SUPERVISE = """An agent just finished a task. Review its finding against the plan, the
draft so far and everything found so far, then steer the team. You have {calls_left}
reviews left after this one. Assess first, decide last, in this order:

1. coverage: for every plan topic (topic_id and its title as topic): covered (true when
   the findings answer it well enough), score 0.0-1.0 (how completely), evidence (which
   findings, which sources, in one sentence), gaps (what is still missing, one line each;
   none when covered) and gap_query (the search that would fill them).
2. notes: what you checked, what is still weak or contradictory, and which way you lean.
3. key_insights: 1-3 one-line insights worth sharing with every agent.
4. draft_section_title and draft_section: what this finding adds to the draft below, as
   a Markdown section (150-400 words) citing each claim with a Markdown link to its
   source URL, e.g. ([source](https://...)); use only URLs listed in the findings.
   Read the draft first and never repeat what it already says: when the finding belongs
   under a heading the draft already has, reuse that heading and write only what is
   new; leave both empty when the finding adds nothing new.
5. new_todos: a missing topic gets a new todo; a shallow one gets a todo that deepens it
   (more specific queries, better sources); if two agents duplicate work, redirect one
   with a todo on something else. New todos name the topic_id, an instruction and 2-3
   queries; agent_id when one agent is clearly best placed, else null. No todo that
   repeats finished or pending work.
6. decision, drawn from the above: continue (work remains and the todos are useful),
   replan (the plan itself misses the point; explain in notes) or finish (every topic is
   covered well enough, or nothing useful is left to do).

Research request:
{brief}

Plan:
{plan}

Todos (status):
{todos}

The draft so far (headings and text):
<draft>
{draft}
</draft>

Earlier findings:
<findings>
{findings}
</findings>

The finding to review:
<finding>
{finding}
</finding>"""


def build_supervise(
    *,
    brief: str,
    plan: str,
    todos: str,
    findings: str,
    finding: str,
    calls_left: int,
    language: str,
    today: str,
    draft: str = "",
) -> Messages:
    system = SUPERVISOR_SYSTEM.format(preamble=preamble(today, language))
    text = SUPERVISE.format(
        brief=brief,
        plan=plan,
        todos=todos or "(none)",
        findings=findings or "(none yet)",
        finding=finding,
        calls_left=calls_left,
        draft=draft or "(empty: this is the first section)",
    )
    return messages(system, text)
