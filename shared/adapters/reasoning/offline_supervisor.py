"""The offline reasoner's supervisor: coverage by topic, new todos for thin topics.

Counting is the whole judgement: a topic with ``COVERED_MIN_FINDINGS`` key
findings is covered, one with fewer is shallow, one with none is missing. Thin
topics get another todo (at most ``MAX_TODOS_PER_TOPIC`` per topic) while
reviews remain; the draft section quotes the finding's first key findings with
their sources, so the draft grows from what was read.
"""

from __future__ import annotations

from shared.adapters.reasoning.question_shape import subject_of
from shared.adapters.reasoning.templates import texts_for
from shared.core.research_models import (
    Finding,
    NewTodo,
    ResearchContext,
    ResearchPlan,
    ResearchTopic,
    SupervisorReview,
    Todo,
    TopicCompleteness,
)

COVERED_MIN_FINDINGS = 3
MAX_TODOS_PER_TOPIC = 2


def supervise(
    context: ResearchContext,
    plan: ResearchPlan,
    finding: Finding,
    findings: list[Finding],
    todos: list[Todo],
    calls_left: int,
) -> SupervisorReview:
    """Coverage by topic: thin topics get a new todo while reviews remain; finish when all
    are covered or nothing is left to do. Running out of reviews is not "finish": the
    queue lets agents complete their remaining todos unsupervised."""
    t = texts_for(context.language)
    everything = findings if finding in findings else [*findings, finding]
    coverage: list[TopicCompleteness] = []
    new_todos: list[NewTodo] = []
    for topic in plan.topics:
        count = sum(len(f.key_findings) for f in everything if _on_topic(f, topic))
        judged = _completeness(topic, count, t["todo_instruction"].format(topic=topic.title))
        coverage.append(judged)
        topic_todos = [d for d in todos if d.topic_id == topic.id]
        busy = any(d.status in ("pending", "in_progress") for d in topic_todos)
        if judged.covered or busy or len(topic_todos) >= MAX_TODOS_PER_TOPIC:
            continue
        if calls_left > 0:
            used = {q for d in topic_todos for q in d.queries}
            queries = [q for q in topic.queries if q not in used]
            queries = queries or [f"{topic.title} {subject_of(context.query)}"]
            instruction = t["todo_instruction"].format(topic=topic.title)
            new_todos.append(NewTodo(topic_id=topic.id, instruction=instruction, queries=queries))
    covered = sum(c.covered for c in coverage)
    idle = not new_todos and not any(d.status in ("pending", "in_progress") for d in todos)
    decision = "finish" if covered == len(coverage) or idle else "continue"
    titles = {s.url: s.title or s.url for s in finding.sources}
    draft = " ".join(
        f"{k.text} ([{titles.get(k.source_urls[0], k.source_urls[0])}]({k.source_urls[0]}))"
        for k in finding.key_findings[:4]
        if k.source_urls
    )
    return SupervisorReview(
        decision=decision,
        notes=t["supervise_notes"].format(covered=covered, total=len(coverage), new=len(new_todos)),
        draft_section_title=finding.topic,
        draft_section=draft,
        key_insights=[k.text for k in finding.key_findings[:3]],
        coverage=coverage,
        new_todos=new_todos,
    )


def _completeness(topic: ResearchTopic, count: int, gap: str) -> TopicCompleteness:
    """Covered at COVERED_MIN_FINDINGS key findings; the score is the share of that."""
    score = min(1.0, count / COVERED_MIN_FINDINGS)
    return TopicCompleteness(
        topic_id=topic.id,
        topic=topic.title,
        covered=count >= COVERED_MIN_FINDINGS,
        score=round(score, 2),
        evidence=f"{count} key findings",
        gaps=[] if count >= COVERED_MIN_FINDINGS else [gap],
        gap_query=topic.queries[0] if topic.queries else topic.title,
    )


def _on_topic(finding: Finding, topic: ResearchTopic) -> bool:
    if finding.error:
        return False
    return finding.topic_id == topic.id if finding.topic_id else finding.topic == topic.title
