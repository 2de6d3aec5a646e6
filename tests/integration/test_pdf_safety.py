"""The PDF renderer fetches nothing, and a source title cannot turn into someone else's link.

The report is rendered for real (Markdown → HTML → xhtml2pdf) and read back:
text with ``pdftotext``, link annotations with pypdf. The image host is a
real HTTP server on 127.0.0.1 that records every request it gets.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from pypdf import PdfReader
from xhtml2pdf.config.resources import ResourceAccessPolicy, use_policy

from shared.adapters.report.markdown import render_report_markdown
from shared.adapters.report.pdf import html_to_pdf, render_pdf
from shared.core.report_models import FinalReport, ReportSection
from tests.fakes.phishing_titles import PHISHING_HOST, hostile_sources
from tests.fakes.web import FixtureServer, Reply
from tests.integration.test_pdf import CREATED, pdf_text, squash

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


@pytest.fixture
def image_host() -> Iterator[FixtureServer]:
    """A server with an image and a stylesheet, as a page a report quotes might link them."""
    server = FixtureServer()
    server.routes["/img.png"] = lambda _: Reply(body=PNG, headers={"Content-Type": "image/png"})
    server.routes["/style.css"] = lambda _: Reply(
        body=b"body { color: red; }", headers={"Content-Type": "text/css"}
    )
    yield server.start()
    server.stop()


def link_targets(pdf: bytes) -> list[str]:
    """The URI of every link annotation, page by page."""
    targets = []
    for page in PdfReader(io.BytesIO(pdf)).pages:
        for annotation in page.get("/Annots") or []:
            action = annotation.get_object().get("/A") or {}
            if "/URI" in action:
                targets.append(str(action["/URI"]))
    return targets


def report(sections: list[ReportSection], **fields) -> FinalReport:
    return FinalReport(
        title="The GIL",
        executive_summary="The GIL serialises bytecode [1].",
        sections=sections,
        conclusion="Threads still help with I/O [1].",
        confidence_level="medium",
        language="en",
        **fields,
    )


def test_an_image_in_the_report_is_a_link_and_nothing_is_fetched(
    image_host: FixtureServer, tmp_path: Path
):
    url = image_host.url("/img.png")
    section = ReportSection(heading="Timeline", content=f"The chart: ![GIL timeline]({url}) above.")
    markdown = render_report_markdown(report([section] * 3), "gil?", "deep_research", CREATED)

    pdf = render_pdf(markdown, "The GIL", "en")

    assert image_host.requests == []
    assert squash(f"The chart: GIL timeline ({url}) above.") in squash(pdf_text(pdf, tmp_path))
    assert url in link_targets(pdf)


def test_the_renderer_loads_no_resource_even_where_the_library_would(image_host: FixtureServer):
    """xhtml2pdf's own policy would fetch from loopback here; the renderer still refuses."""
    image, css = image_host.url("/img.png"), image_host.url("/style.css")
    document = (
        f"<html><head><link rel='stylesheet' href='{css}'/></head><body>"
        f"<p>before <img src='{image}'/> after</p>"
        f"<div style=\"background-image: url('{image}')\">box</div></body></html>"
    )

    with use_policy(ResourceAccessPolicy(allow_private_networks=True)):
        pdf = html_to_pdf(document)

    assert pdf.startswith(b"%PDF")
    assert image_host.requests == []


def test_hostile_source_titles_link_only_to_their_own_sources_in_the_pdf(tmp_path: Path):
    sources = hostile_sources()
    sections = [ReportSection(heading=f"Part {i}", content="Text [1].") for i in range(3)]
    markdown = render_report_markdown(
        report(sections, sources=sources), "gil?", "deep_research", CREATED
    )

    pdf = render_pdf(markdown, "The GIL", "en")

    targets = link_targets(pdf)
    assert not [t for t in targets if urlsplit(t).hostname == PHISHING_HOST], targets
    assert len(targets) == len(sources)
    assert [urlsplit(t).hostname for t in targets] == [urlsplit(s.url).hostname for s in sources]
    text = squash(pdf_text(pdf, tmp_path))
    for source in sources:
        assert squash(source.title) in text, source.title
