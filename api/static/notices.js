// Notices: one line at the top of the page saying what went wrong, with an
// optional action (e.g. "Open the running research"). Split from app.js so the
// page's wiring reads without its error display; every module reports through
// failed(), which turns an API error into the service's own message.

import { ApiError } from "./client.js";
import { $, openSession } from "./app.js";

export function notify(message, action) {
  $("notice-text").textContent = message;
  const button = $("notice-action");
  button.hidden = !action;
  if (action) {
    button.textContent = action.label;
    button.onclick = () => { closeNotice(); action.run(); };
  }
  $("notice").hidden = false;
}

export function closeNotice() {
  $("notice").hidden = true;
}

export function failed(error) {
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
