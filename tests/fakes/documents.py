"""Documents made in the test: a PDF with one fact per page, a DOCX with headings.

Built with the libraries the app does not use to read them (reportlab writes the
PDF, python-docx writes the DOCX), so a parser test reads a real file.
"""

from __future__ import annotations

import io


def pdf_with_pages(pages: list[str], title: str = "") -> bytes:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    if title:
        pdf.setTitle(title)
    for text in pages:
        y = 800
        for line in text.splitlines():
            pdf.drawString(72, y, line)
            y -= 16
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def docx_with_sections(title: str, sections: dict[str, str]) -> bytes:
    from docx import Document

    document = Document()
    document.add_heading(title, level=0)
    for heading, text in sections.items():
        document.add_heading(heading, level=1)
        document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()
