// With collections: which topics rested on your documents and which on the web too
// (the status's topic_sources, the corrective judge's verdict per topic), as text only.

const $ = (id) => document.getElementById(id);

/** Where one topic's research came from, in words. */
export function topicSourceText(topic) {
  const quotes = topic.evidence?.length || 0;
  const evidence = `${quotes} quoted passage${quotes === 1 ? "" : "s"}`;
  if (topic.source === "web") return `the web too: your documents do not cover it (${evidence})`;
  if (!topic.covered) return `your documents, which do not cover it; no web (${evidence})`;
  return `your documents alone (${evidence})`;
}

/** Show the topics judged so far (a research of collections only; else hidden). */
export function renderTopicSources(view) {
  const topics = view.topic_sources || [];
  $("topic-sources-box").hidden = topics.length === 0;
  $("topic-sources").replaceChildren(...topics.map((topic) => {
    const item = document.createElement("li");
    item.dataset.source = topic.source;
    item.textContent = `${topic.topic} — ${topicSourceText(topic)}`;
    if (topic.evidence?.length) item.title = topic.evidence.join("\n");
    return item;
  }));
}
