"""The analyst-critic-writer chain around the report, and its one extra round of searches.

    compress ─► analyst (analyst.json) ─SEARCH_REQUIRED?─► search round ─► compress ─► analyst
             ─► writer ⇄ critic (≤ 3 rounds; a REJECT naming missing information may spend
                the search round, if the analyst did not, before the rewrite)

The search round is bounded: at most ``SEARCH_ROUNDS`` per session, one researcher
per query (at most one per agent of the team), never more than the researcher runs
``max_iterations`` leaves, and only as many as the token / cost budget pays for
beside the report's reserve. Its findings are folded into draft_report.md and the
evidence is compressed again, so the writer reads them like any other.

Every stage is published in ``progress.chain`` (role, stage, "iteration 1/3", a
preview) and as the phase, so the status, the SSE stream and the web page show
the chain as it runs. An analyst that fails never stops the report: the writer
goes on without the analysis.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import azure.durable_functions as df

from orchestrators import budget
from orchestrators.common import call, error_text, outcome, publish, settle, step
from orchestrators.queue_state import Run
from orchestrators.replan import fold_late_findings
from shared.core import names
from shared.core.analysis_models import ChainRole, ChainStage
from shared.core.chain_payloads import PREVIEW_CHARS, AnalystOut, AnalyzeIn, preview
from shared.core.payloads import CompressIn, Gap, ResearcherIn, ResearcherOut
from shared.core.research_models import Todo
from shared.core.session_models import Usage

SEARCH_ROUNDS = 1  # per session: the analyst or the critic may ask once
ANALYST_ROUNDS = 1 + SEARCH_ROUNDS  # the analysis, and again after the search round
ANALYST_CALLS = 1
OUTCOMES = frozenset({"analyst_draft_ready", "analyst_search_required", "critic_review_complete"})
MAX_STAGES = 16  # kept in the status
# The previews' share of the custom status (16 KB in all), as JSON escapes them: a CJK
# character takes six bytes. The newest stages keep theirs; older ones drop it first.
PREVIEW_BYTES = 3000


def stage(
    context: df.DurableOrchestrationContext,
    run: Run,
    role: ChainRole,
    name: str,
    iteration: tuple[int, int] = (1, 1),
    text: str = "",
    **outcome: str | int,
) -> None:
    """Show one stage of the chain: in the chain list, and a working stage as the phase too
    (the writer's phase stays ``writing_report``, the name its failures and the report's
    Limitations use); an outcome (``OUTCOMES``) leaves the phase, and so the phase's time
    and calls, to the work that led to it."""
    shown = ChainStage(
        role=role,
        stage=name,
        iteration=iteration[0],
        of=iteration[1],
        preview=text[: PREVIEW_CHARS + 3],
        **outcome,
    )
    run.progress.chain = within_budget([*run.progress.chain, shown][-MAX_STAGES:])
    if name in OUTCOMES:  # an outcome, not work: the phase (and its time) stays the work's
        publish(context, run.progress)
    else:
        run.set_phase(context, "writing_report" if role == "writer" else name)


def within_budget(chain: list[ChainStage]) -> list[ChainStage]:
    """The chain with previews kept newest first while they fit ``PREVIEW_BYTES``."""
    spent, kept = 0, []
    for shown in reversed(chain):
        spent += len(json.dumps(shown.preview))
        kept.append(shown if spent <= PREVIEW_BYTES else shown.model_copy(update={"preview": ""}))
    return kept[::-1]


def analyst_phase(context: df.DurableOrchestrationContext, run: Run, compress: CompressIn):
    """The analyst, and when it asks for one, the search round and a second analysis."""
    analysis = yield from _analyse(context, run, 1)
    if analysis is None or analysis.verdict != "SEARCH_REQUIRED":
        return
    why = analysis.missing_information
    asked = (analysis.new_queries, why, analysis.topic_ids)
    if (yield from search_round(context, run, *asked, compress=compress)):
        yield from analyst_phase_after_search(context, run)


def analyst_phase_after_search(context: df.DurableOrchestrationContext, run: Run):
    """The analysis again, over the evidence the search round added (the writer reads it)."""
    yield from _analyse(context, run, ANALYST_ROUNDS)


def _analyse(context: df.DurableOrchestrationContext, run: Run, iteration: int):
    if not run.affords(ANALYST_CALLS):
        run.progress.warn(
            "analyst_analyzing", "the analyst did not run: the budget is kept for the report"
        )
        return None
    rounds = (iteration, ANALYST_ROUNDS)
    stage(context, run, "analyst", "analyst_analyzing", rounds)
    try:
        out = AnalystOut.model_validate(
            (
                yield from step(
                    context,
                    names.ANALYZE_FINDINGS,
                    AnalyzeIn(context=run.context, iteration=iteration),
                )
            )
        )
    except Exception as exc:  # the writer goes on without the analysis
        run.usage += getattr(exc, "usage", None) or Usage()
        run.progress.warn("analyst_analyzing", f"the analyst failed: {error_text(exc)}")
        return None
    run.usage += out.usage
    done = "analyst_search_required" if out.verdict == "SEARCH_REQUIRED" else "analyst_draft_ready"
    stage(
        context,
        run,
        "analyst",
        done,
        rounds,
        out.preview,
        status=out.verdict,
        citations=out.citations,
    )
    return out


def search_round(
    context: df.DurableOrchestrationContext,
    run: Run,
    queries: list[str],
    missing: list[str],
    topic_ids: Sequence[int] = (),
    *,
    compress: CompressIn,
):
    """One bounded round of researchers on ``queries``; False when none could run."""
    refused = _refusal(run, queries)
    if refused:
        run.progress.warn("analyst_searching", f"no extra search round: {refused}")
        return False
    steps = run.agent_steps
    count = min(len(queries), len(run.team), run.caps.max_iterations - run.researcher_runs)
    while count and not run.affords(count * (steps + 1) + ANALYST_CALLS):
        count -= 1
    if not count:
        run.progress.warn(
            "analyst_searching", f"no extra search round: {budget.BUDGET_NOTE} is spent"
        )
        return False
    run.search_rounds += 1
    searching = preview("; ".join(queries[:count]))
    stage(context, run, "analyst", "analyst_searching", (1, SEARCH_ROUNDS), searching)
    tasks, todos = [], []
    for k, (query, profile) in enumerate(zip(queries[:count], run.team, strict=False)):
        why = missing[k] if k < len(missing) else query
        todo = Todo(
            id=f"todo-{len(run.todos) + 1}",
            agent_id=profile.agent_id,
            topic_id=topic_ids[k] if k < len(topic_ids) else 0,
            topic=query,
            instruction=f"Find what the analysis found missing: {why}",
            queries=[query],
        )
        run.todos.append(todo)
        run.researcher_runs += 1
        request = ResearcherIn(
            context=run.context,
            profile=profile,
            todo=todo,
            agent_todos=[t for t in run.todos if t.agent_id == profile.agent_id],
            max_steps=steps,
            item=f"{names.FINDING_ITEM}{run.researcher_runs}",
        )
        tasks.append(call(context, names.RUN_RESEARCHER, request))
        todos.append(todo)
    before = set(run.finding_refs)
    results = yield from settle(context, tasks)
    for todo, result in zip(todos, results, strict=True):
        _record(run, todo, result)
    yield from fold_late_findings(context, run, before)
    yield from step(
        context,
        names.COMPRESS_FINDINGS,
        compress.model_copy(update={"finding_refs": run.finding_refs}),
    )
    return True


def _refusal(run: Run, queries: list[str]) -> str:
    if run.search_rounds >= SEARCH_ROUNDS:
        return f"at most {SEARCH_ROUNDS} per session"
    if not queries:
        return "no query was named"
    if not run.team:
        return "no researcher ran in this session"
    if run.researcher_runs >= run.caps.max_iterations:
        return "no researcher runs are left (max_iterations)"
    return ""


def _record(run: Run, todo: Todo, result: object) -> None:
    finding = outcome(
        names.RUN_RESEARCHER,
        result,
        ResearcherOut,
        lambda error, used: ResearcherOut(
            ok=False,
            agent_id=todo.agent_id,
            todo_id=todo.id,
            topic_id=todo.topic_id,
            error=error,
            usage=used,
        ),
    )
    run.usage += finding.usage
    todo.status = "done" if finding.ok else "failed"
    if finding.ok and finding.item_ref:
        run.finding_refs.append(finding.item_ref)
        run.progress.findings += 1
        run.progress.source_count += len(finding.source_urls)
    elif finding.error:
        run.gaps.append(
            Gap(kind="agent_failed", agent_id=todo.agent_id, topic=todo.topic, error=finding.error)
        )
        run.progress.warn(
            "analyst_searching", f"agent {todo.agent_id} failed on {todo.topic!r}: {finding.error}"
        )
