"""`deep_research` mode: the flow of DESIGN.md, one phase per helper.

deep search (sub-orchestration) ─► clarify (durable wait raced with a timer)
  ─► analyze + plan ─► spawn agents ─► researcher queue with the supervisor
  ─► compress ─► report (critic rounds, each with its PDF rendered alongside;
      fallback chain) ─► finish

Any failure before the report still ends in a report: the report phase runs
on whatever findings exist, and falls back to a minimal report that says what
failed. The run waits without cost while the user answers (no activity runs).
"""

from __future__ import annotations

from datetime import timedelta

import azure.durable_functions as df

from orchestrators.common import call, error_text, finish, publish, settle
from orchestrators.research_queue import Run, research_queue
from shared import names
from shared.models import AgentProgress, Critique, Mode, SessionStatus, StartInput, Usage
from shared.payloads import (
    AnswerOut,
    ClarifyOut,
    CompressIn,
    ContextIn,
    CritiqueOut,
    NotifyIn,
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

bp = df.Blueprint()

CRITIC_ROUNDS = 3


@bp.orchestration_trigger(context_name="context")
def deep_research_orchestrator(context: df.DurableOrchestrationContext):
    run = Run(StartInput.model_validate(context.get_input()))
    try:
        yield from deep_search_phase(context, run)
        yield from clarification_phase(context, run)
        if run.over_budget():
            run.gaps.append("the token or cost budget was spent before planning: no research ran")
            run.progress.message = "token or cost budget reached: writing the report"
        else:
            plan, profiles, todos = yield from planning_phase(context, run)
            yield from research_queue(context, run, plan, profiles, todos)
    except Exception as exc:
        run.failure = error_text(exc)
    report = yield from report_phase(context, run)
    failed = report is None or report.basis == "minimal"
    if failed and not run.failure:
        run.failure = "only a minimal report could be written: " + "; ".join(
            report.warnings[:3] if report else []
        )
    status = SessionStatus.failed if failed else SessionStatus.completed
    return (
        yield from finish(
            context,
            run.inp,
            status,
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
    child = run.inp.model_copy(update={"as_phase": True, "mode": Mode.deep_search})
    try:
        out = yield context.call_sub_orchestrator(
            names.DEEP_SEARCH, child.model_dump(mode="json"), f"{context.instance_id}:deep-search"
        )
    except Exception as exc:  # the deep search only adds context: research goes on without it
        run.gaps.append(f"the deep search failed: {error_text(exc)}")
        run.progress.message = run.gaps[-1]
        return
    answer = AnswerOut.model_validate(out["answer"])
    run.usage += Usage.model_validate(out["usage"])
    run.context.deep_search_summary = answer.summary
    run.deep_search_ref = answer.answer_ref
    run.progress.sources = answer.sources
    yield call(
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
    run.set_phase(context, "clarifying")
    asked = ClarifyOut.model_validate(
        (yield call(context, names.CLARIFY, ContextIn(context=run.context)))
    )
    run.usage += asked.usage
    if not asked.needed or not asked.questions:
        return
    run.context.clarification_questions = asked.questions
    run.set_phase(context, "waiting_clarification")
    sid = run.inp.session_id
    yield call(
        context,
        names.UPDATE_SESSION,
        UpdateSessionIn(
            session_id=sid,
            status=SessionStatus.waiting_clarification,
            clarification_questions=asked.questions,
            progress=run.progress,
        ),
    )
    if run.inp.callback_url:
        yield call(
            context,
            names.NOTIFY,
            NotifyIn(
                session_id=sid,
                event="clarification_requested",
                event_id=f"{sid}:clarification_requested",
            ),
        )
    deadline = context.current_utc_datetime + timedelta(
        minutes=run.caps.clarification_timeout_minutes
    )
    timer = context.create_timer(deadline)
    reply = context.wait_for_external_event(names.CLARIFICATION_EVENT)
    winner = yield context.task_any([reply, timer])
    if winner is reply:
        timer.cancel()
        answers = [str(a) for a in (reply.result or {}).get("answers", [])]
    else:
        run.context.clarification_timed_out = True
        answers = []
    run.set_phase(context, "planning")
    recorded = yield call(
        context,
        names.UPDATE_SESSION,
        UpdateSessionIn(
            session_id=sid,
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


def planning_phase(context: df.DurableOrchestrationContext, run: Run):
    run.set_phase(context, "planning")
    request = PlanResearchIn(context=run.context, max_agents=run.caps.num_agents)
    planned = PlanResearchOut.model_validate((yield call(context, names.PLAN_RESEARCH, request)))
    run.usage += planned.usage
    spawned = SpawnAgentsOut.model_validate(
        (
            yield call(
                context,
                names.SPAWN_AGENTS,
                SpawnAgentsIn(
                    context=run.context, plan=planned.plan, num_agents=planned.num_agents
                ),
            )
        )
    )
    run.usage += spawned.usage
    run.progress.agents = [AgentProgress(id=p.agent_id, profile=p.name) for p in spawned.profiles]
    run.set_phase(context, "researching")
    yield call(
        context,
        names.UPDATE_SESSION,
        UpdateSessionIn(
            session_id=run.inp.session_id,
            status=SessionStatus.researching,
            progress=run.progress,
            usage=run.usage,
        ),
    )
    return planned.plan, spawned.profiles, spawned.todos


def report_phase(context: df.DurableOrchestrationContext, run: Run):
    """Compress, write, let the critic review up to 3 times, render the PDF.

    Each version's PDF is rendered while the critic reads that version: when the
    critic accepts (the usual case) the PDF is already there, so rendering is off
    the path to the answer; a rejected version's PDF is simply rendered again.
    Both calls are settled before anything else is written, so a stale render
    can never land after a newer report.
    """
    sid = run.inp.session_id
    pdf: PdfOut | None = None
    try:
        run.set_phase(context, "compressing")
        yield call(
            context,
            names.COMPRESS_FINDINGS,
            CompressIn(
                session_id=sid, finding_refs=run.finding_refs, deep_search_ref=run.deep_search_ref
            ),
        )
        run.set_phase(context, "writing_report")
        report = yield from _write(context, run, ReportIn(context=run.context, gaps=run.gaps))
        for round_ in range(1, CRITIC_ROUNDS + 1):
            reviewed, rendered = yield from settle(
                context,
                [
                    call(context, names.CRITIQUE_REPORT, ContextIn(context=run.context)),
                    _render(context, run, report),
                ],
            )
            if isinstance(reviewed, Exception):
                raise reviewed
            pdf = _pdf_out(rendered)
            review = CritiqueOut.model_validate(reviewed)
            run.usage += review.usage
            if review.verdict != "REJECT":
                break
            pdf = None
            critique = Critique(verdict=review.verdict, issues=review.issues)
            report = yield from _write(
                context,
                run,
                ReportIn(context=run.context, round=round_, critique=critique, gaps=run.gaps),
            )
    except Exception as exc:
        pdf = None
        run.failure = run.failure or error_text(exc)
        try:
            report = yield from _write(
                context, run, ReportIn(context=run.context, failure=run.failure)
            )
        except Exception as final_exc:
            run.failure = f"{run.failure}; the minimal report failed too: {error_text(final_exc)}"
            return None
    if pdf is None:
        run.set_phase(context, "rendering_pdf")
        (rendered,) = yield from settle(context, [_render(context, run, report)])
        pdf = _pdf_out(rendered)
    if not pdf.ok:
        run.progress.message = f"PDF not rendered: {pdf.error}"
    return report


def _render(context: df.DurableOrchestrationContext, run: Run, report: ReportOut):
    request = PdfIn(session_id=run.inp.session_id, language=run.inp.language, title=report.title)
    return call(context, names.RENDER_PDF, request)


def _pdf_out(result: dict | Exception) -> PdfOut:
    """A render that failed even after retries leaves the report without a PDF, nothing more."""
    if isinstance(result, Exception):
        return PdfOut(ok=False, error=error_text(result))
    return PdfOut.model_validate(result)


def _write(context: df.DurableOrchestrationContext, run: Run, request: ReportIn):
    report = ReportOut.model_validate((yield call(context, names.GENERATE_FINAL_REPORT, request)))
    run.usage += report.usage
    run.progress.sources = max(run.progress.sources, report.sources)
    publish(context, run.progress)
    return report
