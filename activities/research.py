"""Activities of the deep research mode (thin: decode, call shared/usecases/research, dump)."""

from __future__ import annotations

import azure.durable_functions as df

from activities.common import run_step
from shared.core.chain_payloads import AnalyzeIn
from shared.core.payloads import (
    CompressIn,
    ContextIn,
    PdfIn,
    PlanResearchIn,
    ReportIn,
    ResearcherIn,
    SpawnAgentsIn,
    SupervisorIn,
)
from shared.core.replan_models import LateFindingsIn, ReplanIn
from shared.usecases import plan_review
from shared.usecases.research import (
    analysis_chain,
    compress,
    final_report,
    phases,
    replan,
    researcher,
    supervisor,
)

bp = df.Blueprint()


@bp.activity_trigger(input_name="payload")
def clarify(payload: dict) -> dict:
    return run_step(payload, ContextIn, phases.clarify)


@bp.activity_trigger(input_name="payload")
def plan_research(payload: dict) -> dict:
    return run_step(payload, PlanResearchIn, phases.plan_research)


@bp.activity_trigger(input_name="payload")
def record_plan_review(payload: dict) -> dict:
    return run_step(payload, ContextIn, plan_review.record_review)


@bp.activity_trigger(input_name="payload")
def spawn_agents(payload: dict) -> dict:
    return run_step(payload, SpawnAgentsIn, phases.spawn_agents)


@bp.activity_trigger(input_name="payload")
def run_researcher(payload: dict) -> dict:
    return run_step(payload, ResearcherIn, researcher.run_researcher)


@bp.activity_trigger(input_name="payload")
def supervisor_review(payload: dict) -> dict:
    return run_step(payload, SupervisorIn, supervisor.supervisor_review)


@bp.activity_trigger(input_name="payload")
def replan_research(payload: dict) -> dict:
    return run_step(payload, ReplanIn, replan.replan_research)


@bp.activity_trigger(input_name="payload")
def fold_late_findings(payload: dict) -> dict:
    return run_step(payload, LateFindingsIn, replan.fold_late_findings)


@bp.activity_trigger(input_name="payload")
def compress_findings(payload: dict) -> dict:
    return run_step(payload, CompressIn, compress.compress_findings)


@bp.activity_trigger(input_name="payload")
def analyze_findings(payload: dict) -> dict:
    return run_step(payload, AnalyzeIn, analysis_chain.analyze_findings)


@bp.activity_trigger(input_name="payload")
def generate_final_report(payload: dict) -> dict:
    return run_step(payload, ReportIn, final_report.generate_final_report)


@bp.activity_trigger(input_name="payload")
def critique_report(payload: dict) -> dict:
    return run_step(payload, ContextIn, final_report.critique_report)


@bp.activity_trigger(input_name="payload")
def render_pdf(payload: dict) -> dict:
    return run_step(payload, PdfIn, final_report.render_report_pdf)
