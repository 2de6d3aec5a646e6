// Citations of a collection's document: links that open the stored original.
//
// The original is served only to its owner (GET /api/collections/{id}/documents/{id}),
// so a plain link could not send the page's credentials (the x-functions-key header).
// A click fetches it with them instead: a PDF opens in a new tab as a blob URL, keeping
// `#page=N`; anything else is saved under its own name (the API serves it as an
// attachment, and a blob of another type must not be rendered under this origin).

import { request } from "./client.js";
import { failed } from "./notices.js";

// As the server writes them (shared/adapters/documents/collection_search.py).
const DOCUMENT = /^\/api\/(collections\/[A-Za-z0-9_-]+\/documents\/[0-9a-f]+)(#page=\d+)?$/;
const FILENAME = /filename="([^"]*)"/;

export function isDocumentLink(href) {
  return DOCUMENT.test(href);
}

/** Make `link` (an <a> with a document's href) open the original with the credentials. */
export function linkDocument(link) {
  const [, path, page = ""] = link.getAttribute("href").match(DOCUMENT);
  link.classList.add("document-link");
  link.title = "Opens the stored original (with your credentials)";
  link.addEventListener("click", (event) => {
    event.preventDefault();
    // opened now, inside the click, so that no popup blocker stops it; filled below
    const tab = window.open("", "_blank");
    if (tab) tab.opener = null;
    openOriginal(path, page, tab, link.textContent).catch((error) => {
      tab?.close();
      failed(error); // e.g. 404: the document was deleted since the report was written
    });
  });
}

async function openOriginal(path, page, tab, label) {
  const response = await request(path);
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  if (blob.type === "application/pdf" && tab) {
    tab.location.href = `${url}${page}`;
    return;
  }
  tab?.close();
  const named = (response.headers.get("Content-Disposition") || "").match(FILENAME);
  const save = document.createElement("a");
  save.href = url;
  save.download = named ? named[1] : label.trim() || "document";
  document.body.append(save);
  save.click();
  save.remove();
}
