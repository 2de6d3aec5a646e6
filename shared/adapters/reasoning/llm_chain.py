"""The LLM reasoner's roles added with issue 29: the analyst before the writer and the
supervisor's answer to a researcher's request for help. A mixin of ``LLMReasoner``
(``llm.py`` holds the other roles and the plumbing these use: ``_ask``, ``_budget``)."""

from __future__ import annotations

from datetime import date
from typing import Any

from shared.adapters.reasoning import llm_analyst
from shared.adapters.reasoning import llm_views as views
from shared.adapters.reasoning.context_budget import defuse
from shared.core.analysis_models import Analysis
from shared.core.report_models import ReportMaterial
from shared.core.research_models import (
    HelpAnswer,
    HelpRequest,
    ResearchContext,
    ResearchPlan,
    ResearchTopic,
)
from shared.tools.lexical import unique_texts
from shared.tools.prompts import help as help_prompt


class LLMChainRoles:
    _ask: Any  # LLMReasoner's: (schema, role, messages) -> validated reply
    _budget: Any  # LLMReasoner's: role -> characters of evidence

    def analyze_findings(self, material: ReportMaterial, open: list[ResearchTopic]) -> Analysis:
        budget = self._budget("analyst")
        return llm_analyst.analyze_findings(self._ask, budget, _today(), material, open)

    def answer_help(
        self, context: ResearchContext, plan: ResearchPlan, request: HelpRequest
    ) -> HelpAnswer:
        """The question and its context are the agent's words, built from web pages: data."""
        messages = help_prompt.build_answer_help(
            brief=views.brief_of(context, self._budget("supervise")),
            plan=views.plan_text(plan),
            topic_id=request.topic_id,
            question=defuse(request.question),
            context=defuse(request.context),
            tried=[defuse(q) for q in request.tried],
            language=context.language,
            today=_today(),
        )
        reply = self._ask(HelpAnswer, "supervise", messages)
        todo = reply.new_todo
        if todo is not None:
            queries = unique_texts(todo.queries, skip=request.tried)[:3]
            todo = todo.model_copy(update={"queries": queries}) if queries else None
        return reply.model_copy(update={"new_todo": todo})


def _today() -> str:
    return date.today().isoformat()
