"""Researchers asking the supervisor for help, and the supervisor's answers.

An agent stuck on its todo calls ``ask_supervisor`` with a question; the todo
ends with what it has, and the question with what the agent tried (its searches,
each with its result count) goes to its file (``agents/agent_N.md``) and to the
finding's envelope. The orchestrator holds the question until the supervisor's
next review, which answers it (at most ``MAX_ANSWERS`` per review, oldest first):
advice, and usually a todo that acts on it for the same agent and topic. The
exchange is written to supervisor.md and, as the answer, to the agent's file,
where the agent reads it among its own notes on its next todo. A todo born of an
answer that is stuck again gets advice only, never a third attempt.
Idempotent: every entry is appended under a key, so a retried activity adds nothing.
"""

from __future__ import annotations

import logging

from shared.adapters.stores.base import MemoryStore
from shared.core.errors import PermanentError
from shared.core.payloads import SupervisorIn
from shared.core.research_models import AgentAction, AgentState, HelpRequest, NewTodo
from shared.ports import Services
from shared.usecases.research import memory_files

log = logging.getLogger(__name__)
HELP_PREFIX = "Supervisor's answer: "
MAX_ANSWERS = 3  # help requests one review answers; the rest wait for the next
QUESTION_CHARS, CONTEXT_CHARS = 500, 800


def question_of(state: AgentState, action: AgentAction) -> HelpRequest:
    """The agent's question, with what it tried: the supervisor sees the dead ends."""
    searches = [o for o in state.observations if o.tool == "web_search"]
    tried = "; ".join(f"{o.argument!r}: {len(o.results)} results" for o in searches)
    context = (
        f"{action.thought.strip()} Searches: {tried or 'none'}; "
        f"pages read: {len(state.fetched_urls)}."
    ).strip()
    question = action.argument.strip() or f"How should I research {state.todo.topic!r}?"
    return HelpRequest(
        agent_id=state.profile.agent_id,
        todo_id=state.todo.id,
        topic_id=state.todo.topic_id,
        question=question[:QUESTION_CHARS],
        context=context[:CONTEXT_CHARS],
        tried=[o.argument for o in searches][:10],
    )


def record_question(memory: MemoryStore, session_id: str, request: HelpRequest) -> None:
    entry = (
        f"### Help request ({request.todo_id})\n\n**Question:** {request.question}\n\n"
        f"**Context:** {request.context}\n\n"
    )
    memory.append(
        session_id, memory_files.agent_file(request.agent_id), f"help-{request.todo_id}", entry
    )


def answer_requests(svc: Services, req: SupervisorIn) -> tuple[list[NewTodo], list[str]]:
    """The new todos the answers add and the todo ids answered (a failed answer waits)."""
    todos = {t.id: t for t in req.todos}
    added: list[NewTodo] = []
    answered: list[str] = []
    for request in req.help_requests[:MAX_ANSWERS]:
        try:
            reply = svc.reasoner.answer_help(req.context, req.plan, request)
        except PermanentError as exc:
            log.warning("help request %s not answered: %s", request.todo_id, exc)
            continue
        asking = todos.get(request.todo_id)
        todo = reply.new_todo
        if asking is not None and asking.instruction.startswith(HELP_PREFIX):
            todo = None  # stuck again after an answer: advice only
        if todo is not None:
            todo = todo.model_copy(
                update={
                    "topic_id": request.topic_id,
                    "agent_id": request.agent_id,
                    "instruction": f"{HELP_PREFIX}{reply.answer} {todo.instruction}".strip(),
                }
            )
            added.append(todo)
        _record_answer(svc.memory, req, request, reply.answer, todo)
        answered.append(request.todo_id)
    return added, answered


def _record_answer(
    memory: MemoryStore, req: SupervisorIn, request: HelpRequest, answer: str, todo: NewTodo | None
) -> None:
    sid = req.context.session_id
    plan = (
        f"**New todo:** {todo.instruction} (queries: {'; '.join(todo.queries)})"
        if todo
        else ("**New todo:** none")
    )
    entry = (
        f"## Help request from agent {request.agent_id} ({request.todo_id}) - "
        f"{memory_files.now_text()}\n\n**Question:** {request.question}\n\n"
        f"**Context:** {request.context}\n\n**Answer:** {answer}\n\n{plan}\n\n"
    )
    memory.append(sid, memory_files.SUPERVISOR, f"help-{request.todo_id}", entry)
    memory.append(
        sid,
        memory_files.agent_file(request.agent_id),
        f"help-answer-{request.todo_id}",
        f"### Supervisor's answer ({request.todo_id})\n\n{answer}\n\n",
    )
