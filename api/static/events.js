// Server-Sent Events read with fetch(), as EventSource would read them.
//
// Why not EventSource: it cannot send headers, so the function key would have
// to ride in the URL. This follows the same protocol (the WHATWG event-stream
// format: id, event, data, retry, comments; Last-Event-ID on reconnect; a 204
// ends the stream), so it works with the API's long polling (one event per
// response, then reconnect) and with a continuous stream alike.

import { apiUrl, authHeaders, errorOf } from "./client.js";

const DEFAULT_RETRY_MS = 1000;
const FAILURE_RETRY_MS = 3000;

/**
 * Follow the event stream at `path`. `onEvent(type, data, id)` gets each event,
 * `onEnd()` the server's 204, `onError(ApiError)` a refusal (401, 404, ...).
 * Network failures and 5xx are retried, like EventSource does. Returns stop().
 */
export function follow(path, { onEvent, onEnd, onError }) {
  const abort = new AbortController();
  let retryMs = DEFAULT_RETRY_MS;
  const parser = new EventStreamParser(
    (event) => onEvent(event.type, event.data, event.id),
    (ms) => { retryMs = ms; },
  );

  async function connect() {
    const headers = { ...authHeaders(), Accept: "text/event-stream" };
    if (parser.lastId) headers["Last-Event-ID"] = parser.lastId;
    const response = await fetch(apiUrl(path), {
      headers, credentials: "same-origin", cache: "no-store", signal: abort.signal,
    });
    if (response.status === 204) return "end";
    if (response.status >= 500 || response.status === 429) return "retry";
    if (!response.ok) throw await errorOf(response);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.push(value);
    }
    parser.reset();
    return "reconnect";
  }

  (async () => {
    while (!abort.signal.aborted) {
      let outcome;
      try {
        outcome = await connect();
      } catch (error) {
        if (abort.signal.aborted) return;
        if (error.status) { onError(error); return; }
        outcome = "retry"; // the network: try again, as EventSource does
      }
      if (abort.signal.aborted) return;
      if (outcome === "end") { onEnd(); return; }
      await sleep(outcome === "retry" ? Math.max(retryMs, FAILURE_RETRY_MS) : retryMs);
    }
  })();

  return () => abort.abort();
}

/** The event-stream format, fed text as it arrives (lines may be split across chunks). */
export class EventStreamParser {
  constructor(dispatch, setRetry) {
    this.dispatch = dispatch;
    this.setRetry = setRetry;
    this.lastId = ""; // of the last complete event: sent as Last-Event-ID
    this.reset();
  }

  /** Forget a half-received event (the connection ended inside it). */
  reset() {
    this.buffer = "";
    this.idBuffer = this.lastId;
    this.type = "";
    this.data = [];
  }

  push(text) {
    this.buffer += text;
    const lines = this.buffer.split(/\r\n|\r|\n/);
    this.buffer = lines.pop(); // an unfinished line waits for the next chunk
    for (const line of lines) this.line(line);
  }

  line(line) {
    if (line === "") {
      this.lastId = this.idBuffer;
      if (this.data.length) {
        this.dispatch({ type: this.type || "message", data: this.data.join("\n"), id: this.lastId });
      }
      this.type = "";
      this.data = [];
      return;
    }
    if (line.startsWith(":")) return; // a comment: keep-alive
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.type = value;
    else if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) this.idBuffer = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.setRetry(Number(value));
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
