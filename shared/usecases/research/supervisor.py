"""One supervisor review: read the new finding against the plan, record, decide.

Reads draft_report.md so the new section extends the draft instead of
repeating it. Writes supervisor.md (notes, coverage with evidence, new todos),
a section of draft_report.md and key insights in main.md; answers the researchers' help
requests held since the last review (``help_requests``); returns the decision and the
new todos for the orchestrator's queue.
"""

from __future__ import annotations

from shared.core.payloads import SupervisorIn, SupervisorOut
from shared.core.research_models import Finding
from shared.ports import Services
from shared.usecases.research import help_requests, memory_files


def load_finding(svc: Services, ref: str) -> Finding:
    session_id, _, name = ref.partition("/")
    return Finding.model_validate_json(svc.memory.read(session_id, name))


def supervisor_review(svc: Services, req: SupervisorIn) -> SupervisorOut:
    finding = load_finding(svc, req.finding_ref)
    findings = [load_finding(svc, ref) for ref in req.finding_refs]
    draft = memory_files.read_draft(svc.memory, req.context.session_id)
    review = svc.reasoner.supervise(
        req.context, req.plan, finding, findings, req.todos, req.calls_left, draft=draft
    )
    known_topics = {t.id for t in req.plan.topics}
    review.new_todos = [t for t in review.new_todos if t.topic_id in known_topics][:4]
    memory_files.append_review(svc.memory, req.context, review, req.review_n)
    covered = sum(1 for c in review.coverage if c.covered)
    helped, answered = help_requests.answer_requests(svc, req)  # questions since the last one
    return SupervisorOut(
        decision=review.decision,
        new_todos=[*review.new_todos, *helped],
        covered_topics=covered,
        notes=review.notes[:500],
        answered=answered,
    )
