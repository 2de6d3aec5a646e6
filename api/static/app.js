// The page: ask, watch, answer, read. Every string from the service lands in
// the DOM as text (textContent) or through report.js; nothing is parsed as HTML.

import { hideAsk, initAsk, showAsk } from "./ask.js";
import { collectionOptions, setUpCollections } from "./collections.js";
import { ApiError, download, functionKey, request, requestJson, setFunctionKey } from "./client.js";
import { renderChain } from "./chain.js";
import { follow } from "./events.js";
import { hideFollowUps, initFollowUps, showFollowUps } from "./followup.js";
import { CHAT_STORAGE, markOpenInHistory, newChatId, refreshHistory } from "./history.js";
import { closeNotice, failed } from "./notices.js";
import { renderPhases } from "./phases.js";
import { TERMINAL, addTimeline, clearTimeline, renderView } from "./progress.js";
import { renderReport } from "./report.js";
import { renderTopicSources } from "./topics.js";
import { answer, approvePlan, decide, decidePlan, showPlan, showQuestions } from "./waits.js";
import { clearWriting, hideWriting, writeChunk } from "./writing.js";

export const $ = (id) => document.getElementById(id);

// The session on screen: its id, latest view, and how to stop following it.
export let current = null;

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
  if (mode !== "chat") collectionOptions(options);
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

export async function openSession(id, push = false, known = null) {
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
  hideAsk();
  hideFollowUps();
  clearTimeline();
  clearWriting();
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
      if (type === "answer_chunk") { if (current === session) writeChunk(data); return; }
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

export function show(view, type) {
  const wasTerminal = TERMINAL.has(current.view?.status);
  current.view = view;
  renderView(view);
  renderChain(view);
  renderPhases(view);
  renderTopicSources(view);
  addTimeline(type, view);
  showQuestions(view);
  showPlan(view);
  if (TERMINAL.has(view.status) && !wasTerminal) {
    current.stop?.();
    showReport(view);
    refreshHistory();
  }
}

function cancel() {
  decide("cancel", undefined, "cancel requested");
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
    hideWriting();
    article.hidden = false;
    $("download-pdf").hidden = view.mode !== "deep_research";
    $("downloads").hidden = false;
    if (view.mode !== "chat") showAsk(view.session_id);
    showFollowUps(view, json);
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

// -- set-up --------------------------------------------------------------------

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
  initAsk();
  initFollowUps((view) => { openSession(view.session_id, true, view); refreshHistory(); });
  showModeOptions();
  openFromUrl();
  refreshHistory();
  setUpCollections();
}

init();
