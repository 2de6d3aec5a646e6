// The answer or report as the model writes it: `answer_chunk` events, shown as text.
//
// Each chunk is {seq, part, kind, text}; a part's text is its `text` chunks after
// its last `reset` (a retried step or a rewritten report starts again), and
// `done` means it now equals the stored answer. The text is shown as plain text
// (textContent, never parsed as HTML); the rendered report replaces it when the
// session ends. Not announced while it grows (aria-live off, aria-busy on): a
// screen reader reads the finished report instead of every few words.

const TITLES = { answer: "Answer", deep_search: "Deep search answer", report: "Report draft" };
const parts = new Map();
let shownPart = "";

const box = () => document.getElementById("writing");

/** Forget what was written (another session is opened). */
export function clearWriting() {
  parts.clear();
  shownPart = "";
  const section = box();
  section.hidden = true;
  document.getElementById("writing-text").textContent = "";
}

/** The finished report is on screen: the draft goes. */
export function hideWriting() {
  box().hidden = true;
}

/** One `answer_chunk` event's data (JSON text). */
export function writeChunk(data) {
  let chunk;
  try { chunk = JSON.parse(data); } catch { return; }
  if (!chunk || typeof chunk.part !== "string") return;
  const part = parts.get(chunk.part) ?? { text: "", done: false };
  if (chunk.kind === "reset") { part.text = ""; part.done = false; }
  if (chunk.kind === "done") part.done = true;
  if (typeof chunk.text === "string") part.text += chunk.text;
  parts.set(chunk.part, part);
  show(chunk.part, part);
}

function show(name, part) {
  const section = box();
  const text = document.getElementById("writing-text");
  if (name !== shownPart) {
    shownPart = name;
    document.getElementById("writing-title").textContent = TITLES[name] ?? name;
  }
  text.textContent = part.text;
  text.setAttribute("aria-busy", String(!part.done));
  section.dataset.part = name;
  section.dataset.done = String(part.done);
  section.hidden = !part.text;
}
