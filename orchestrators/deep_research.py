"""`deep_research` mode (the flow in docs/architecture.md), one phase per helper:

deep search (sub-orchestration) ─► clarify (a wait for a person: orchestrators/person_wait.py)
  ─► analyze + plan ─► [plan approval: the same wait]
  ─► spawn agents ─► researcher queue with the supervisor
  ─► compress ─► analyst (one bounded search round on SEARCH_REQUIRED: analysis_chain.py)
  ─► report (critic rounds, each with its PDF rendered alongside; fallback chain) ─► finish

Any failure before the report still ends in a report: the report phase runs
on whatever findings exist, and falls back to a minimal report that says what
failed. The run waits without cost while the user answers (no activity runs).
"""

from __future__ import annotations

from datetime import timedelta

import azure.durable_functions as df

from orchestrators import budget
from orchestrators.analysis_chain import (
    SEARCH_ROUNDS,
    analyst_phase,
    analyst_phase_after_search,
    search_round,
    stage,
)
from orchestrators.common import call, checked, error_text, finish, outcome, publish, settle, step
from orchestrators.person_wait import Ask, wait_for_person
from orchestrators.plan_approval import PlanNotApproved, plan_approval_phase
from orchestrators.queue_state import Run
from orchestrators.research_queue import research_queue
from shared.core import names
from shared.core.analysis_models import MAX_NEW_QUERIES
from shared.core.chain_payloads import preview
from shared.core.payloads import (
    AnswerOut,
    ClarifyOut,
    CompressIn,
    ContextIn,
    CritiqueOut,
    Gap,
    PdfIn,
    PdfOut,
    PlanResearchIn,
    PlanResearchOut,
    ReportIn,
    ReportOut,
    SpawnAgentsIn,
    SpawnAgentsOut,
    UpdateSessionIn,
)
from shared.core.report_models import Critique
from shared.core.session_models import AgentProgress, Mode, SessionStatus, StartInput, Usage

bp = df.Blueprint()

CRITIC_ROUNDS = 3
# Gaps that mean research stopped for the budget: a report without sources then says so.
BUDGET_CUTS = frozenset({"budget_no_research", "budget_stopped", "budget_topics_skipped"})


@bp.orchestration_trigger(context_name="context")
def deep_research_orchestrator(context: df.DurableOrchestrationContext):
    run = Run(StartInput.model_validate(context.get_input()))
    try:
        yield from deep_search_phase(context, run)
        yield from clarification_phase(context, run)
        yield from research_phase(context, run)
    except PlanNotApproved as exc:  # the timeout action says cancel: no research, no report
        status = SessionStatus.cancelled
        return (
            yield from finish(context, run.inp, status, run.usage, run.progress, error=str(exc))
        )
    except Exception as exc:
        run.fail(exc)
    report = yield from report_phase(context, run)
    return (
        yield from finish(
            context,
            run.inp,
            _outcome(run, report),
            run.usage,
            run.progress,
            report_ref=report.report_ref if report else None,
            error=run.failure,
        )
    )


def deep_search_phase(context: df.DurableOrchestrationContext, run: Run):
    if not run.caps.run_deep_search_first:
        return
    run.set_phase(context, "deep_search")
    caps = budget.share(run.caps, run.usage, budget.DEEP_SEARCH_SHARE)
    child = run.inp.model_copy(update={"as_phase": True, "mode": Mode.deep_search, "caps": caps})
    try:
        out = yield context.call_sub_orchestrator(
            names.DEEP_SEARCH,
            child.model_dump(mode="json"),
            names.session_instance_id(run.inp.session_id, names.DEEP_SEARCH_ROLE),
        )
    except Exception as exc:  # the deep search only adds context: research goes on without it
        run.gaps.append(Gap(kind="deep_search_failed", error=error_text(exc)))
        run.progress.warn("deep_search", f"the deep search failed: {error_text(exc)}")
        return
    answer = AnswerOut.model_validate(out["answer"])
    run.usage += Usage.model_validate(out["usage"])
    for warning in out.get("warnings", []):
        run.progress.warn("deep_search", warning["message"])
    run.context.deep_search_summary = answer.summary
    run.deep_search_ref = answer.answer_ref
    run.progress.source_count = answer.source_count
    yield from step(
        context,
        names.UPDATE_SESSION,
        UpdateSessionIn(
            session_id=run.inp.session_id,
            deep_search_ref=answer.answer_ref,
            progress=run.progress,
            usage=run.usage,
        ),
    )


def clarification_phase(context: df.DurableOrchestrationContext, run: Run):
    if not run.caps.enable_clarifying_questions:
        return
    needed = budget.CLARIFY_CALLS + budget.PLANNING_CALLS + budget.RESEARCHER_MIN_CALLS
    if not run.affords(needed):
        run.progress.warn("clarifying", "no clarifying questions: the budget is kept for research")
        return
    run.set_phase(context, "clarifying")
    asked = ClarifyOut.model_validate(
        (yield from step(context, names.CLARIFY, ContextIn(context=run.context)))
    )
    run.usage += asked.usage
    if not asked.needed or not asked.questions:
        return
    run.context.clarification_questions = asked.questions
    answers = yield from _wait_for_answers(context, run, asked.questions)
    run.set_phase(context, "planning")
    recorded = yield from step(
        context,
        names.UPDATE_SESSION,
        UpdateSessionIn(
            session_id=run.inp.session_id,
            status=SessionStatus.researching,
            clarification_answers=answers,
            progress=run.progress,
        ),
    )
    # An answer the API accepted just as the timer fired is in the session: use it.
    stored = (recorded or {}).get("clarification_answers") or []
    if run.context.clarification_timed_out and stored:
        run.context.clarification_timed_out, answers = False, stored
    run.context.clarification_answers = answers


def _wait_for_answers(context: df.DurableOrchestrationContext, run: Run, questions: list[str]):
    """Show the questions and wait for the answers, or for the timeout (then none)."""
    minutes = run.caps.clarification_timeout_minutes
    ask = Ask(
        phase="waiting_clarification",
        record=UpdateSessionIn(
            session_id=run.inp.session_id,
            status=SessionStatus.waiting_clarification,
            clarification_questions=questions,
        ),
        notice="clarification_requested",
        reply_event=names.CLARIFICATION_EVENT,
        deadline=context.current_utc_datetime + timedelta(minutes=minutes),
    )
    reply = yield from wait_for_person(context, run, ask)
    if reply.timed_out:
        run.context.clarification_timed_out = True
        return []
    return [str(a) for a in (reply.data or {}).get("answers", [])]


def research_phase(context: df.DurableOrchestrationContext, run: Run):
    """Plan, spawn the agents, run the researcher queue: when the budget leaves room."""
    if not run.affords(budget.PLANNING_CALLS + budget.RESEARCHER_MIN_CALLS):
        what = "no research ran: the budget left room only for the report"
        run.cut(what, Gap(kind="budget_no_research"))
        return
    plan, profiles, todos = yield from planning_phase(context, run)
    yield from research_queue(context, run, plan, profiles, todos)


def planning_phase(context: df.DurableOrchestrationContext, run: Run):
    run.set_phase(context, "planning")
    request = PlanResearchIn(
        context=run.context,
        max_agents=run.caps.max_agents,
        max_steps=run.caps.agent_max_steps,
        chat_id=run.inp.chat_id,
    )
    planned = PlanResearchOut.model_validate(
        (yield from step(context, names.PLAN_RESEARCH, request))
    )
    run.usage += planned.usage
    run.context.time_range = planned.time_range  # every researcher search and later prompt
    run.agent_steps = min(planned.agent_steps or run.agent_steps, run.caps.agent_max_steps)
    plan, num_agents = yield from plan_approval_phase(context, run, planned)
    request = SpawnAgentsIn(context=run.context, plan=plan, num_agents=num_agents)
    spawned = SpawnAgentsOut.model_validate((yield from step(context, names.SPAWN_AGENTS, request)))
    run.usage += spawned.usage
    run.progress.agents = [AgentProgress(id=p.agent_id, profile=p.name) for p in spawned.profiles]
    run.set_phase(context, "researching")
    yield from step(
        context,
        names.UPDATE_SESSION,
        UpdateSessionIn(
            session_id=run.inp.session_id,
            status=SessionStatus.researching,
            progress=run.progress,
            usage=run.usage,
        ),
    )
    return plan, spawned.profiles, spawned.todos


def report_phase(context: df.DurableOrchestrationContext, run: Run):
    """Compress, write, let the critic review (while the budget allows), render the PDF.

    A failure anywhere here still ends in the minimal report that names it.
    """
    pdf: PdfOut | None = None
    try:
        run.set_phase(context, "compressing")
        request = CompressIn(
            session_id=run.inp.session_id,
            finding_refs=run.finding_refs,
            deep_search_ref=run.deep_search_ref,
        )
        yield from step(context, names.COMPRESS_FINDINGS, request)
        yield from analyst_phase(context, run, request)
        stage(context, run, "writer", "writer_composing")
        report = yield from _write(context, run, ReportIn(context=run.context, gaps=run.gaps))
        report, pdf = yield from _critic_rounds(context, run, report, request)
    except Exception as exc:
        run.fail(exc)
        pdf = None
        try:
            request = ReportIn(context=run.context, failure=run.failure, gaps=run.gaps)
            report = yield from _write(context, run, request)
        except Exception as final_exc:
            run.failure = f"{run.failure}; the minimal report failed too: {error_text(final_exc)}"
            return None
    if pdf is None:
        run.set_phase(context, "rendering_pdf")
        (rendered,) = yield from settle(context, [_render(context, run, report)])
        pdf = _pdf_out(rendered)
    if not pdf.ok:
        run.progress.warn("rendering_pdf", f"PDF not rendered: {pdf.error}")
    if report.too_short:  # not a failure, but the reader gets less than a report should be
        run.progress.warn("writing_report", report.too_short)
    if report.basis == "draft_fallback":  # the writer failed: the report is the draft
        run.progress.warn("writing_report", f"the report is the research draft: {report.failure}")
    if report.unsourced:  # a report resting on the model alone is not a complete answer
        cut = any(g.kind in BUDGET_CUTS for g in run.gaps)
        why = f"{report.unsourced} (the budget cut the research short)" if cut else report.unsourced
        run.progress.warn("writing_report", why)
    return report


def _critic_rounds(
    context: df.DurableOrchestrationContext, run: Run, report: ReportOut, compress: CompressIn
):
    """Up to CRITIC_ROUNDS reviews; each version's PDF renders while the critic reads it.

    When the critic accepts (the usual case) the PDF is already there, so
    rendering is off the path to the answer. Both calls are settled before
    anything else is written, so a stale render never lands after a newer report.
    A REJECT naming missing information spends the session's one search round
    (``analysis_chain.search_round``) when the analyst did not, before the rewrite.
    """
    for round_ in range(1, CRITIC_ROUNDS + 1):
        if not run.affords(budget.CRITIQUE_CALLS, reserve=0):
            run.progress.warn("reviewing", "the critic did not review: the budget was spent")
            return report, None
        rounds = (round_, CRITIC_ROUNDS)
        stage(context, run, "critic", "critic_reviewing", rounds)
        critic = call(context, names.CRITIQUE_REPORT, ContextIn(context=run.context))
        reviewed, rendered = yield from settle(context, [critic, _render(context, run, report)])
        review = CritiqueOut.model_validate(checked(names.CRITIQUE_REPORT, reviewed))
        run.usage += review.usage
        lead = " ".join([*review.issues, *review.logical_gaps, *review.source_issues][:2])
        done = (context, run, "critic", "critic_review_complete", rounds, preview(lead))
        stage(*done, status=review.verdict)
        if review.verdict != "REJECT":
            return report, _pdf_out(rendered)
        if not run.affords(budget.REWRITE_CALLS, reserve=0):
            run.progress.warn("reviewing", "the critic's issues were not fixed: budget spent")
            return report, _pdf_out(rendered)
        if review.missing_information and run.search_rounds < SEARCH_ROUNDS:
            queries = review.missing_information[:MAX_NEW_QUERIES]
            if (yield from search_round(context, run, queries, queries, compress=compress)):
                yield from analyst_phase_after_search(context, run)
        critique = Critique.model_validate(review.model_dump(exclude={"usage"}))
        stage(context, run, "writer", "writer_revising", rounds)
        request = ReportIn(context=run.context, round=round_, critique=critique, gaps=run.gaps)
        report = yield from _write(context, run, request)
    return report, None


def _render(context: df.DurableOrchestrationContext, run: Run, report: ReportOut):
    request = PdfIn(session_id=run.inp.session_id, language=run.inp.language, title=report.title)
    return call(context, names.RENDER_PDF, request)


def _pdf_out(result: dict | Exception) -> PdfOut:
    """A render that failed even after retries leaves the report without a PDF, nothing more."""
    return outcome(names.RENDER_PDF, result, PdfOut, lambda e, _: PdfOut(ok=False, error=e))


def _write(context: df.DurableOrchestrationContext, run: Run, request: ReportIn):
    out = yield from step(context, names.GENERATE_FINAL_REPORT, request)
    report = ReportOut.model_validate(out)
    run.usage += report.usage
    run.progress.source_count = max(run.progress.source_count, report.source_count)
    publish(context, run.progress)
    return report


def _outcome(run: Run, report: ReportOut | None) -> SessionStatus:
    """Completed, unless only the minimal report (or none) exists; then the failure says why."""
    failed = report is None or report.basis == "minimal"
    if failed and not run.failure:
        why = report.failure if report else None
        run.failure = f"only a minimal report could be written: {why or 'no cause recorded'}"
    return SessionStatus.failed if failed else SessionStatus.completed
