"""The report as a PDF: Markdown → HTML (``markdown``) → PDF (xhtml2pdf).

Rendered once, after the report is final, and stored next to ``report.md``.
Fonts come from ``shared.adapters.report.fonts`` (why a registered TTF and not
``@font-face``: see there). Headings, lists, tables, code blocks and links
come straight from the Markdown; the title block is added here so the
Markdown stays readable on its own.

The renderer never fetches or reads anything: report text comes from web
pages and models, and a URL in it must not make the worker call out (nor tell
an image host who opened the report). Images are drawn as links to them, and
xhtml2pdf's ``link_callback`` refuses every resource the document names. The
fonts need no URL: they are registered with reportlab before rendering.
"""

from __future__ import annotations

import html
import io
import logging
import string
import xml.etree.ElementTree as etree
from pathlib import Path

import markdown
from markdown.treeprocessors import Treeprocessor
from xhtml2pdf import pisa

from shared.adapters.report.fonts import font_families
from shared.core.errors import PermanentError

log = logging.getLogger(__name__)

MARKDOWN_EXTENSIONS = ["tables", "fenced_code", "sane_lists"]
# What xhtml2pdf gets instead of any resource: an empty inline document, nothing to fetch.
NOTHING = "data:,"

_CSS = """
@page {{ size: a4 portrait; margin: 2cm 2cm 2cm 2cm; }}
body {{ font-family: {families}; font-size: 10.5pt; line-height: 1.35; }}
h1 {{ font-size: 20pt; margin: 0 0 6pt 0; }}
h2 {{ font-size: 15pt; margin: 14pt 0 4pt 0; color: #1f3a5f; }}
h3 {{ font-size: 12.5pt; margin: 10pt 0 3pt 0; }}
p {{ margin: 0 0 6pt 0; }}
a {{ color: #1a4f9c; text-decoration: underline; }}
table {{ border: 0.5pt solid #999999; padding: 3pt; }}
th {{ background-color: #e8edf3; font-weight: bold; }}
td, th {{ border: 0.5pt solid #999999; padding: 3pt; }}
pre {{ background-color: #f3f3f3; padding: 6pt; font-size: 9pt; }}
code {{ font-family: {families}; background-color: #f3f3f3; }}
blockquote {{ margin: 6pt 0 6pt 12pt; color: #555555; }}
.title-block {{ border-bottom: 1pt solid #1f3a5f; padding-bottom: 6pt; margin-bottom: 10pt; }}
.doc-title {{ font-size: 22pt; font-weight: bold; color: #1f3a5f; }}
"""


def markdown_to_html(markdown_text: str) -> str:
    """The HTML body for ``markdown_text``; raw HTML in it is shown as text.

    Report text comes from web pages and models, so it must never inject
    markup. Python-Markdown has no safe mode any more; dropping its two raw-HTML
    rules makes it escape such text like any other, inside code blocks too.
    Markdown images come out as links (``ImagesAsLinks``).
    """
    converter = markdown.Markdown(extensions=MARKDOWN_EXTENSIONS)  # not thread-safe: one per call
    converter.preprocessors.deregister("html_block")
    converter.inlinePatterns.deregister("html")
    # CommonMark lets a backslash escape any ASCII punctuation, and report.md is written
    # (and shown on the web page) by that rule: ``\<`` in a source title is a literal ``<``.
    converter.ESCAPED_CHARS = list(string.punctuation)
    converter.treeprocessors.register(ImagesAsLinks(converter), "images_as_links", 15)
    return converter.convert(markdown_text)


class ImagesAsLinks(Treeprocessor):
    """Every ``<img>`` becomes a link showing its text and URL: the reader sees where the
    image was, and xhtml2pdf has nothing to fetch. Runs after the inline patterns made
    the images (priority 20) and before escapes are restored (0)."""

    def run(self, root: etree.Element) -> None:
        in_links = {id(el) for link in root.iter("a") for el in link.iter()}
        for parent in list(root.iter()):
            for index, child in enumerate(parent):
                if child.tag == "img":
                    parent[index] = _image_as_link(child, inside_link=id(parent) in in_links)


def _image_as_link(image: etree.Element, inside_link: bool) -> etree.Element:
    """``alt (url)`` (or the URL alone); plain text inside a link, which cannot nest."""
    src, alt = image.get("src", ""), " ".join(image.get("alt", "").split())
    element = etree.Element("span" if inside_link else "a")
    if not inside_link:
        element.set("href", src)
    element.text = f"{alt} ({src})" if alt else src
    element.tail = image.tail
    return element


def refuse_resource(uri: object, base: object) -> str:
    """xhtml2pdf's ``link_callback``: every image, stylesheet or font URL is refused.

    Returning None would keep the original URI, so the refusal is an empty
    ``data:`` URI, which xhtml2pdf reads as a missing image.
    """
    log.warning("the PDF renderer refused to load %s", str(uri)[:200])
    return NOTHING


def render_html(markdown_text: str, title: str, families: list[str]) -> str:
    """A complete HTML document: title block + rendered Markdown."""
    body = markdown_to_html(_strip_leading_title(markdown_text, title))
    family_css = ", ".join(f'"{name}"' for name in families)
    return (
        "<html><head><meta charset='utf-8'/>"
        f"<style>{_CSS.format(families=family_css)}</style></head><body>"
        f"<div class='title-block'><div class='doc-title'>{html.escape(title)}</div></div>"
        f"{body}</body></html>"
    )


def _strip_leading_title(markdown_text: str, title: str) -> str:
    """Drop a first ``# {title}`` line: the title block already shows it."""
    lines = markdown_text.lstrip().splitlines()
    if lines and lines[0].strip() == f"# {title}".strip():
        return "\n".join(lines[1:])
    return markdown_text


def render_pdf(
    markdown_text: str, title: str, language: str, font_path: Path | None = None
) -> bytes:
    """PDF bytes for a Markdown report.

    ``font_path`` is ``settings.pdf_font_path``. Raises ConfigurationError when
    the text needs a Unicode font that is not available, PermanentError when
    xhtml2pdf cannot lay the document out.
    """
    families = font_families(language, f"{title}\n{markdown_text}", font_path)
    return html_to_pdf(render_html(markdown_text, title, families))


def html_to_pdf(document: str) -> bytes:
    """PDF bytes for an HTML document, laid out without loading any resource it names."""
    out = io.BytesIO()
    status = pisa.CreatePDF(document, dest=out, encoding="utf-8", link_callback=refuse_resource)
    if status.err:
        raise PermanentError(f"xhtml2pdf could not render the report ({status.err} errors)")
    return out.getvalue()
