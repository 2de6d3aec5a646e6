// The page: ask, watch, answer, read. Every string from the service lands in
// the DOM as text (textContent) or through report.js; nothing is parsed as HTML.

import { ApiError, download, functionKey, request, requestJson, setFunctionKey } from "./client.js";
import { follow } from "./events.js";
import { TERMINAL, addTimeline, clearTimeline, renderView, statusText } from "./progress.js";
import { renderReport } from "./report.js";

const CHAT_STORAGE = "deep-research.chat-id";
const CHAT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const NO_PREFERENCE = "no preference";
const $ = (id) => document.getElementById(id);

// The session on screen: its id, latest view, and how to stop following it.
let current = null;

// -- notices -------------------------------------------------------------------

function notify(message, action) {
  $("notice-text").textContent = message;
  const button = $("notice-action");
  button.hidden = !action;
  if (action) {
    button.textContent = action.label;
    button.onclick = () => { closeNotice(); action.run(); };
  }
  $("notice").hidden = false;
}

function closeNotice() {
  $("notice").hidden = true;
}

function failed(error) {
  if (!(error instanceof ApiError)) {
    notify(`Could not reach the service: ${error.message}`);
    return;
  }
  if (error.code === "unauthorized") {
    $("access").open = true;
    $("key").focus();
  }
  if (error.code === "active_session" && error.details[0]?.active_session_id) {
    const id = error.details[0].active_session_id;
    notify(error.message, { label: "Open the running research", run: () => openSession(id, true) });
    return;
  }
  notify(error.message);
}

// -- asking --------------------------------------------------------------------

function requestBody() {
  const mode = $("mode").value;
  const options = {};
  if (mode !== "chat" && $("policy").value) options.source_policy = $("policy").value;
  if (mode === "deep_research") {
    if ($("agents").value) options.num_agents = Number($("agents").value);
    if ($("max-tokens").value) options.max_tokens = Number($("max-tokens").value);
    options.enable_clarifying_questions = $("clarify").checked;
    options.run_deep_search_first = $("deep-search-first").checked;
    // Only when asked: unticked leaves the deployment's default in force.
    if ($("plan-approval").checked) options.require_plan_approval = true;
  }
  return { query: $("query").value.trim(), mode, chat_id: $("chat-id").value, options };
}

// Runs once the browser's own checks (required, pattern, min/max) have passed.
async function start(event) {
  event.preventDefault();
  if (!$("query").value.trim()) {
    $("query").setCustomValidity("Type a question.");
    event.currentTarget.reportValidity();
    return;
  }
  const button = $("start");
  button.disabled = true;
  try {
    const view = await requestJson("research", { method: "POST", body: requestBody() });
    closeNotice();
    await openSession(view.session_id, true, view);
    refreshHistory();
  } catch (error) {
    failed(error);
  } finally {
    button.disabled = false;
  }
}

function showModeOptions() {
  const mode = $("mode").value;
  $("research-options").hidden = mode !== "deep_research";
  $("search-options").hidden = mode === "chat";
}

// -- one session ---------------------------------------------------------------

async function openSession(id, push = false, known = null) {
  current?.stop?.();
  const session = { id, view: null, stop: null, reportShown: false, asked: "",
    plan: null, planShown: "" };
  current = session;
  if (push) history.pushState(null, "", `?session=${encodeURIComponent(id)}`);
  $("session").hidden = false;
  $("report").hidden = true;
  $("report").replaceChildren();
  $("downloads").hidden = true;
  $("report-note").hidden = true;
  $("clarification").hidden = true;
  $("plan").hidden = true;
  clearTimeline();
  markOpenInHistory();
  let view = known;
  try {
    view ??= await requestJson(`research/${encodeURIComponent(id)}`);
  } catch (error) {
    failed(error);
    return;
  }
  if (current !== session) return; // another session was opened meanwhile
  $("session-title").focus();
  show(view, "opened");
  if (!TERMINAL.has(view.status)) followSession(session);
}

function followSession(session) {
  const id = session.id;
  session.stop = follow(`research/${encodeURIComponent(id)}/events`, {
    onEvent: (type, data) => {
      let view;
      try { view = JSON.parse(data); } catch { return; }
      if (current === session && view && view.status) show(view, type);
    },
    onEnd: async () => {
      if (current !== session || TERMINAL.has(session.view?.status)) return;
      try { show(await requestJson(`research/${encodeURIComponent(id)}`), "ended"); } catch (e) { failed(e); }
    },
    onError: failed,
  });
}

function show(view, type) {
  const wasTerminal = TERMINAL.has(current.view?.status);
  current.view = view;
  renderView(view);
  addTimeline(type, view);
  showQuestions(view);
  showPlan(view);
  if (TERMINAL.has(view.status) && !wasTerminal) {
    current.stop?.();
    showReport(view);
    refreshHistory();
  }
}

function showQuestions(view) {
  const form = $("clarification");
  const questions = view.clarification?.questions || [];
  const waiting = view.status === "waiting_clarification" && questions.length > 0;
  form.hidden = !waiting;
  if (!waiting || current.asked === questions.join("\n")) return;
  current.asked = questions.join("\n");
  $("questions").replaceChildren(...questions.map((question, i) => {
    const field = document.createElement("div");
    field.className = "stack";
    const label = document.createElement("label");
    label.htmlFor = `answer-${i}`;
    label.textContent = question;
    const input = document.createElement("textarea");
    input.id = `answer-${i}`;
    input.name = `answer-${i}`;
    input.rows = 2;
    input.maxLength = 2000;
    field.append(label, input);
    return field;
  }));
  $("answer-0").focus();
}

async function answer(event) {
  event.preventDefault();
  const session = current;
  const answers = [...$("questions").querySelectorAll("textarea")]
    .map((input) => input.value.trim() || NO_PREFERENCE);
  const button = event.currentTarget.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const view = await requestJson(`research/${encodeURIComponent(session.id)}/clarification`,
      { method: "POST", body: { answers } });
    if (current === session) show(view, "answered");
  } catch (error) {
    failed(error);
  } finally {
    button.disabled = false;
  }
}

// -- the plan, waiting for approval ----------------------------------------------
//
// Shown as a form: each topic's title in a text input (a value, never HTML), its
// searches as text, a button to remove it, and the agent count. Approving sends
// "approve" when nothing changed and "edit" with the changes otherwise.

function showPlan(view) {
  const form = $("plan");
  const plan = view.plan;
  const waiting = view.status === "waiting_plan_approval" && plan?.status === "waiting";
  form.hidden = !waiting;
  if (waiting) $("cancel").hidden = true; // the form has its own
  if (!waiting) return;
  const key = JSON.stringify([plan.deadline, plan.num_agents, plan.topics]);
  if (current.planShown === key) return; // keep what the user is editing
  current.planShown = key;
  current.plan = plan;
  $("plan-summary").textContent = plan.summary || "";
  $("plan-summary").hidden = !plan.summary;
  $("plan-topics").replaceChildren(...plan.topics.map(topicItem));
  const agents = $("plan-agents");
  agents.value = String(plan.num_agents);
  agents.dataset.planned = String(plan.num_agents);
  boundAgents();
  const deadline = new Date(plan.deadline);
  $("plan-deadline").textContent = Number.isNaN(deadline.getTime()) ? ""
    : `Without an answer by ${deadline.toLocaleString("en-GB")}, the plan goes ahead as proposed.`;
  $("plan-topics").querySelector("input")?.focus();
}

function topicItem(topic, index) {
  const item = document.createElement("li");
  item.dataset.topicId = String(topic.id);
  item.dataset.title = topic.title;
  const inputId = `plan-topic-${index}`;
  const label = document.createElement("label");
  label.htmlFor = inputId;
  label.textContent = `Topic ${index + 1} title`;
  const row = document.createElement("div");
  row.className = "topic-row";
  const input = document.createElement("input");
  input.id = inputId;
  input.type = "text";
  input.required = true;
  input.maxLength = 200;
  input.dir = "auto";
  input.value = topic.title;
  input.addEventListener("input", () => input.setCustomValidity(""));
  const remove = document.createElement("button");
  remove.type = "button";
  remove.className = "secondary small";
  remove.textContent = "Remove";
  remove.setAttribute("aria-label", `Remove topic ${index + 1}`);
  remove.addEventListener("click", () => removeTopic(item));
  row.append(input, remove);
  item.append(label, row);
  if (topic.queries?.length) {
    const searches = document.createElement("ul");
    searches.setAttribute("aria-label", `Searches for topic ${index + 1}`);
    searches.append(...topic.queries.map((query) => {
      const entry = document.createElement("li");
      entry.dir = "auto";
      entry.textContent = query;
      return entry;
    }));
    item.append(searches);
  }
  return item;
}

function removeTopic(item) {
  const next = item.nextElementSibling || item.previousElementSibling;
  item.remove();
  boundAgents();
  (next?.querySelector("input") || $("plan-agents")).focus();
}

// At most one agent per topic and no more than the session's cap; a plan keeps one topic.
function boundAgents() {
  const items = $("plan-topics").children;
  const most = Math.max(1, Math.min(current.plan.max_agents, items.length));
  const agents = $("plan-agents");
  agents.max = String(most);
  if (Number(agents.value) > most) agents.value = String(most);
  $("plan-agents-hint").textContent =
    `1 to ${most}: at most ${current.plan.max_agents} for this session, and one per topic.`;
  for (const button of $("plan-topics").querySelectorAll("button")) {
    button.disabled = items.length < 2;
  }
}

/** The decision the form describes: approve when unchanged, else the edit. */
function planDecision() {
  const plan = current.plan;
  const items = [...$("plan-topics").children];
  const topics = items.map((item) => ({
    id: Number(item.dataset.topicId),
    title: item.querySelector("input").value.trim(),
  }));
  const reworded = items.some((item, i) => topics[i].title !== item.dataset.title);
  const topicsChanged = reworded || items.length !== plan.topics.length;
  const agents = Number($("plan-agents").value);
  const agentsChanged = agents !== plan.num_agents;
  if (!topicsChanged && !agentsChanged) return { action: "approve" };
  const decision = { action: "edit" };
  if (topicsChanged) decision.topics = topics;
  if (agentsChanged) decision.num_agents = agents;
  return decision;
}

const PLAN_EVENT = { approve: "plan approved", edit: "plan edited", cancel: "cancel requested" };

async function decidePlan(body, button) {
  const session = current;
  button.disabled = true;
  try {
    const view = await requestJson(`research/${encodeURIComponent(session.id)}/plan`,
      { method: "POST", body });
    if (current === session) show(view, PLAN_EVENT[body.action]);
  } catch (error) {
    failed(error);
  } finally {
    button.disabled = false;
  }
}

function approvePlan(event) {
  event.preventDefault();
  const form = event.currentTarget;
  for (const input of $("plan-topics").querySelectorAll("input")) {
    input.setCustomValidity(input.value.trim() ? "" : "Give the topic a title.");
  }
  if (!form.reportValidity()) return;
  decidePlan(planDecision(), form.querySelector("button[type=submit]"));
}

async function cancel() {
  const session = current;
  try {
    const view = await requestJson(`research/${encodeURIComponent(session.id)}/cancel`,
      { method: "POST" });
    if (current === session) show(view, "cancel requested");
  } catch (error) {
    failed(error);
  }
}

// -- the report ----------------------------------------------------------------

async function showReport(view) {
  const session = current;
  if (session.reportShown) return;
  session.reportShown = true;
  const base = `research/${encodeURIComponent(view.session_id)}/report`;
  try {
    const [markdown, json] = await Promise.all([
      request(`${base}?format=md`).then((r) => r.text()),
      requestJson(`${base}?format=json`),
    ]);
    if (current !== session) return;
    const article = $("report");
    article.lang = view.language || "";
    renderReport(article, markdown, json.sources);
    article.hidden = false;
    $("download-pdf").hidden = view.mode !== "deep_research";
    $("downloads").hidden = false;
  } catch (error) {
    if (current !== session) return;
    const note = $("report-note");
    note.textContent = error instanceof ApiError ? `No report: ${error.message}` : String(error);
    note.hidden = false;
  }
}

function downloadAs(kind) {
  const id = current.id;
  const paths = {
    md: [`report?format=md`, `research-${id}.md`],
    json: [`report?format=json`, `research-${id}.json`],
    pdf: [`report.pdf`, `research-${id}.pdf`],
  };
  const [path, filename] = paths[kind];
  download(`research/${encodeURIComponent(id)}/${path}`, filename).catch(failed);
}

function focusCitedSource(event) {
  const link = event.target.closest("a.cite");
  if (!link) return;
  const target = document.getElementById(link.hash.slice(1));
  requestAnimationFrame(() => target?.focus({ preventScroll: true }));
}

// -- the chat's sessions -------------------------------------------------------

async function refreshHistory() {
  const chat = $("chat-id").value;
  if (!CHAT_ID.test(chat)) return;
  try {
    const { sessions } = await requestJson(`chats/${encodeURIComponent(chat)}/sessions`);
    $("history-empty").hidden = sessions.length > 0;
    $("history").replaceChildren(...sessions.map(historyItem));
    markOpenInHistory();
  } catch (error) {
    failed(error);
  }
}

function historyItem(view) {
  const item = document.createElement("li");
  const button = document.createElement("button");
  button.type = "button";
  button.className = "session-link";
  button.dataset.session = view.session_id;
  const query = document.createElement("span");
  query.className = "session-query";
  query.dir = "auto";
  query.textContent = view.query;
  const meta = document.createElement("span");
  meta.className = "session-meta";
  const created = new Date(view.created_at).toLocaleString("en-GB");
  meta.textContent = `${view.mode.replaceAll("_", " ")} · ${statusText(view.status)} · ${created}`;
  button.append(query, meta);
  button.addEventListener("click", () => openSession(view.session_id, true));
  item.append(button);
  return item;
}

function markOpenInHistory() {
  for (const button of document.querySelectorAll(".session-link")) {
    if (button.dataset.session === current?.id) button.setAttribute("aria-current", "true");
    else button.removeAttribute("aria-current");
  }
}

// -- set-up --------------------------------------------------------------------

function newChatId() {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `web-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function openFromUrl() {
  const id = new URLSearchParams(location.search).get("session");
  if (id && id !== current?.id) openSession(id);
}

function init() {
  const chat = $("chat-id");
  chat.value = localStorage.getItem(CHAT_STORAGE) || newChatId();
  localStorage.setItem(CHAT_STORAGE, chat.value);
  chat.addEventListener("change", () => {
    if (!chat.checkValidity()) return;
    localStorage.setItem(CHAT_STORAGE, chat.value);
    refreshHistory();
  });
  $("key").value = functionKey();
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    setFunctionKey($("key").value.trim());
    $("access").open = false;
    closeNotice();
    refreshHistory();
    if (current) openSession(current.id);
  });
  $("forget-key").addEventListener("click", () => { setFunctionKey(""); $("key").value = ""; });
  $("query").addEventListener("input", (event) => event.target.setCustomValidity(""));
  $("mode").addEventListener("change", showModeOptions);
  $("ask").addEventListener("submit", start);
  $("clarification").addEventListener("submit", answer);
  $("cancel").addEventListener("click", cancel);
  $("plan").addEventListener("submit", approvePlan);
  $("plan-cancel").addEventListener("click",
    (event) => decidePlan({ action: "cancel" }, event.currentTarget));
  $("download-md").addEventListener("click", () => downloadAs("md"));
  $("download-json").addEventListener("click", () => downloadAs("json"));
  $("download-pdf").addEventListener("click", () => downloadAs("pdf"));
  $("report").addEventListener("click", focusCitedSource);
  $("refresh-history").addEventListener("click", refreshHistory);
  $("notice-close").addEventListener("click", closeNotice);
  window.addEventListener("popstate", openFromUrl);
  showModeOptions();
  openFromUrl();
  refreshHistory();
}

init();
