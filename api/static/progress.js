// The live status panel: what the session view says, as text (never as HTML).

const STATUS_TEXT = {
  active: "running",
  waiting_clarification: "waiting for your answers",
  waiting_plan_approval: "waiting for your approval of the plan",
  researching: "researching",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
  superseded: "superseded by a newer question",
};
export const TERMINAL = new Set(["completed", "failed", "cancelled", "superseded"]);
const TIMELINE_MAX = 200;

const $ = (id) => document.getElementById(id);

export function statusText(status) {
  return STATUS_TEXT[status] || status;
}

export function phaseText(phase) {
  return (phase || "").replaceAll("_", " ");
}

/** Slow model calls still running: a local model at work, not a hang. */
export function modelCallsText(calls) {
  return (calls || [])
    .map((call) => `${call.model} writing for ${call.running_seconds} s`)
    .join(", ");
}

/** Show one session view (GET research/{id}, or an SSE event's data). */
export function renderView(view) {
  const progress = view.progress || {};
  const usage = view.usage || {};
  $("session-query").textContent = view.query;
  $("status").textContent = statusText(view.status);
  $("status").dataset.status = view.status;
  $("phase").textContent = phaseText(view.phase);
  $("sources-count").textContent = String(progress.source_count ?? 0);
  $("findings-count").textContent = String(progress.findings ?? 0);
  // read is not cited: the report cites only the sources with a passage about the question
  const cited = view.result?.report?.source_count ?? view.result?.answer?.sources?.length;
  $("cited-count").textContent = cited === undefined ? "—" : String(cited);
  const tokens = (usage.prompt_tokens || 0) + (usage.completion_tokens || 0);
  $("tokens").textContent = `${tokens.toLocaleString("en")} (${usage.llm_calls || 0} calls)`;
  $("cost").textContent = `$${(usage.cost || 0).toFixed(4)}`;
  $("live-message").textContent = [progress.message, modelCallsText(view.model_calls)]
    .filter(Boolean).join(" · ");
  const error = $("session-error");
  error.hidden = !view.error;
  error.textContent = view.error ? `Error: ${view.error}` : "";
  renderAgents(progress.agents || []);
  renderWarnings(view.warnings || []);
  $("cancel").hidden = TERMINAL.has(view.status);
  document.title = `${statusText(view.status)} · ${view.query} — Deep research`;
}

function renderAgents(agents) {
  $("agents-box").hidden = agents.length === 0;
  $("agents-list").replaceChildren(...agents.map((agent) => {
    const item = document.createElement("li");
    const name = document.createElement("strong");
    name.textContent = `Agent ${agent.id}`;
    const profile = agent.profile ? ` · ${agent.profile}` : "";
    const doing = agent.todo ? `working on: ${agent.todo}` : "idle";
    const detail = document.createElement("span");
    detail.textContent = `${profile} — ${doing} (${agent.done || 0} done)`;
    item.append(name, detail);
    return item;
  }));
}

function renderWarnings(warnings) {
  $("warnings-box").hidden = warnings.length === 0;
  $("warnings").replaceChildren(...warnings.map((warning) => {
    const item = document.createElement("li");
    item.textContent = `${phaseText(warning.phase)}: ${warning.message}`;
    return item;
  }));
}

/** One line per event: what changed, so a person can watch the agents work. */
export function addTimeline(type, view) {
  const list = $("timeline");
  const progress = view.progress || {};
  const item = document.createElement("li");
  item.dataset.event = type;
  item.dataset.phase = view.phase || "";
  item.dataset.sources = String(progress.source_count ?? 0);
  const time = document.createElement("time");
  const now = new Date();
  time.dateTime = now.toISOString();
  time.textContent = now.toLocaleTimeString("en-GB");
  const text = document.createElement("span");
  text.textContent = ` ${type.replaceAll("_", " ")} — ${phaseText(view.phase)}: `
    + `${progress.source_count ?? 0} sources read, ${progress.findings ?? 0} findings`
    + (progress.message ? ` — ${progress.message}` : "");
  item.append(time, text);
  list.append(item);
  while (list.children.length > TIMELINE_MAX) list.firstElementChild.remove();
  $("timeline-count").textContent = String(list.children.length);
}

export function clearTimeline() {
  $("timeline").replaceChildren();
  $("timeline-count").textContent = "0";
}
