// Asking a finished report: the box under it and the exchanges so far.
//
// An answer comes from the session's own sources (POST research/{id}/ask); its [n]
// are the report's numbers, so each links to that entry of the report's source list
// shown above. Everything from the service lands in the DOM as text.

import { requestJson } from "./client.js";
import { failed } from "./notices.js";

const $ = (id) => document.getElementById(id);
const CITED = /\[(\d+)\]/g;

// The session whose report the box asks about; null while none is shown.
let sessionId = null;

export function hideAsk() {
  sessionId = null;
  $("ask-report").hidden = true;
  $("asked").replaceChildren();
}

/** Show the box under session `id`'s report, with the questions already asked. */
export async function showAsk(id) {
  sessionId = id;
  $("asked").replaceChildren();
  $("ask-report").hidden = false;
  try {
    const { exchanges } = await requestJson(`research/${encodeURIComponent(id)}/asks`);
    if (sessionId === id) exchanges.forEach(addExchange);
  } catch (error) {
    failed(error);
  }
}

async function send(event) {
  event.preventDefault();
  const id = sessionId;
  const field = $("ask-question");
  const question = field.value.trim();
  if (!id || !question) {
    field.setCustomValidity("Type a question about the report.");
    event.currentTarget.reportValidity();
    return;
  }
  const button = $("ask-send");
  button.disabled = true;
  try {
    const exchange = await requestJson(`research/${encodeURIComponent(id)}/ask`,
      { method: "POST", body: { question } });
    if (sessionId !== id) return;
    addExchange(exchange);
    field.value = "";
  } catch (error) {
    failed(error);
  } finally {
    button.disabled = false;
  }
}

function addExchange(exchange) {
  const item = document.createElement("li");
  item.className = exchange.answered ? "exchange" : "exchange unanswered";
  const question = document.createElement("p");
  question.className = "asked-question";
  question.dir = "auto";
  question.textContent = exchange.question;
  const answer = document.createElement("p");
  answer.className = "asked-answer";
  answer.dir = "auto";
  answer.lang = exchange.language || "";
  answer.append(...cited(exchange.answer));
  item.append(question, answer);
  $("asked").append(item);
}

/** The answer as text nodes, each [n] a link to source n when the report lists it. */
function cited(text) {
  const nodes = [];
  let at = 0;
  for (const match of text.matchAll(CITED)) {
    nodes.push(document.createTextNode(text.slice(at, match.index)));
    const id = `source-${match[1]}`;
    if (document.getElementById(id)) {
      const link = document.createElement("a");
      link.href = `#${id}`;
      link.className = "cite";
      link.textContent = match[1];
      link.setAttribute("aria-label", `source ${match[1]}`);
      nodes.push(document.createTextNode("["), link, document.createTextNode("]"));
    } else {
      nodes.push(document.createTextNode(match[0]));
    }
    at = match.index + match[0].length;
  }
  nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}

export function initAsk() {
  $("ask-report-form").addEventListener("submit", send);
  $("ask-question").addEventListener("input", (event) => event.target.setCustomValidity(""));
}
