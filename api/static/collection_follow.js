// Following a collection's ingestion on the page: its events (one open response with
// HTTP_STREAMING=true, a long poll otherwise; events.js reads both), and polling GET
// when the events route cannot be followed (a host without it answers an error).

import { requestJson } from "./client.js";
import { follow } from "./events.js";

const POLL_MS = 700;
let stopCurrent = () => {};

/** Show each state of collection `id` with `show(view)` until nothing is queued.
 * Following another collection stops following this one. */
export function followCollection(id, show) {
  stopCurrent();
  const path = `collections/${encodeURIComponent(id)}`;
  return new Promise((resolve, reject) => {
    let stopped = false;
    const stop = follow(`${path}/events`, {
      onEvent: (type, data) => {
        show(JSON.parse(data));
        if (type === "ingested") { stop(); resolve(); }
      },
      onEnd: resolve,
      // the GET says what is wrong if the collection itself cannot be read
      onError: () => poll(path, show, () => stopped).then(resolve, reject),
    });
    stopCurrent = () => { stopped = true; stop(); resolve(); };
  });
}

async function poll(path, show, stopped) {
  while (!stopped()) {
    const view = await requestJson(path);
    show(view);
    if (!view.progress.queued) return;
    await new Promise((done) => setTimeout(done, POLL_MS));
  }
}
