// Your documents: the collections a question may research, and files picked or dropped
// into one. Every string from the service lands in the DOM as text (textContent).

import { apiUrl, authHeaders, errorOf, requestJson } from "./client.js";
import { followCollection } from "./collection_follow.js";
import { failed } from "./notices.js";

const $ = (id) => document.getElementById(id);

/** The chosen collection into a research request's options (documents only if ticked). */
export function collectionOptions(options) {
  const chosen = $("research-collection").value;
  if (!chosen) return;
  options.collections = [chosen];
  if ($("documents-only").checked) options.web = false;
}

export async function refreshCollections(select = "") {
  let listed;
  try {
    listed = (await requestJson("collections")).collections;
  } catch (error) {
    failed(error);
    return;
  }
  for (const id of ["research-collection", "upload-collection"]) {
    const box = $(id);
    const keep = select || box.value;
    const first = id === "research-collection" ? "None: the web only" : "Choose a collection";
    // the built-in collection may be researched, never uploaded into
    const shown = id === "upload-collection" ? listed.filter((c) => !c.read_only) : listed;
    box.replaceChildren(new Option(first, ""),
      ...shown.map((c) => new Option(c.name, c.collection_id)));
    box.value = shown.some((c) => c.collection_id === keep) ? keep : "";
  }
  $("documents-only").disabled = !$("research-collection").value;
}

async function createCollection() {
  const name = $("collection-name").value.trim();
  if (!name) return;
  try {
    const made = await requestJson("collections", { method: "POST", body: { name } });
    $("collection-name").value = "";
    await refreshCollections(made.collection_id);
    $("upload-collection").value = made.collection_id;
  } catch (error) {
    failed(error);
  }
}

async function upload(files) {
  const id = $("upload-collection").value;
  if (!id) {
    $("upload-status").textContent = "Choose or create a collection first.";
    return;
  }
  const form = new FormData();
  for (const file of files) form.append("file", file, file.name);
  $("upload-status").textContent = `Uploading ${files.length} file(s)…`;
  // The X-Requested-With header is what devhost asks of a multipart body.
  const response = await fetch(apiUrl(`collections/${encodeURIComponent(id)}/documents`), {
    method: "POST",
    headers: { ...authHeaders(), "X-Requested-With": "web-page" },
    body: form,
    credentials: "same-origin",
  });
  if (!response.ok) throw await errorOf(response);
  await follow(id);
}

function follow(id) {
  return followCollection(id, showDocuments);
}

function showDocuments(view) {
  const { queued, ingested, failed: broken } = view.progress;
  $("upload-status").textContent =
    `${view.name}: ${ingested} ingested, ${queued} queued, ${broken} failed; ${view.chunks} chunks.`;
  $("documents").replaceChildren(...view.documents.map((d) => {
    const item = document.createElement("li");
    const words = d.vectors === "missing" ? `; vectors missing, searched by words only: ${d.vector_error}` : "";
    const why = d.error ? `: ${d.error}` : d.status === "ingested" ? ` (${d.chunks} chunks${words})` : "";
    item.textContent = `${d.name}: ${d.status}${why}`;
    item.dataset.status = d.status;
    return item;
  }));
}

export function setUpCollections() {
  const picker = $("files");
  const zone = $("drop-zone");
  const send = (files) => upload([...files]).catch(failed);
  $("create-collection").addEventListener("click", createCollection);
  $("upload-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (picker.files.length) send(picker.files);
  });
  $("upload-collection").addEventListener("change", () => {
    const id = $("upload-collection").value;
    if (id) follow(id).catch(failed);
  });
  $("research-collection").addEventListener("change", () => {
    $("documents-only").disabled = !$("research-collection").value;
  });
  zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    if (event.dataTransfer?.files?.length) send(event.dataTransfer.files);
  });
  refreshCollections();
}
