// The two forms through which a session waits for a person: clarifying
// questions, and the plan to approve, edit or cancel. Split from app.js so each
// wait's form lives in one place; show() in app.js calls showQuestions and
// showPlan on every view, and the forms post the person's reply back.

import { requestJson } from "./client.js";
import { $, current, show } from "./app.js";
import { failed } from "./notices.js";

const NO_PREFERENCE = "no preference";

// Post a person's decision on the session on screen (`action`: clarification,
// plan, cancel) and show the view it answers with, unless they have moved to
// another session meanwhile. The button stays disabled while the request runs,
// so one click sends one decision.
export async function decide(action, body, event, button) {
  const session = current;
  if (button) button.disabled = true;
  try {
    const view = await requestJson(`research/${encodeURIComponent(session.id)}/${action}`,
      { method: "POST", body });
    if (current === session) show(view, event);
  } catch (error) {
    failed(error);
  } finally {
    if (button) button.disabled = false;
  }
}

export function showQuestions(view) {
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

export function answer(event) {
  event.preventDefault();
  const answers = [...$("questions").querySelectorAll("textarea")]
    .map((input) => input.value.trim() || NO_PREFERENCE);
  decide("clarification", { answers }, "answered",
    event.currentTarget.querySelector("button[type=submit]"));
}

// -- the plan, waiting for approval ----------------------------------------------
//
// Shown as a form: each topic's title in a text input (a value, never HTML), its
// searches as text, a button to remove it, and the agent count. Approving sends
// "approve" when nothing changed and "edit" with the changes otherwise.

export function showPlan(view) {
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

export function decidePlan(body, button) {
  return decide("plan", body, PLAN_EVENT[body.action], button);
}

export function approvePlan(event) {
  event.preventDefault();
  const form = event.currentTarget;
  for (const input of $("plan-topics").querySelectorAll("input")) {
    input.setCustomValidity(input.value.trim() ? "" : "Give the topic a title.");
  }
  if (!form.reportValidity()) return;
  decidePlan(planDecision(), form.querySelector("button[type=submit]"));
}
