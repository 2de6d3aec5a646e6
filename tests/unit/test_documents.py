"""Documents in, citable chunks out, found again by BM25 (shared/adapters/documents/)."""

from __future__ import annotations

import pytest

from shared.adapters.documents.base import UnreadableDocument
from shared.adapters.documents.chunking import chunk_document, pack
from shared.adapters.documents.fts import SqliteIndex, match_expression
from shared.adapters.documents.parsing import DOCX, HTML, MARKDOWN, PDF, LibraryParser
from tests.fakes.documents import docx_with_sections, pdf_with_pages

PARSER = LibraryParser()
FACT = "The reactor coolant pump seal was replaced in March 2021."


def test_a_pdf_keeps_its_pages_and_title():
    data = pdf_with_pages(["Introduction", "Background", FACT], title="Plant runbook")
    kind, parsed = PARSER.parse("runbook.pdf", data)
    assert kind == PDF
    assert parsed.title == "Plant runbook"
    assert parsed.pages == 3
    chunks = chunk_document(parsed, "c1", "d1", "runbook.pdf")
    [cited] = [c for c in chunks if "coolant pump" in c.text]
    assert cited.page == 3
    assert (cited.title, cited.origin) == ("Plant runbook", "runbook.pdf")


def test_a_docx_keeps_its_heading_path():
    data = docx_with_sections("Design notes", {"Storage": "Blobs hold the originals."})
    kind, parsed = PARSER.parse("notes.docx", data)
    assert kind == DOCX
    assert parsed.title == "Design notes"
    [section] = [s for s in parsed.sections if "Blobs" in s.text]
    assert section.heading_path == ("Storage",)


def test_markdown_headings_nest_and_fenced_hashes_are_not_headings():
    text = "# Guide\n\nIntro.\n\n## Setup\n\n```sh\n# not a heading\n```\n\n### Linux\n\nApt."
    kind, parsed = PARSER.parse("guide.md", text.encode())
    assert kind == MARKDOWN
    paths = {s.heading_path: s.text for s in parsed.sections}
    assert "# not a heading" in paths[("Guide", "Setup")]
    assert paths[("Guide", "Setup", "Linux")] == "Apt."
    assert parsed.title == "Guide"


def test_html_goes_through_the_page_extractor():
    html = b"<html><head><title>Ops</title></head><body><nav>menu</nav><main><h2>Paging</h2>"
    html += b"<p>Page the on-call engineer.</p></main></body></html>"
    kind, parsed = PARSER.parse("ops.html", html)
    assert kind == HTML
    assert parsed.title == "Ops"
    assert all("menu" not in s.text for s in parsed.sections)
    assert any(s.heading_path == ("Paging",) for s in parsed.sections)


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("broken.pdf", b"%PDF-1.7\nthis is not a pdf body", "corrupt PDF"),
        ("broken.docx", b"PK\x03\x04 not a zip", "corrupt DOCX"),
        ("sheet.xlsx", b"anything", "unsupported format .xlsx"),
        ("blob.txt", b"\x00\x01\x02binary", "binary content"),
    ],
)
def test_an_unreadable_document_names_why(name, data, reason):
    with pytest.raises(UnreadableDocument, match=reason):
        PARSER.parse(name, data)


def test_packing_keeps_paragraphs_whole_and_cuts_long_ones_at_sentences():
    short = ["First paragraph.", "Second paragraph."]
    assert pack("\n\n".join(short), 100) == ["First paragraph.\n\nSecond paragraph."]
    long = " ".join(f"Sentence number {i} ends here." for i in range(40))
    pieces = pack(long, 200)
    assert all(len(p) <= 200 for p in pieces)
    assert all(p.endswith(".") for p in pieces)
    assert " ".join(pieces) == long


def test_the_index_finds_by_bm25_within_the_given_collections_only(tmp_path):
    index = SqliteIndex(tmp_path / "index.sqlite3")
    _, parsed = PARSER.parse("a.md", b"# Pumps\n\nThe coolant pump seal was replaced.")
    index.replace_document("c1", "d1", chunk_document(parsed, "c1", "d1", "a.md"))
    _, other = PARSER.parse("b.md", b"# Pumps\n\nAnother coolant pump story.")
    index.replace_document("c2", "d2", chunk_document(other, "c2", "d2", "b.md"))
    hits = index.search(["c1"], "when was the pump seal replaced?", 10)
    assert [h.chunk.document_id for h in hits] == ["d1"]
    assert hits[0].chunk.heading_path == ["Pumps"]
    assert index.search(["c1", "c2"], "coolant", 10)[0].score > 0


def test_replacing_a_document_twice_leaves_one_copy_of_its_chunks(tmp_path):
    index = SqliteIndex(tmp_path / "index.sqlite3")
    _, parsed = PARSER.parse("a.txt", b"one\n\ntwo")
    chunks = chunk_document(parsed, "c1", "d1", "a.txt", target=3)
    assert index.replace_document("c1", "d1", chunks) == 2
    assert index.replace_document("c1", "d1", chunks) == 2
    assert index.count("c1") == 2
    assert index.delete_collection("c1") == 2
    assert index.count("c1") == 0


def test_user_text_is_never_read_as_fts5_syntax():
    expression = match_expression('pump" OR seal* NEAR(x) -')
    assert expression == '"pump" OR "or" OR "seal" OR "near" OR "x"'
