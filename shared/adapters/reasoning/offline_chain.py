"""The offline reasoner's roles added with issue 29, played by rules: the analyst and the
critic (``offline_analyst``) and the supervisor's answer to a request for help
(``offline_help``). A mixin of ``OfflineReasoner``, which holds the other roles."""

from __future__ import annotations

from shared.adapters.reasoning import offline_analyst, offline_help
from shared.core.analysis_models import Analysis
from shared.core.report_models import Critique, FinalReport, ReportMaterial
from shared.core.research_models import (
    HelpAnswer,
    HelpRequest,
    ResearchContext,
    ResearchPlan,
    ResearchTopic,
)


class OfflineChainRoles:
    def analyze_findings(self, material: ReportMaterial, open: list[ResearchTopic]) -> Analysis:
        return offline_analyst.analyze_findings(material, open)

    def critique(self, report: FinalReport, material: ReportMaterial) -> Critique:
        return offline_analyst.critique(report, material)

    def answer_help(
        self, context: ResearchContext, plan: ResearchPlan, request: HelpRequest
    ) -> HelpAnswer:
        return offline_help.answer_help(context, plan, request)
