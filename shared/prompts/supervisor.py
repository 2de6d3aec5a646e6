"""Deep research: the supervisor's review of one finding, and the critic's check of a report."""

from __future__ import annotations

from shared.prompts.framing import Messages, messages, preamble

SUPERVISOR_SYSTEM = """You supervise a team of research agents and keep the draft report.
{preamble}"""

SUPERVISE = """An agent just finished a task. Review its finding against the plan and
everything found so far, then steer the team. You have {calls_left} reviews left after
this one.

1. Coverage: for every plan topic, say covered, shallow or missing, with the evidence
   (which findings, which sources) in one sentence.
2. Gaps: a missing topic gets a new todo; a shallow one gets a todo that deepens it
   (more specific queries, better sources); if two agents duplicate work, redirect one
   with a todo on something else. New todos name the topic_id, an instruction and 2-3
   queries; agent_id when one agent is clearly best placed, else null. No todo that
   repeats finished or pending work.
3. Draft: write draft_section_title and draft_section, a Markdown section (150-400
   words) that synthesises this finding into the report, citing each claim with a
   Markdown link to its source URL, e.g. ([source](https://...)). Use only URLs listed
   in the findings.
4. key_insights: 1-3 one-line insights worth sharing with every agent.
5. notes: what you checked and why you decided as you did.
6. decision: continue (work remains and the todos are useful), replan (the plan itself
   misses the point; explain in notes) or finish (every topic is covered well enough,
   or nothing useful is left to do).

Research request:
{brief}

Plan:
{plan}

Todos (status):
{todos}

Earlier findings:
{findings}

The finding to review:
{finding}"""

CRITIQUE = """Check this research report before it is delivered. Look for logical gaps,
claims not supported by the cited sources, citations that point nowhere, contradictions,
and sources that break the source policy ({policy}). Return:
- verdict: PASS (ready), WARN (usable, with issues to note) or REJECT (needs a revision);
- issues: each problem in one sentence, most serious first.

Research request:
{brief}

Sources:
{sources}

<report>
{report}
</report>"""


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
) -> Messages:
    system = SUPERVISOR_SYSTEM.format(preamble=preamble(today, language))
    text = SUPERVISE.format(
        brief=brief,
        plan=plan,
        todos=todos or "(none)",
        findings=findings or "(none yet)",
        finding=finding,
        calls_left=calls_left,
    )
    return messages(system, text)


def build_critique(
    *, brief: str, sources: str, report: str, policy: str, language: str, today: str
) -> Messages:
    system = f"You are a demanding research editor.\n{preamble(today, language)}"
    text = CRITIQUE.format(brief=brief, sources=sources, report=report, policy=policy)
    return messages(system, text)
