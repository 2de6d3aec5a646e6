"""Reports in Russian and Chinese become PDFs whose text ``pdftotext`` reads back intact."""

from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from shared.adapters.report.markdown import render_report_markdown
from shared.adapters.report.pdf import render_pdf
from shared.core.errors import ConfigurationError
from shared.core.report_models import FinalReport, ReportSection
from shared.core.source_models import Source

PDFTOTEXT = shutil.which("pdftotext")
needs_pdftotext = pytest.mark.skipif(
    PDFTOTEXT is None, reason="pdftotext missing: apt-get install poppler-utils"
)
DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
CREATED = datetime(2025, 3, 14, tzinfo=UTC)


def pdf_text(pdf: bytes, tmp_path: Path) -> str:
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf)
    result = subprocess.run(
        [PDFTOTEXT, "-enc", "UTF-8", str(path), "-"],
        capture_output=True,
        check=True,
        timeout=30,
    )
    return result.stdout.decode("utf-8")


def squash(text: str) -> str:
    """Whitespace-free text: line wrapping in the PDF must not break comparisons."""
    return "".join(text.split())


def russian_report() -> FinalReport:
    return FinalReport(
        title="Квантовые вычисления: обзор",
        executive_summary="Кубит — это основная единица квантовой информации [1].",
        sections=[
            ReportSection(
                heading="Физические основы",
                content="Суперпозиция позволяет **одновременно** хранить состояния [1].\n\n"
                "- Запутанность связывает кубиты\n- Декогеренция мешает вычислениям",
            ),
            ReportSection(
                heading="Сравнение платформ",
                content="| Платформа | Кубиты |\n|---|---|\n| Сверхпроводники | 433 |\n",
            ),
            ReportSection(
                heading="Пример кода",
                content="```python\nсостояние = 'суперпозиция'\n```",
            ),
        ],
        conclusion="Практические квантовые компьютеры появятся не скоро [2].",
        sources=[
            Source(
                n=1, url="https://ru.wikipedia.org/wiki/Кубит", title="Кубит — Википедия", tier=2
            ),
            Source(n=2, url="https://example.org/quantum", title="Обзор отрасли", tier=3),
        ],
        confidence_level="high",
        language="ru",
    )


def chinese_report() -> FinalReport:
    return FinalReport(
        title="量子计算综述",
        executive_summary="量子比特是量子信息的基本单位[1]。",
        sections=[
            ReportSection(heading="物理基础", content="叠加态允许同时存储多个状态[1]。"),
            ReportSection(heading="主要平台", content="- 超导量子比特\n- 离子阱"),
            ReportSection(heading="挑战", content="退相干是主要的障碍。"),
        ],
        conclusion="实用的量子计算机仍需多年发展[2]。",
        sources=[
            Source(n=1, url="https://zh.wikipedia.org/wiki/量子位元", title="量子位元", tier=2),
            Source(n=2, url="https://example.org/zh", title="行业综述"),
        ],
        confidence_level="medium",
        language="zh",
    )


@needs_pdftotext
def test_russian_report_pdf_keeps_cyrillic_text(tmp_path: Path):
    report = russian_report()
    markdown = render_report_markdown(report, "Что такое кубит?", "deep_research", CREATED)

    pdf = render_pdf(markdown, report.title, "ru")

    assert pdf.startswith(b"%PDF")
    text = squash(pdf_text(pdf, tmp_path))
    for expected in (
        "Квантовые вычисления: обзор",
        "Кубит — это основная единица квантовой информации [1].",
        "Краткое содержание",
        "Физические основы",
        "Запутанность связывает кубиты",
        "Сверхпроводники",
        "состояние = 'суперпозиция'",
        "Практические квантовые компьютеры появятся не скоро [2].",
        "Кубит — Википедия",
        "Уверенность: высокая",
        "Что такое кубит?",
    ):
        assert squash(expected) in text, expected


@needs_pdftotext
def test_chinese_report_pdf_keeps_chinese_text(tmp_path: Path):
    report = chinese_report()
    markdown = render_report_markdown(report, "什么是量子比特?", "deep_research", CREATED)

    pdf = render_pdf(markdown, report.title, "zh")

    text = squash(pdf_text(pdf, tmp_path))
    for expected in (
        "量子计算综述",
        "执行摘要",
        "量子比特是量子信息的基本单位[1]。",
        "超导量子比特",
        "实用的量子计算机仍需多年发展[2]。",
        "置信度:中",
    ):
        assert squash(expected) in text, expected


@needs_pdftotext
def test_mixed_scripts_in_one_document(tmp_path: Path):
    markdown = "## Итоги / 总结 / Summary\n\nКубит и 量子比特 are the same idea [1].\n"

    pdf = render_pdf(markdown, "Mixed", "en")

    assert squash("Кубит и 量子比特 are the same idea [1].") in squash(pdf_text(pdf, tmp_path))


@needs_pdftotext
@pytest.mark.skipif(not DEJAVU.is_file(), reason="fonts-dejavu-core not installed")
def test_pdf_font_path_override_is_used(tmp_path: Path):
    pdf = render_pdf("Привет, **мир**!", "Заголовок", "ru", font_path=DEJAVU)

    assert squash("Привет, мир!") in squash(pdf_text(pdf, tmp_path))
    assert b"DejaVuSans" in pdf


def test_missing_pdf_font_path_is_a_configuration_error(tmp_path: Path):
    with pytest.raises(ConfigurationError, match="PDF_FONT_PATH"):
        render_pdf("Привет", "Заголовок", "ru", font_path=tmp_path / "missing.ttf")


def test_markup_in_report_text_is_not_interpreted(tmp_path: Path):
    pdf = render_pdf("Text with <b>tags</b> & <img src='http://127.0.0.1:1/x.png'>", "T", "en")

    assert pdf.startswith(b"%PDF")
    if PDFTOTEXT:
        assert "<b>tags</b>" in pdf_text(pdf, tmp_path)


@needs_pdftotext
def test_code_blocks_keep_comparison_operators(tmp_path: Path):
    pdf = render_pdf("```\nif a < b && c > d:\n    pass\n```\n", "Code", "en")

    assert "if a < b && c > d:" in pdf_text(pdf, tmp_path)
