"""Deep research: the critic's check of a report against its evidence, before delivery."""

from __future__ import annotations

from shared.tools.prompts.framing import (
    SOURCE_ATTRIBUTES_NOTE,
    Messages,
    evidence_block,
    messages,
    preamble,
)

CRITIQUE = """Check this research report before it is delivered, against the evidence
below: the sources' own passages and the agents' findings. Check its reasoning:
- deduction: does each conclusion follow from the premises the sources establish?
- induction: is a general claim drawn from enough cases (sample size?) and are they
  representative, or is it one source generalised?
- abduction: where the report explains something, were alternative explanations weighed?
- correlation vs causation: is a cause claimed where the sources show only co-occurrence?
Check its sources: claims the cited passages do not support, citations that point
nowhere, contradictions, padding that adds no evidence, and compliance with the source
policy of this research ({policy}).
{source_note}
Return, in this order (the assessment first, the verdict drawn from it last):
- issues: each problem in one sentence, most serious first, naming the section and the
  [n] concerned; empty when there is none;
- suggestions: for each issue, how the writer should fix it;
- mode_compliance: compliant, minor_deviations or non_compliant with the source policy;
- logical_gaps: failures of deduction, induction, abduction or causal reasoning, each in
  one sentence naming the section;
- source_issues: sources that break the policy, are unreliable for the claim, or are
  cited for what they do not say;
- missing_information: what the question needs that no source here contains and only a
  new web search could supply; empty when the evidence suffices;
- verdict: PASS (ready), WARN (usable, with issues to note) or REJECT (needs a revision).

{evidence}

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
        evidence=evidence_block(brief, sources, findings),
        report=report,
        policy=policy,
        source_note=SOURCE_ATTRIBUTES_NOTE,
    )
    return messages(system, text)
