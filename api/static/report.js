// A report's Markdown as DOM: readable, linked, and never able to run anything.
//
// Report text and source titles come from web pages and models: untrusted.
// markdown-it runs with raw HTML off, so any tag in the text comes out as text,
// and its link check drops javascript:/vbscript:/file:/data: links. On top of
// that: images are not rendered (no request to a third party on opening a
// report), only http(s) links stay links (opened in a new tab, without the
// referrer), a collection document's link opens its original with the page's
// credentials (document_links.js), and every [n] citation links to source n of
// the report's own source list, matched by URL against report.json.

import { isDocumentLink, linkDocument } from "./document_links.js";
import markdownit from "./markdown-it.min.mjs";

const md = markdownit({ html: false, linkify: false, typographer: false }).disable("image");

// [3], [1, 2], [1-3] (as the server's shared/adapters/report/citations.py reads them); not [3](url).
const CITATION = /\[\s*(\d+(?:\s*[-–]\s*\d+)?(?:\s*,\s*\d+(?:\s*[-–]\s*\d+)?)*)\s*\](?!\()/g;
const NUMBER = /\d+/g;

/** Render `markdown` into `target`; `sources` are report.json's [{n, url, title}]. */
export function renderReport(target, markdown, sources) {
  const template = document.createElement("template");
  template.innerHTML = md.render(markdown); // escaped by markdown-it; the template is inert
  const root = template.content;
  markSources(root, sources || []);
  linkCitations(root);
  keepSafeLinks(root);
  target.replaceChildren(root);
}

/** Give each source's entry in the list an id: #source-n, the target of citation n. */
function markSources(root, sources) {
  const links = [...root.querySelectorAll("a[href]")];
  for (const source of sources) {
    const href = md.normalizeLink(source.url);
    const matching = links.filter((a) => a.getAttribute("href") === href);
    const link = matching[matching.length - 1]; // the source list comes after the text
    if (!link || !Number.isInteger(source.n)) continue;
    const entry = link.closest("li") || link;
    entry.id = `source-${source.n}`;
    entry.classList.add("source");
    entry.tabIndex = -1; // a followed citation moves the focus there
  }
}

function linkCitations(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.parentElement?.closest("a, code, pre")
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const texts = [];
  while (walker.nextNode()) texts.push(walker.currentNode);
  for (const text of texts) {
    const replaced = citationFragment(root, text.data);
    if (replaced) text.replaceWith(replaced);
  }
}

/** The text with its citations as links, or null when it has none to link. */
function citationFragment(root, data) {
  const fragment = document.createDocumentFragment();
  let at = 0;
  let linked = false;
  for (const match of data.matchAll(CITATION)) {
    fragment.append(data.slice(at, match.index));
    let inner = 0;
    for (const number of match[0].matchAll(NUMBER)) {
      fragment.append(match[0].slice(inner, number.index));
      const id = `source-${number[0]}`;
      if (root.getElementById(id)) {
        const link = document.createElement("a");
        link.href = `#${id}`;
        link.className = "cite";
        link.textContent = number[0];
        link.setAttribute("aria-label", `source ${number[0]}`);
        fragment.append(link);
        linked = true;
      } else {
        fragment.append(number[0]);
      }
      inner = number.index + number[0].length;
    }
    fragment.append(match[0].slice(inner));
    at = match.index + match[0].length;
  }
  fragment.append(data.slice(at));
  return linked ? fragment : null;
}

/** Web links open in a new tab without the referrer; anything else becomes text. */
function keepSafeLinks(root) {
  for (const link of root.querySelectorAll("a[href]")) {
    const href = link.getAttribute("href");
    if (href.startsWith("#")) continue;
    if (isDocumentLink(href)) { linkDocument(link); continue; } // a collection's original
    let url = null;
    try { url = new URL(href); } catch { /* relative or malformed: not a web link */ }
    if (url && (url.protocol === "https:" || url.protocol === "http:")) {
      link.target = "_blank";
      link.rel = "noopener noreferrer nofollow";
      continue;
    }
    const span = document.createElement("span");
    if (link.id) { // a source entry without a list item
      span.id = link.id;
      span.tabIndex = -1;
    }
    span.className = `${link.className} plain-link`.trim();
    span.title = href; // e.g. corpus://… of the local corpus: shown, not followed
    span.append(...link.childNodes);
    link.replaceWith(span);
  }
}
