// The chat's sessions: the chat id this browser keeps, and the list of the
// chat's sessions, each a button that opens it. Split from app.js so the list
// and the chat id's rules live together.

import { requestJson } from "./client.js";
import { statusText } from "./progress.js";
import { $, current, openSession } from "./app.js";
import { failed } from "./notices.js";

export const CHAT_STORAGE = "deep-research.chat-id";
const CHAT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export async function refreshHistory() {
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

export function markOpenInHistory() {
  for (const button of document.querySelectorAll(".session-link")) {
    if (button.dataset.session === current?.id) button.setAttribute("aria-current", "true");
    else button.removeAttribute("aria-current");
  }
}

// -- set-up --------------------------------------------------------------------

export function newChatId() {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `web-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
