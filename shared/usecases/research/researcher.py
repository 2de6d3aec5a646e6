"""One researcher todo: a bounded ReAct loop with web_search, scrape_url and done.

The agent sees the query, the deep search summary, the clarification answers,
the last 10 notes of its own file and main.md's key insights, never chat
history. Tool use is constrained where an injected page could steer it: the
loop never exceeds ``max_steps``, and ``scrape_url`` only opens URLs that this
agent's own searches returned. The search tool lists URLs that earlier todos
on the same topic already read after the fresh ones (``read_urls``), so a
todo that deepens a topic reads something new; the list comes from the
orchestrator and depends only on the topic's history, never on which other
agent happened to finish first, which keeps offline runs reproducible.
The agent sees what it read (the passages of each page most relevant to its
task) and its own earlier thoughts; a search whose results it has all been
offered before is flagged, so it reformulates or stops. Every search obeys
the session's source policy (``tiers.py``) without the strict fallback: under
``strict`` the researcher never sees, so never reads, a lower-tier result, and a
search that strict leaves empty says so, so the agent reformulates toward
official or reference sources. Every search is limited to the period the
question asks about (``context.time_range``, read while planning). The finding keeps,
for every source it cites, the page's relevant passages nearly verbatim
(``evidence.py``): the writer and the critic read those, not one-liners.
An agent stuck on its todo may ask the supervisor instead (``ask_supervisor``):
the todo ends with what it has, the question and what it tried go to its file
and the envelope, and the supervisor answers at its next review (``help_requests``).
Writes ``items/item_N.json|md`` (the finding) and rewrites its
``agents/agent_N.md``; returns a small envelope.
"""

from __future__ import annotations

import logging

from shared.adapters.search.pipeline import normalize_url
from shared.core.errors import PermanentError, ResearchError
from shared.core.payloads import ResearcherIn, ResearcherOut
from shared.core.research_models import AgentState, Finding, HelpRequest, Observation
from shared.core.source_models import Page
from shared.ports import Services
from shared.usecases.research import help_requests, memory_files
from shared.usecases.research.evidence import (
    finding_excerpts,
    observation_passages,
    search_dates,
)
from shared.usecases.research.page_cache import fetch_cached
from shared.usecases.research.sources import sources_for

log = logging.getLogger(__name__)
RESULTS_PER_SEARCH = 6
SNIPPET_CHARS = 240
STRICT_EMPTY = (
    "the strict source policy left out all {count} results (tier 3-5: media, blogs, "
    "forums): reformulate the query to reach official or reference sources"
)


def run_researcher(svc: Services, req: ResearcherIn) -> ResearcherOut:
    sid, agent_id = req.context.session_id, req.profile.agent_id
    notes = memory_files.agent_notes(svc.memory, sid, agent_id)
    _write_agent(svc, req, notes, "in_progress")
    state = AgentState(
        context=req.context,
        profile=req.profile,
        todo=req.todo,
        max_steps=req.max_steps,
        own_notes=memory_files.last_notes(notes),
        main_insights=memory_files.key_insights(svc.memory, sid),
    )
    asked: list[HelpRequest] = []
    try:
        pages = _loop(svc, state, {normalize_url(u) for u in req.read_urls}, asked)
        finding = _finding(svc, state, pages, req)
    except PermanentError as exc:  # a transient one raises: Durable runs the researcher again
        _write_agent(svc, req, notes, "failed")
        return ResearcherOut(
            ok=False,
            agent_id=agent_id,
            todo_id=req.todo.id,
            topic_id=req.todo.topic_id,
            steps=state.step,
            error=f"{type(exc).__name__}: {exc}"[:300],
        )
    ref = svc.memory.write(sid, f"{req.item}.json", finding.model_dump_json(), "application/json")
    svc.memory.write(sid, f"{req.item}.md", memory_files.finding_markdown(finding), "text/markdown")
    note = (
        f"### {req.todo.id}: {req.todo.topic}\n\n{finding.summary}\n\n"
        f"{len(finding.key_findings)} key findings from {len(finding.sources)} sources "
        f"in {state.step} steps ({req.item}.md).\n\n"
    )
    _write_agent(svc, req, notes, "done")
    svc.memory.append(sid, memory_files.agent_file(agent_id), req.todo.id, note)
    for request in asked:  # the question, in the agent's own file, until it is answered
        help_requests.record_question(svc.memory, sid, request)
    return ResearcherOut(
        ok=True,
        agent_id=agent_id,
        todo_id=req.todo.id,
        topic_id=req.todo.topic_id,
        item_ref=ref,
        key_findings=len(finding.key_findings),
        source_urls=[s.url for s in finding.sources],
        confidence=finding.confidence,
        steps=state.step,
        help=asked[0] if asked else None,
    )


def _loop(
    svc: Services, state: AgentState, read_before: set[str], asked: list[HelpRequest]
) -> list[Page]:
    pages: list[Page] = []
    offered: set[str] = set()
    while state.step < state.max_steps:
        action = svc.reasoner.agent_step(state)
        state.step += 1
        if action.thought.strip():
            state.thoughts.append(action.thought.strip())
        if action.tool == "ask_supervisor":  # the todo ends; the next review answers
            asked.append(help_requests.question_of(state, action))
            break
        if action.tool == "done":
            break
        if action.tool == "web_search":
            observation = _search(svc, state, action.argument, offered, read_before)
            state.observations.append(observation)
            continue
        url = action.argument.strip()
        if normalize_url(url) not in offered:
            note = "refused: only URLs returned by your own searches can be opened"
            state.observations.append(Observation(tool="scrape_url", argument=url, note=note))
            continue
        if url in state.fetched_urls:
            state.observations.append(
                Observation(tool="scrape_url", argument=url, note="already read")
            )
            continue
        state.observations.append(_scrape(svc, state, url, pages))
    return pages


def _search(
    svc: Services, state: AgentState, query: str, offered: set[str], read_before: set[str]
) -> Observation:
    try:
        search = sources_for(svc, state.context.session_id, state.todo.topic).search
        found = search.search(query, RESULTS_PER_SEARCH, state.context.time_range)
    except ResearchError as exc:
        return Observation(tool="web_search", argument=query, note=f"search failed: {exc}"[:200])
    results, _ = svc.tiers.apply_policy(found, state.context.source_policy, fallback=False)
    results = sorted(results, key=lambda r: normalize_url(r.url) in read_before)  # stable
    trimmed = [r.model_copy(update={"snippet": r.snippet[:SNIPPET_CHARS]}) for r in results]
    urls = {normalize_url(r.url) for r in trimmed}
    note = "" if trimmed else "no results: reformulate the query"
    if found and not trimmed:
        note = STRICT_EMPTY.format(count=len(found))
    if trimmed and urls <= offered:
        note = "every result was already offered before: reformulate the query or stop (done)"
    offered.update(urls)
    return Observation(tool="web_search", argument=query, results=trimmed, note=note)


def _scrape(svc: Services, state: AgentState, url: str, pages: list[Page]) -> Observation:
    try:
        fetcher = sources_for(svc, state.context.session_id).fetcher
        page = fetch_cached(svc.memory, fetcher, state.context.session_id, url)
    except ResearchError as exc:
        return Observation(tool="scrape_url", argument=url, note=f"could not read: {exc}"[:200])
    pages.append(page)
    state.fetched_urls.append(url)
    return Observation(
        tool="scrape_url",
        argument=url,
        page_urls=[url],
        passages=observation_passages(page, _task_text(state)),
        note=f"read {page.title or url} ({len(page.text)} characters)",
    )


def _task_text(state: AgentState) -> str:
    todo = state.todo
    return " ".join([todo.topic, todo.instruction, *todo.queries])


def _finding(svc: Services, state: AgentState, pages: list[Page], req: ResearcherIn) -> Finding:
    finding = svc.reasoner.write_finding(state, pages)
    fetched = {p.url for p in pages}
    finding.key_findings = [
        k.model_copy(update={"source_urls": [u for u in k.source_urls if u in fetched]})
        for k in finding.key_findings
        if any(u in fetched for u in k.source_urls)
    ]
    finding.sources = [s for s in finding.sources if s.url in fetched]
    finding.agent_id, finding.topic_id, finding.todo_id = (
        req.profile.agent_id,
        req.todo.topic_id,
        req.todo.id,
    )
    finding.topic = finding.topic or req.todo.topic
    finding.excerpts = finding_excerpts(
        finding, pages, _task_text(state), search_dates(state.observations)
    )
    return finding


def _write_agent(svc: Services, req: ResearcherIn, notes: str, status: str) -> None:
    todos = [
        t.model_copy(update={"status": status}) if t.id == req.todo.id else t
        for t in (req.agent_todos or [req.todo])
    ]
    memory_files.write_agent(svc.memory, req.context.session_id, req.profile, todos, notes)
