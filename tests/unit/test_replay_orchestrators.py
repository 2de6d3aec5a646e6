"""The mode orchestrators, replayed by the SDK's executor over scripted histories.

Each test plays the Durable extension by hand (``tests.fakes.durable_history``):
activities are answered with small, valid payloads, failed, or left pending;
timers fire and events arrive when the test says so. What is asserted is what
the orchestrator asks for next, which is what a user eventually sees.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest

import function_app
from devhost import history as h
from devhost.registry import index
from shared.core import names
from shared.core.completeness_payloads import CompletenessOut
from shared.core.config import ResearchOptions, Settings
from shared.core.payloads import (
    FAILURE_KEY,
    AnswerOut,
    ClarifyOut,
    CompressOut,
    CritiqueOut,
    PdfOut,
    PlanQueriesOut,
    PlanResearchOut,
    PlanReviewOut,
    ReportOut,
    ResearcherOut,
    ScrapeOut,
    SelectSourcesOut,
    SpawnAgentsOut,
    StepFailure,
    SupervisorOut,
    WebSearchOut,
)
from shared.core.research_models import (
    AgentProfile,
    NewTodo,
    QueryAnalysis,
    ResearchPlan,
    ResearchTopic,
    Todo,
)
from shared.core.session_models import StartInput, Usage
from tests.fakes.durable_history import START, Replay, function_names, replay

ORCHESTRATORS = index(function_app.app).orchestrators
ACTIVITY_CALLS = (0, 1)  # call_activity, call_activity_with_retry


def start_input(mode: str, **options: Any) -> dict[str, Any]:
    caps = Settings(reasoner="offline", search_provider="local").caps_for(
        ResearchOptions(**options)
    )
    return StartInput(
        session_id="s1", chat_id="c1", query="How do generators work?", mode=mode, caps=caps
    ).model_dump(mode="json")


def respond(name: str, request: Any) -> Any:
    """Small valid outputs for every activity, shaped by the request where it matters."""
    topics = [ResearchTopic(id=1, title="Basics"), ResearchTopic(id=2, title="Uses")]
    outputs = {
        names.CLARIFY: lambda: ClarifyOut(needed=True, questions=["Which Python version?"]),
        names.PLAN_RESEARCH: lambda: PlanResearchOut(
            analysis=QueryAnalysis(query_type="how_to", complexity="moderate"),
            plan=ResearchPlan(topics=topics),
            num_agents=2,
        ),
        names.SPAWN_AGENTS: lambda: SpawnAgentsOut(
            profiles=[AgentProfile(agent_id=n, name=f"a{n}", specialization="x") for n in (1, 2)],
            todos=[
                Todo(id=f"todo-{n}", agent_id=n, topic_id=n, topic=topics[n - 1].title)
                for n in (1, 2)
            ],
        ),
        names.RUN_RESEARCHER: lambda: ResearcherOut(
            ok=True,
            agent_id=request["todo"]["agent_id"],
            todo_id=request["todo"]["id"],
            topic_id=request["todo"]["topic_id"],
            item_ref=f"s1/{request['item']}.json",
            source_urls=["https://docs.python.org/3/"],
        ),
        names.SUPERVISOR_REVIEW: lambda: SupervisorOut(decision="continue"),
        names.COMPRESS_FINDINGS: lambda: CompressOut(findings=2, key_findings=4, source_count=2),
        names.GENERATE_FINAL_REPORT: lambda: ReportOut(
            report_ref="s1/report.md",
            title="Generators",
            sections=3,
            source_count=2,
            confidence="medium",
            basis="draft",
        ),
        names.CRITIQUE_REPORT: lambda: CritiqueOut(verdict="PASS"),
        names.RENDER_PDF: lambda: PdfOut(ok=True, pdf_ref="s1/report.pdf", bytes=10),
        names.CHAT_ANSWER: lambda: AnswerOut(answer_ref="s1/answer.md"),
        names.PLAN_QUERIES: lambda: PlanQueriesOut(
            rewritten="python generators", queries=["generators", "yield"]
        ),
        names.WEB_SEARCH: lambda: WebSearchOut(),
        names.SELECT_SOURCES: lambda: SelectSourcesOut(selected=[]),
        names.SCRAPE_PAGE: lambda: ScrapeOut(url="https://x", ok=True),
        names.EVALUATE_COMPLETENESS: lambda: CompletenessOut(
            review_ref=f"s1/{request['name']}.json", topics=["Basics", "Uses"], covered=2
        ),
        names.SYNTHESIZE: lambda: AnswerOut(answer_ref="s1/answer.md", source_count=0, summary="s"),
    }
    made = outputs.get(name)
    return made().model_dump(mode="json") if made else {}


def run(name: str, inp: dict[str, Any]) -> Replay:
    return Replay(ORCHESTRATORS[name], inp).start()


def research(**options: Any) -> Replay:
    options.setdefault("run_deep_search_first", False)
    return run(names.DEEP_RESEARCH, start_input("deep_research", **options))


# -- deep research: clarification ---------------------------------------------------------


def test_an_answered_clarification_cancels_the_timer_and_resumes_researching() -> None:
    flow = research().run_activities(respond)
    assert not flow.done and [t.kind for t in flow.timers()] == ["timer"]
    assert flow.custom_status["phase"] == "waiting_clarification"

    flow.raise_event(names.CLARIFICATION_EVENT, {"answers": ["3.12"]})

    update = flow.next_activity()
    assert update.name == names.UPDATE_SESSION
    assert update.input["status"] == "researching"
    assert update.input["clarification_answers"] == ["3.12"]
    assert flow.timers() == []  # cancelled: a live timer would keep the instance running
    flow.run_activities(respond)
    plan = next(s for s in flow.scheduled if s.name == names.PLAN_RESEARCH)
    assert plan.input["context"]["clarification_answers"] == ["3.12"]
    assert flow.done and flow.output["status"] == "completed"


def test_a_timed_out_clarification_goes_on_without_answers() -> None:
    flow = research().run_activities(respond)
    (timer,) = flow.timers()

    flow.fire(timer.task_id)

    update = flow.next_activity()
    assert (update.name, update.input["status"]) == (names.UPDATE_SESSION, "researching")
    assert update.input["clarification_answers"] == []
    flow.run_activities(respond)
    plan = next(s for s in flow.scheduled if s.name == names.PLAN_RESEARCH)
    assert plan.input["context"]["clarification_timed_out"] is True
    assert flow.done and flow.output["status"] == "completed"


def test_an_answer_accepted_just_as_the_timer_fired_is_not_lost() -> None:
    flow = research().run_activities(respond)
    (timer,) = flow.timers()

    flow.fire(timer.task_id)
    update = flow.next_activity()
    flow.complete(update.task_id, {"clarification_answers": ["3.12"]})  # the API's claim
    flow.run_activities(respond)

    plan = next(s for s in flow.scheduled if s.name == names.PLAN_RESEARCH)
    assert plan.input["context"]["clarification_answers"] == ["3.12"]
    assert plan.input["context"]["clarification_timed_out"] is False


# -- deep research: the researcher queue ------------------------------------------------


def three_agents(name: str, request: Any) -> Any:
    """Three agents on three topics; only the review of the third finding adds a todo."""
    topics = [ResearchTopic(id=n, title=f"Topic {n}") for n in (1, 2, 3)]
    if name == names.PLAN_RESEARCH:
        analysis = QueryAnalysis(query_type="open", complexity="complex")
        plan = ResearchPlan(topics=topics)
        return PlanResearchOut(analysis=analysis, plan=plan, num_agents=3).model_dump(mode="json")
    if name == names.SPAWN_AGENTS:
        return SpawnAgentsOut(
            profiles=[
                AgentProfile(agent_id=n, name=f"a{n}", specialization="x") for n in (1, 2, 3)
            ],
            todos=[
                Todo(id=f"todo-{n}", agent_id=n, topic_id=n, topic=f"Topic {n}") for n in (1, 2, 3)
            ],
        ).model_dump(mode="json")
    if name == names.SUPERVISOR_REVIEW and request["finding_ref"].endswith("item_3.json"):
        deepen = NewTodo(topic_id=3, instruction="deepen topic 3")
        return SupervisorOut(decision="continue", new_todos=[deepen]).model_dump(mode="json")
    return respond(name, request)


def test_reviews_that_add_nothing_while_agents_still_run_do_not_end_the_research() -> None:
    flow = research(enable_clarifying_questions=False).run_activities(three_agents)

    assert flow.done and flow.output["status"] == "completed"
    assert flow.names_scheduled().count(names.SUPERVISOR_REVIEW) == 4
    assert flow.names_scheduled().count(names.RUN_RESEARCHER) == 4  # the deepening ran


def test_a_researcher_failing_after_retries_does_not_stop_the_queue() -> None:
    flow = research(enable_clarifying_questions=False, max_supervisor_calls=0)
    while not flow.activities(names.RUN_RESEARCHER):
        flow.complete(flow.next_activity().task_id, respond(flow.next_activity().name, None))
    doomed, survivor = flow.activities(names.RUN_RESEARCHER)

    flow.fail_for_good(doomed.task_id, "TransientError: search API down")
    flow.run_activities(respond)

    assert flow.done and flow.error is None
    assert flow.output["status"] == "completed"
    attempts = [
        s
        for s in flow.scheduled
        if s.name == names.RUN_RESEARCHER and s.input["todo"]["id"] == doomed.input["todo"]["id"]
    ]
    assert len(attempts) == 3  # ACTIVITY_RETRY: 3 attempts, then the error envelope
    compress = next(s for s in flow.scheduled if s.name == names.COMPRESS_FINDINGS)
    assert compress.input["finding_refs"] == [f"s1/{survivor.input['item']}.json"]
    assert "TransientError" in flow.custom_status["message"]
    report = next(s for s in flow.scheduled if s.name == names.GENERATE_FINAL_REPORT)
    failed = [g for g in report.input["gaps"] if g["kind"] == "agent_failed"]  # the report names it
    assert [(g["agent_id"], g["error"]) for g in failed] == [
        (doomed.input["profile"]["agent_id"], "TransientError: search API down")
    ]


def test_supervisor_reviews_stop_at_the_cap() -> None:
    flow = research(enable_clarifying_questions=False, max_supervisor_calls=1)
    flow.run_activities(respond)

    assert flow.done and flow.output["status"] == "completed"
    assert flow.names_scheduled().count(names.SUPERVISOR_REVIEW) == 1
    assert flow.names_scheduled().count(names.RUN_RESEARCHER) == 2
    assert flow.custom_status["supervisor_calls"] == 1


# -- deep research: the report phase ----------------------------------------------------------


def until_critique(**options: Any) -> Replay:
    """A run advanced to its first critic round (critic and PDF both pending)."""
    flow = research(enable_clarifying_questions=False, max_supervisor_calls=0, **options)
    while not flow.activities(names.CRITIQUE_REPORT):
        nxt = flow.next_activity()
        flow.complete(nxt.task_id, respond(nxt.name or "", nxt.input))
    return flow


def test_the_pdf_renders_while_the_critic_reads_and_only_once_when_accepted() -> None:
    flow = until_critique()
    assert {a.name for a in flow.activities()} == {names.CRITIQUE_REPORT, names.RENDER_PDF}

    flow.run_activities(respond)

    assert flow.done and flow.output["status"] == "completed"
    assert flow.names_scheduled().count(names.RENDER_PDF) == 1
    assert flow.names_scheduled()[-1] == names.COMPLETE_SESSION


def test_a_rejected_report_is_rendered_again_after_it_is_rewritten() -> None:
    flow = until_critique()
    critic, pdf = flow.next_activity(names.CRITIQUE_REPORT), flow.next_activity(names.RENDER_PDF)
    flow.complete(pdf.task_id, respond(names.RENDER_PDF, pdf.input))
    assert not flow.activities(names.GENERATE_FINAL_REPORT)  # nothing is written before both end
    rejected = CritiqueOut(verdict="REJECT", issues=["uncited claim"]).model_dump(mode="json")
    flow.complete(critic.task_id, rejected)

    rewrite = flow.next_activity(names.GENERATE_FINAL_REPORT)
    assert rewrite.input["critique"]["issues"] == ["uncited claim"]
    flow.run_activities(respond)

    order = flow.names_scheduled()
    assert order.count(names.RENDER_PDF) == 2
    last_write = len(order) - 1 - order[::-1].index(names.GENERATE_FINAL_REPORT)
    assert names.RENDER_PDF in order[last_write:]  # the PDF shows the rewritten report
    assert flow.done and flow.output["status"] == "completed"


def test_a_pdf_that_fails_for_good_leaves_the_report_and_says_so() -> None:
    flow = until_critique()
    flow.fail_for_good(flow.next_activity(names.RENDER_PDF).task_id, "OSError: disk full")
    flow.run_activities(respond)

    assert flow.done and flow.output["status"] == "completed"  # not the minimal report
    assert flow.names_scheduled().count(names.GENERATE_FINAL_REPORT) == 1
    assert "PDF not rendered" in flow.custom_status["message"]
    assert "disk full" in flow.custom_status["message"]


UNSOURCED = "the report has no sources: the findings cite none of the pages read (4; …)"


def unsourced_report(name: str, request: Any) -> Any:
    if name != names.GENERATE_FINAL_REPORT:
        return respond(name, request)
    out = ReportOut.model_validate(respond(name, request))
    return out.model_copy(update={"source_count": 0, "unsourced": UNSOURCED}).model_dump(
        mode="json"
    )


def test_a_report_without_sources_completes_with_a_warning_that_names_the_cause() -> None:
    flow = research(enable_clarifying_questions=False).run_activities(unsourced_report)

    assert flow.done and flow.output["status"] == "completed"  # the report exists
    (done,) = [s for s in flow.scheduled if s.name == names.COMPLETE_SESSION]
    warnings = done.input["progress"]["warnings"]
    assert {"phase": "writing_report", "message": UNSOURCED} in warnings

    state = replay(ORCHESTRATORS[names.DEEP_RESEARCH], json.dumps(flow.input), flow.history)
    assert state["isDone"] and state["output"] == flow.output


def test_a_critic_that_fails_for_good_falls_back_after_the_pdf_settles() -> None:
    flow = until_critique()
    pdf = flow.next_activity(names.RENDER_PDF)
    flow.fail_for_good(flow.next_activity(names.CRITIQUE_REPORT).task_id, "TransientError: 503")
    assert not flow.activities(names.GENERATE_FINAL_REPORT)  # the render is still running
    flow.complete(pdf.task_id, respond(names.RENDER_PDF, pdf.input))

    minimal = flow.next_activity(names.GENERATE_FINAL_REPORT)
    assert "503" in minimal.input["failure"]
    flow.run_activities(respond)
    order = flow.names_scheduled()
    assert order.count(names.RENDER_PDF) == 2 and order[-2:] == [
        names.RENDER_PDF,
        names.COMPLETE_SESSION,
    ]


def test_deep_search_first_runs_as_a_sub_orchestration() -> None:
    flow = research(run_deep_search_first=True, enable_clarifying_questions=False)
    (child,) = [s for s in flow.scheduled if s.kind == "sub"]
    assert child.name == names.DEEP_SEARCH and child.input["as_phase"] is True
    # Named by the session's instance rule, so deleting the session finds it by prefix.
    assert child.instance_id == "s1:deep-search"

    answer = AnswerOut(answer_ref="s1/deep_search.md", summary="generators yield values")
    flow.sub_completed(child.task_id, {"answer": answer.model_dump(mode="json"), "usage": {}})
    flow.run_activities(respond)

    plan = next(s for s in flow.scheduled if s.name == names.PLAN_RESEARCH)
    assert plan.input["context"]["deep_search_summary"] == "generators yield values"
    assert flow.done and flow.output["status"] == "completed"


def test_a_failed_deep_search_is_a_gap_the_report_words_and_an_english_warning() -> None:
    flow = research(run_deep_search_first=True, enable_clarifying_questions=False)
    (child,) = [s for s in flow.scheduled if s.kind == "sub"]
    flow.sub_failed(child.task_id, "PermanentError: search API answered 401")
    flow.run_activities(respond)

    report = next(s for s in flow.scheduled if s.name == names.GENERATE_FINAL_REPORT)
    gap = report.input["gaps"][0]
    assert gap["kind"] == "deep_search_failed" and "answered 401" in gap["error"]
    (warning,) = flow.custom_status["warnings"]
    assert warning["phase"] == "deep_search"
    assert warning["message"].startswith("the deep search failed: ")
    assert flow.done and flow.output["status"] == "completed"  # research went on without it


# -- the other modes ----------------------------------------------------------------------


def test_chat_answers_then_completes_the_session() -> None:
    flow = run(names.CHAT, start_input("chat")).run_activities(respond)

    assert flow.names_scheduled() == [names.CHAT_ANSWER, names.COMPLETE_SESSION]
    assert flow.output == {
        "session_id": "s1",
        "status": "completed",
        "answer_ref": "s1/answer.md",
        "report_ref": None,
    }


@pytest.mark.parametrize(
    "name, mode", [(names.SEARCH, "search"), (names.DEEP_SEARCH, "deep_search")]
)
def test_search_modes_search_in_parallel_then_synthesize(name: str, mode: str) -> None:
    flow = run(name, start_input(mode)).run_activities(respond)

    scheduled = flow.names_scheduled()
    assert scheduled[0] == names.PLAN_QUERIES
    assert scheduled[1:3] == [names.WEB_SEARCH, names.WEB_SEARCH]  # one per planned query
    assert scheduled[-2:] == [names.SYNTHESIZE, names.COMPLETE_SESSION]
    assert flow.output["status"] == "completed" and flow.output["answer_ref"] == "s1/answer.md"


def test_a_failed_search_reaches_the_status_and_the_answer() -> None:
    def provider_down(name: str, request: Any) -> Any:
        if name == names.WEB_SEARCH and request["query"] == "yield":
            return WebSearchOut(error="TransientError: search API answered 503").model_dump()
        return respond(name, request)

    flow = run(names.SEARCH, start_input("search")).run_activities(provider_down)

    synthesize = next(s for s in flow.scheduled if s.name == names.SYNTHESIZE)
    assert synthesize.input["warnings"] == [
        "search for 'yield' failed: TransientError: search API answered 503"
    ]
    assert [w["phase"] for w in flow.custom_status["warnings"]] == ["searching"]


def test_a_search_that_fails_late_still_reports_what_it_spent() -> None:
    planned = Usage(llm_calls=1, prompt_tokens=200, completion_tokens=30)
    refused = Usage(llm_calls=1, prompt_tokens=900, completion_tokens=0)

    def synthesis_refused(name: str, request: Any) -> Any:
        if name == names.PLAN_QUERIES:
            out = PlanQueriesOut(rewritten="g", queries=["generators", "yield"], usage=planned)
            return out.model_dump(mode="json")
        if name == names.SYNTHESIZE:
            failure = StepFailure(error="PermanentError: LLM endpoint answered 400", usage=refused)
            return {FAILURE_KEY: failure.model_dump(mode="json")}
        return respond(name, request)

    flow = run(names.SEARCH, start_input("search")).run_activities(synthesis_refused)

    done = next(s for s in flow.scheduled if s.name == names.COMPLETE_SESSION)
    assert done.input["status"] == "failed"
    assert done.input["usage"]["prompt_tokens"] == 1100  # planning and the refused call
    assert done.input["usage"]["llm_calls"] == 2


def test_the_source_policy_reaches_every_phase_that_writes() -> None:
    flow = research(enable_clarifying_questions=False, source_policy="monitor")
    flow.run_activities(respond)

    for name in (names.PLAN_RESEARCH, names.GENERATE_FINAL_REPORT, names.CRITIQUE_REPORT):
        scheduled = next(s for s in flow.scheduled if s.name == name)
        assert scheduled.input["context"]["source_policy"] == "monitor", name


# -- determinism ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, mode, options",
    [
        (names.CHAT, "chat", {}),
        (names.SEARCH, "search", {}),
        (names.DEEP_RESEARCH, "deep_research", {"run_deep_search_first": False}),
    ],
)
def test_replaying_a_completed_history_yields_the_same_actions(name, mode, options) -> None:
    inp = start_input(mode, **options)
    flow = run(name, inp)
    for _ in range(500):
        if flow.done:
            break
        if flow.activities():
            flow.run_activities(respond)
        else:  # waiting for the clarification: answer it
            flow.raise_event(names.CLARIFICATION_EVENT, {"answers": ["any"]})
    assert flow.done

    state = replay(ORCHESTRATORS[name], json.dumps(inp), flow.history)
    recorded = [e["Name"] for e in flow.history if e["EventType"] == h.EventType.TASK_SCHEDULED]
    assert function_names(state, kinds=ACTIVITY_CALLS) == recorded
    assert state["isDone"] and state["output"] == flow.output


# -- retries, permanent failures and budgets ----------------------------------------------


def test_a_permanent_failure_is_not_retried_and_the_report_names_the_phase() -> None:
    def planning_refused(name: str, request: Any) -> Any:
        if name == names.PLAN_RESEARCH:
            spent = Usage(llm_calls=1, prompt_tokens=300, completion_tokens=20)
            failure = StepFailure(error="PermanentError: LLM endpoint answered 400", usage=spent)
            return {FAILURE_KEY: failure.model_dump(mode="json")}
        return respond(name, request)

    flow = research(enable_clarifying_questions=False).run_activities(planning_refused)

    assert flow.names_scheduled().count(names.PLAN_RESEARCH) == 1  # a 400 is not retried
    assert names.RUN_RESEARCHER not in flow.names_scheduled()
    report = next(s for s in flow.scheduled if s.name == names.GENERATE_FINAL_REPORT)
    gap = report.input["gaps"][0]  # data: the report says it in the reader's language
    assert (gap["kind"], gap["phase"]) == ("phase_failed", "planning")
    assert gap["error"].startswith("plan_research: PermanentError")
    done = next(s for s in flow.scheduled if s.name == names.COMPLETE_SESSION)
    assert done.input["error"].startswith("planning failed: plan_research: PermanentError")
    assert done.input["usage"]["prompt_tokens"] == 300  # what the failed call spent is kept
    warnings = flow.custom_status["warnings"]
    assert [w["phase"] for w in warnings] == ["planning"]


def test_transient_failures_are_retried_as_the_settings_say() -> None:
    caps = Settings(
        reasoner="offline", search_provider="local", activity_retry_max_attempts=2
    ).caps_for(ResearchOptions(enable_clarifying_questions=False, run_deep_search_first=False))
    inp = StartInput(
        session_id="s1", chat_id="c1", query="q?", mode="deep_research", caps=caps
    ).model_dump(mode="json")
    flow = run(names.DEEP_RESEARCH, inp)
    while not flow.activities(names.RUN_RESEARCHER):
        nxt = flow.next_activity()
        flow.complete(nxt.task_id, respond(nxt.name or "", nxt.input))
    doomed = flow.activities(names.RUN_RESEARCHER)[0]

    flow.fail_for_good(doomed.task_id, "TransientError: 503")
    flow.run_activities(respond)

    attempts = [
        s
        for s in flow.scheduled
        if s.name == names.RUN_RESEARCHER and s.input["todo"]["id"] == doomed.input["todo"]["id"]
    ]
    assert len(attempts) == 2
    assert flow.done and flow.output["status"] == "completed"


def metered(name: str, request: Any) -> Any:
    """``respond``, with every model-calling activity billing 1500 tokens per call."""
    out = respond(name, request)
    calls = {
        names.PLAN_RESEARCH: 2,
        names.SPAWN_AGENTS: 1,
        names.RUN_RESEARCHER: (request or {}).get("max_steps", 0) + 1,
        names.SUPERVISOR_REVIEW: 3,
        names.GENERATE_FINAL_REPORT: 4,
        names.CRITIQUE_REPORT: 1,
    }.get(name, 0)
    if calls:
        out["usage"] = Usage(
            llm_calls=calls, prompt_tokens=1400 * calls, completion_tokens=100 * calls
        ).model_dump(mode="json")
    return out


def test_a_budget_sizes_the_research_and_keeps_the_report_reserve() -> None:
    flow = research(enable_clarifying_questions=False, max_tokens=20_000)
    flow.run_activities(metered)

    researchers = [s for s in flow.scheduled if s.name == names.RUN_RESEARCHER]
    assert [r.input["max_steps"] for r in researchers] == [5]  # the second did not fit
    assert names.SUPERVISOR_REVIEW not in flow.names_scheduled()  # nor did a review
    assert names.CRITIQUE_REPORT not in flow.names_scheduled()
    done = next(s for s in flow.scheduled if s.name == names.COMPLETE_SESSION)
    assert done.input["usage"]["prompt_tokens"] + done.input["usage"]["completion_tokens"] <= 20_000
    report = next(s for s in flow.scheduled if s.name == names.GENERATE_FINAL_REPORT)
    cut = [g for g in report.input["gaps"] if g["kind"] == "budget_topics_skipped"]
    assert len(cut) == 1 and "Uses" in cut[0]["topics"]
    told = [w["message"] for w in flow.custom_status["warnings"]]
    assert any(m.startswith("the token or cost budget was reached: not researched") for m in told)
    assert flow.done and flow.output["status"] == "completed"


def test_supervisor_reviews_skipped_for_the_budget_are_named_in_the_report() -> None:
    flow = research(enable_clarifying_questions=False, max_tokens=30_000)
    flow.run_activities(metered)

    assert flow.names_scheduled().count(names.RUN_RESEARCHER) == 2  # both agents still ran
    assert names.SUPERVISOR_REVIEW not in flow.names_scheduled()
    told = [w["message"] for w in flow.custom_status["warnings"]]
    assert told == ["supervisor reviews skipped to stay within the budget"]  # once
    report = next(s for s in flow.scheduled if s.name == names.GENERATE_FINAL_REPORT)
    assert [g["kind"] for g in report.input["gaps"]] == ["budget_reviews_skipped"]


def test_without_a_budget_nothing_is_cut() -> None:
    flow = research(enable_clarifying_questions=False).run_activities(metered)

    assert flow.names_scheduled().count(names.RUN_RESEARCHER) == 2
    assert flow.custom_status["warnings"] == []


# -- deep research: plan approval -----------------------------------------------------------

APPROVAL = {"enable_clarifying_questions": False, "require_plan_approval": True}


def reviewed(outcome: str, plan: ResearchPlan | None = None, num_agents: int = 2):
    """``respond`` with ``record_plan_review`` settling as ``outcome`` (as the session says)."""
    plan = plan or ResearchPlan(topics=[ResearchTopic(id=1, title="Basics")])

    def answer(name: str, request: Any) -> Any:
        if name == names.RECORD_PLAN_REVIEW:
            note = f"The research plan was {outcome}."
            out = PlanReviewOut(outcome=outcome, plan=plan, num_agents=num_agents, note=note)
            return out.model_dump(mode="json")
        return respond(name, request)

    return answer


def waiting_for_the_plan(**options: Any) -> Replay:
    flow = research(**APPROVAL, **options).run_activities(respond)
    assert not flow.done and [t.kind for t in flow.timers()] == ["timer"]
    assert flow.custom_status["phase"] == "waiting_plan_approval"
    assert names.SPAWN_AGENTS not in flow.names_scheduled()  # nothing researched yet
    return flow


def test_the_plan_waits_for_approval_only_when_asked() -> None:
    flow = research(enable_clarifying_questions=False).run_activities(respond)
    assert flow.done and flow.output["status"] == "completed"
    assert names.RECORD_PLAN_REVIEW not in flow.names_scheduled()

    waiting = waiting_for_the_plan()
    show = next(s for s in waiting.scheduled if s.input and s.input.get("plan_approval"))
    assert show.name == names.UPDATE_SESSION and show.input["status"] == "waiting_plan_approval"
    assert [t["title"] for t in show.input["plan_approval"]["plan"]["topics"]] == ["Basics", "Uses"]
    assert show.input["plan_approval"]["max_agents"] == 4  # the session's max_agents cap


def test_an_approved_plan_cancels_the_timer_and_is_researched_as_planned() -> None:
    flow = waiting_for_the_plan()

    flow.raise_event(names.PLAN_EVENT, {"action": "approve"})

    assert flow.timers() == []  # cancelled: a live timer would keep the instance running
    assert flow.next_activity().name == names.RECORD_PLAN_REVIEW
    flow.run_activities(reviewed("approved"))
    spawn = next(s for s in flow.scheduled if s.name == names.SPAWN_AGENTS)
    assert spawn.input["context"]["plan_review"] == "The research plan was approved."
    report = next(s for s in flow.scheduled if s.name == names.GENERATE_FINAL_REPORT)
    assert report.input["context"]["plan_review"] == "The research plan was approved."
    assert flow.done and flow.output["status"] == "completed"


def test_an_approval_raised_before_the_run_waits_for_it_is_not_lost() -> None:
    # The API raises the event once the session shows the plan, which the activity below
    # records; under load the event can reach the history before the orchestrator has
    # opened its wait. The SDK defers it to that wait (and warns: pyproject.toml).
    flow = research(**APPROVAL)
    for _ in range(200):
        shown = flow.next_activity()
        if shown.name == names.UPDATE_SESSION and shown.input.get("plan_approval"):
            break
        flow.complete(shown.task_id, respond(shown.name or "", shown.input))
    flow.raise_event(names.PLAN_EVENT, {"action": "approve"})
    flow.complete(shown.task_id, respond(shown.name or "", shown.input))
    flow.run_activities(reviewed("approved"))
    assert names.RECORD_PLAN_REVIEW in flow.names_scheduled()
    assert flow.done and flow.output["status"] == "completed", flow.error


def test_an_edited_plan_is_what_the_agents_research() -> None:
    flow = waiting_for_the_plan()
    edited = ResearchPlan(
        topics=[ResearchTopic(id=1, title="Basics"), ResearchTopic(id=3, title="Coroutines")]
    )

    flow.raise_event(names.PLAN_EVENT, {"action": "edit"})
    flow.run_activities(reviewed("edited", edited, num_agents=1))

    spawn = next(s for s in flow.scheduled if s.name == names.SPAWN_AGENTS)
    assert [t["title"] for t in spawn.input["plan"]["topics"]] == ["Basics", "Coroutines"]
    assert spawn.input["num_agents"] == 1
    assert flow.done and flow.output["status"] == "completed"


def test_a_timed_out_plan_proceeds_by_default() -> None:
    flow = waiting_for_the_plan()
    (timer,) = flow.timers()

    flow.fire(timer.task_id)
    flow.run_activities(reviewed("timed_out"))

    assert names.SPAWN_AGENTS in flow.names_scheduled()
    assert flow.done and flow.output["status"] == "completed"


def test_a_timed_out_plan_cancels_the_session_when_the_setting_says_so() -> None:
    settings = Settings(
        reasoner="offline",
        search_provider="local",
        deep_research_plan_approval_timeout_action="cancel",
    )
    caps = settings.caps_for(ResearchOptions(run_deep_search_first=False, **APPROVAL))
    inp = StartInput(
        session_id="s1", chat_id="c1", query="q", mode="deep_research", caps=caps
    ).model_dump(mode="json")
    flow = run(names.DEEP_RESEARCH, inp).run_activities(respond)
    (timer,) = flow.timers()

    flow.fire(timer.task_id)
    flow.run_activities(reviewed("timed_out"))

    complete = next(s for s in flow.scheduled if s.name == names.COMPLETE_SESSION)
    assert complete.input["status"] == "cancelled"
    assert "nobody approved the plan" in complete.input["error"]
    assert names.SPAWN_AGENTS not in flow.names_scheduled()
    assert names.GENERATE_FINAL_REPORT not in flow.names_scheduled()
    assert flow.done and flow.output["status"] == "cancelled"


def test_a_plan_ready_webhook_goes_out_when_the_session_has_a_callback() -> None:
    caps = Settings(reasoner="offline", search_provider="local").caps_for(
        ResearchOptions(run_deep_search_first=False, **APPROVAL)
    )
    inp = StartInput(
        session_id="s1",
        chat_id="c1",
        query="q",
        mode="deep_research",
        caps=caps,
        callback_url="https://receiver.example/hook",
    ).model_dump(mode="json")
    flow = run(names.DEEP_RESEARCH, inp).run_activities(respond)

    notes = [s.input["event"] for s in flow.scheduled if s.name == names.NOTIFY]
    assert notes == ["plan_ready"] and flow.timers()


def test_replaying_an_approved_history_yields_the_same_actions() -> None:
    inp = start_input("deep_research", run_deep_search_first=False, **APPROVAL)
    flow = run(names.DEEP_RESEARCH, inp).run_activities(respond)
    flow.raise_event(names.PLAN_EVENT, {"action": "approve"})
    flow.run_activities(reviewed("approved"))
    assert flow.done

    state = replay(ORCHESTRATORS[names.DEEP_RESEARCH], json.dumps(inp), flow.history)
    recorded = [e["Name"] for e in flow.history if e["EventType"] == h.EventType.TASK_SCHEDULED]
    assert function_names(state, kinds=ACTIVITY_CALLS) == recorded
    assert state["isDone"] and state["output"] == flow.output


# -- waiting for a person: clarification and plan approval share one wait ------------------

WEBHOOK = "https://receiver.example/hook"
CLARIFYING = {"enable_clarifying_questions": True}


def waiting(options: dict[str, Any], callback_url: str | None = WEBHOOK) -> Replay:
    """A deep research stopped at its wait for a person (clarification or plan approval)."""
    caps = Settings(reasoner="offline", search_provider="local").caps_for(
        ResearchOptions(run_deep_search_first=False, **options)
    )
    inp = StartInput(
        session_id="s1",
        chat_id="c1",
        query="q",
        mode="deep_research",
        caps=caps,
        callback_url=callback_url,
    ).model_dump(mode="json")
    return run(names.DEEP_RESEARCH, inp).run_activities(reviewed("approved"))


WAITS = [
    pytest.param(
        CLARIFYING,
        "waiting_clarification",
        "clarification_requested",
        (names.CLARIFICATION_EVENT, {"answers": ["3.12"]}),
        id="clarification",
    ),
    pytest.param(
        APPROVAL,
        "waiting_plan_approval",
        "plan_ready",
        (names.PLAN_EVENT, {"action": "approve"}),
        id="plan-approval",
    ),
]


@pytest.mark.parametrize(("options", "status", "notice", "reply"), WAITS)
def test_a_wait_for_a_person_records_the_status_then_notifies_then_waits(
    options: dict[str, Any], status: str, notice: str, reply: Any
) -> None:
    flow = waiting(options)

    asked = [s for s in flow.scheduled if s.name in (names.UPDATE_SESSION, names.NOTIFY)]
    assert [(s.name, s.input.get("status") or s.input.get("event")) for s in asked] == [
        (names.UPDATE_SESSION, status),
        (names.NOTIFY, notice),
    ]
    assert asked[0].input["progress"]["phase"] == status  # the status page shows the wait
    assert flow.custom_status["phase"] == status
    assert [t.kind for t in flow.timers()] == ["timer"] and not flow.activities()


def test_the_plan_wait_ends_at_the_deadline_the_user_is_shown() -> None:
    flow = waiting({**APPROVAL, "plan_approval_timeout_minutes": 60})
    shown = next(s for s in flow.scheduled if s.input and s.input.get("plan_approval"))
    (timer,) = flow.timers()

    deadline = datetime.fromisoformat(shown.input["plan_approval"]["deadline"])
    assert datetime.fromisoformat(timer.input) == deadline
    assert timedelta(minutes=60) < deadline - START < timedelta(minutes=60, seconds=30)


def test_the_clarification_wait_lasts_the_configured_timeout() -> None:
    flow = waiting({**CLARIFYING, "clarification_timeout_minutes": 90}, callback_url=None)
    (timer,) = flow.timers()

    assert [s.name for s in flow.scheduled if s.name == names.NOTIFY] == []  # no webhook set
    waited = datetime.fromisoformat(timer.input) - START
    assert timedelta(minutes=90) < waited < timedelta(minutes=90, seconds=30)


@pytest.mark.parametrize(("options", "status", "notice", "reply"), WAITS)
@pytest.mark.parametrize("winner", ["reply", "timer"])
def test_replaying_a_finished_wait_yields_the_same_actions(
    options: dict[str, Any], status: str, notice: str, reply: Any, winner: str
) -> None:
    flow = waiting(options)
    (timer,) = flow.timers()
    if winner == "reply":
        flow.raise_event(*reply)
        assert flow.timers() == []  # cancelled: a live timer would keep the instance running
    else:
        flow.fire(timer.task_id)
    flow.run_activities(reviewed("approved" if winner == "reply" else "timed_out"))
    assert flow.done and flow.output["status"] == "completed"

    state = replay(ORCHESTRATORS[names.DEEP_RESEARCH], json.dumps(flow.input), flow.history)
    recorded = [e["Name"] for e in flow.history if e["EventType"] == h.EventType.TASK_SCHEDULED]
    assert function_names(state, kinds=ACTIVITY_CALLS) == recorded
    assert state["isDone"] and state["output"] == flow.output


def test_a_report_without_sources_after_a_budget_cut_says_the_budget_cut_it_short() -> None:
    def spent_and_unsourced(name: str, request: Any) -> Any:
        out = metered(name, request)
        if name == names.GENERATE_FINAL_REPORT:
            out = {**out, "source_count": 0, "unsourced": UNSOURCED}
        return out

    flow = research(enable_clarifying_questions=False, max_tokens=20_000)
    flow.run_activities(spent_and_unsourced)

    assert flow.done and flow.output["status"] == "completed"
    told = [w["message"] for w in flow.custom_status["warnings"]]
    assert f"{UNSOURCED} (the budget cut the research short)" in told
    state = replay(ORCHESTRATORS[names.DEEP_RESEARCH], json.dumps(flow.input), flow.history)
    assert state["isDone"] and state["output"] == flow.output


DRAFT_FAILURE = "draft: PermanentError: HTTP 400"


def draft_report(name: str, request: Any) -> Any:
    if name != names.GENERATE_FINAL_REPORT:
        return respond(name, request)
    out = ReportOut.model_validate(respond(name, request))
    update = {"basis": "draft_fallback", "failure": DRAFT_FAILURE}
    return out.model_copy(update=update).model_dump(mode="json")


def test_a_report_that_is_the_draft_completes_with_a_warning_that_says_so() -> None:
    flow = research(enable_clarifying_questions=False).run_activities(draft_report)

    assert flow.done and flow.output["status"] == "completed"  # the draft is a report
    (done,) = [s for s in flow.scheduled if s.name == names.COMPLETE_SESSION]
    message = f"the report is the research draft: {DRAFT_FAILURE}"
    assert {"phase": "writing_report", "message": message} in done.input["progress"]["warnings"]

    state = replay(ORCHESTRATORS[names.DEEP_RESEARCH], json.dumps(flow.input), flow.history)
    assert state["isDone"] and state["output"] == flow.output


TOO_SHORT = "the report is too short: 900 characters, under the 1500 a report should have"


def short_report(name: str, request: Any) -> Any:
    if name != names.GENERATE_FINAL_REPORT:
        return respond(name, request)
    out = ReportOut.model_validate(respond(name, request))
    return out.model_copy(update={"too_short": TOO_SHORT}).model_dump(mode="json")


def test_a_too_short_report_completes_with_a_warning_in_the_status() -> None:
    flow = research(enable_clarifying_questions=False).run_activities(short_report)

    assert flow.done and flow.output["status"] == "completed"  # short is not failed
    (done,) = [s for s in flow.scheduled if s.name == names.COMPLETE_SESSION]
    assert {"phase": "writing_report", "message": TOO_SHORT} in done.input["progress"]["warnings"]
