"""Deep research: the critic's check of a report against its evidence, before delivery."""

from __future__ import annotations

from shared.tools.prompts.framing import SOURCE_ATTRIBUTES_NOTE, Messages, messages, preamble

CRITIQUE = """Check this research report before it is delivered, against the evidence
below: the sources' own passages and the agents' findings. Look for claims the cited
passages do not support, citations that point nowhere, logical gaps, contradictions,
padding that adds no evidence, and sources that break the source policy ({policy}).
{source_note}
Return, in this order:
- issues: each problem in one sentence, most serious first, naming the section and the
  [n] concerned; empty when there is none;
- verdict, drawn from the issues: PASS (ready), WARN (usable, with issues to note) or
  REJECT (needs a revision).

Research request:
{brief}

Numbered sources:
{sources}

Findings:
<findings>
{findings}
</findings>

<report>
{report}
</report>"""


def build_critique(
    *,
    brief: str,
    sources: str,
    report: str,
    policy: str,
    language: str,
    today: str,
    findings: str = "",
) -> Messages:
    system = f"You are a demanding research editor.\n{preamble(today, language)}"
    text = CRITIQUE.format(
        brief=brief,
        sources=sources,
        report=report,
        policy=policy,
        findings=findings or "(none)",
        source_note=SOURCE_ATTRIBUTES_NOTE,
    )
    return messages(system, text)
