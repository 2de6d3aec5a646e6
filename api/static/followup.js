// Going on from a finished report: a button per follow-up question starts a deep
// research that builds on it (options.follow_up_of), and a follow-up names its parent.

import { requestJson } from "./client.js";
import { failed } from "./notices.js";

const $ = (id) => document.getElementById(id);

let started = () => {};

export function hideFollowUps() {
  $("follow-ups").hidden = true;
  $("follow-up-questions").replaceChildren();
  $("follows-up").hidden = true;
}

/** Under deep research `view`'s report (report.json as `report`): its parent, its questions. */
export function showFollowUps(view, report) {
  hideFollowUps();
  if (view.mode !== "deep_research") return;
  const parent = report.follow_up_of;
  if (parent) {
    const link = $("parent-link");
    link.href = `?session=${encodeURIComponent(parent.session_id)}`;
    link.textContent = parent.query;
    $("follows-up").hidden = false;
  }
  const questions = view.status === "completed" ? report.follow_up_questions || [] : [];
  for (const question of questions) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary follow-up";
    button.textContent = question;
    button.setAttribute("aria-label", `Research further: ${question}`);
    button.addEventListener("click", () => start(view.session_id, question, button));
    const item = document.createElement("li");
    item.append(button);
    $("follow-up-questions").append(item);
  }
  $("follow-ups").hidden = !parent && questions.length === 0;
}

// The question is the report's own and the parent gives its context: nothing to clarify.
async function start(parentId, question, button) {
  button.disabled = true;
  const options = { follow_up_of: parentId, enable_clarifying_questions: false };
  try {
    const view = await requestJson("research", { method: "POST", body: {
      query: question, mode: "deep_research", options } });
    started(view);
  } catch (error) {
    failed(error);
  } finally {
    button.disabled = false;
  }
}

/** `onStarted(view)` opens the new session (app.js owns that). */
export function initFollowUps(onStarted) {
  started = onStarted;
}
