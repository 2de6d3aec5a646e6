"""A plan edit: what the research will follow, what changed in words, and what is refused."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from api.schemas import PlanDecision
from shared.core.errors import InvalidInputError
from shared.core.research_models import PlanApproval, ResearchPlan, ResearchTopic
from shared.usecases.plan_review import TopicEdit, edited, review_note

PLANNED = PlanApproval(
    plan=ResearchPlan(
        summary="s",
        topics=[
            ResearchTopic(id=1, title="Basics", queries=["generators basics"]),
            ResearchTopic(id=2, title="Uses", priority=2, queries=["generator uses"]),
            ResearchTopic(id=3, title="Pitfalls", queries=["generator pitfalls"]),
        ],
    ),
    num_agents=3,
    max_agents=4,
    deadline=datetime(2030, 1, 1, tzinfo=UTC),
)


def test_topics_kept_reworded_added_and_removed_are_followed_and_described() -> None:
    plan, agents, changes = edited(
        PLANNED,
        [
            TopicEdit(id=1, title="Basics"),
            TopicEdit(id=2, title="Real-world uses"),
            TopicEdit(title="Coroutines", queries=["async generators"]),
        ],
        None,
    )

    assert [(t.id, t.title, t.queries) for t in plan.topics] == [
        (1, "Basics", ["generators basics"]),  # kept as planned
        (2, "Real-world uses", ["Real-world uses"]),  # reworded: searched by its new title
        (4, "Coroutines", ["async generators"]),  # new ids never reuse a planned one
    ]
    assert plan.topics[1].priority == 2 and plan.summary == "s"
    assert agents == 3
    assert changes == [
        "reworded topic: Uses -> Real-world uses",
        "added topic: Coroutines",
        "removed topic: Pitfalls",
    ]


def test_fewer_topics_mean_at_most_one_agent_each_unless_asked() -> None:
    _, agents, changes = edited(PLANNED, [TopicEdit(id=1, title="Basics")], None)
    assert agents == 1 and "agents: 3 -> 1" in changes

    plan, agents, changes = edited(PLANNED, None, 2)  # agents only: the topics stay
    assert [t.id for t in plan.topics] == [1, 2, 3] and agents == 2
    assert changes == ["agents: 3 -> 2"]


@pytest.mark.parametrize(
    "topics, num_agents, field",
    [
        ([TopicEdit(id=9, title="x")], None, ["topics", 0, "id"]),
        ([TopicEdit(id=1, title="a"), TopicEdit(id=1, title="b")], None, ["topics", 1, "id"]),
        ([TopicEdit(title=f"t{n}") for n in range(7)], None, ["topics"]),
        (None, 5, ["num_agents"]),  # over the session's cap (4)
        ([TopicEdit(id=1, title="Basics")], 2, ["num_agents"]),  # two agents, one topic
    ],
)
def test_edits_the_caps_do_not_allow_are_refused_naming_the_field(topics, num_agents, field):
    with pytest.raises(InvalidInputError) as refused:
        edited(PLANNED, topics, num_agents)
    assert refused.value.details[0]["loc"] == field
    assert ".".join(str(p) for p in field) in str(refused.value)


@pytest.mark.parametrize(
    "body",
    [
        {"action": "edit"},
        {"action": "approve", "num_agents": 2},
        {"action": "cancel", "topics": [{"title": "x"}]},
        {"action": "edit", "topics": [{"title": "   "}]},
        {"action": "edit", "topics": [{"title": "x", "queries": ["q"] * 6}]},
        {"action": "edit", "topics": [{"title": "x", "extra": 1}]},
        {"action": "maybe"},
    ],
)
def test_malformed_decisions_are_validation_errors(body: dict) -> None:
    with pytest.raises(ValidationError):
        PlanDecision.model_validate(body)


def test_the_note_says_how_the_plan_was_reviewed() -> None:
    decided = PLANNED.model_copy(update={"outcome": "edited", "changes": ["added topic: X"]})
    assert review_note(decided).endswith("before the research began: added topic: X.")
    assert "approved" in review_note(PLANNED.model_copy(update={"outcome": "approved"}))
    assert "Nobody approved" in review_note(PLANNED.model_copy(update={"outcome": "timed_out"}))
