"""Fonts for the PDF report: find a Unicode TTF, register it once, name it for CSS.

xhtml2pdf draws with reportlab fonts. A CSS ``@font-face`` pointing at a TTF
does not embed its glyphs (Cyrillic comes out as boxes), so the fonts are
registered with reportlab directly and their family names are mapped into
``xhtml2pdf.default.DEFAULT_FONT``, which every new xhtml2pdf document copies.

Where the body font comes from, first match wins:

1. ``PDF_FONT_PATH`` (passed in as ``font_path``): an operator's choice; a
   sibling ``<stem>-Bold``/``-Italic``/``-BoldItalic`` file is used when present.
2. Noto Sans from the PyPI package ``fontpkg-noto-sans`` (Latin, Greek,
   Cyrillic): installed with the app, so the PDF looks the same on an Azure
   Functions image, a laptop and CI. It is a variable font: reportlab draws its
   default (regular) instance, so bold text is drawn regular.
3. DejaVu Sans from Debian ``fonts-dejavu-core`` (has a real bold).

Chinese, Japanese and Korean come from reportlab's built-in CID fonts, which
need no font file; they are listed after the body font so xhtml2pdf picks,
character by character, the first family that has the glyph. CID fonts are
referenced, not embedded: Acrobat, browsers and Preview substitute a system
CJK font, and so does poppler when ``poppler-data`` and a CJK font are
installed (otherwise it draws boxes, though ``pdftotext`` still reads the
text). To embed CJK glyphs, point ``PDF_FONT_PATH`` at a TrueType font that
covers them (e.g. WenQuanYi Micro Hei ``.ttc``): as the first family it wins
for every character it has.

Registration is process-wide, idempotent and guarded by a lock because
activities render PDFs from a thread pool.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfbase.ttfonts import TTFError, TTFont
from xhtml2pdf import default as xhtml2pdf_default

from shared.core.errors import ConfigurationError
from shared.tools.language import HAN, HANGUL, KANA

DEJAVU_DIR = Path("/usr/share/fonts/truetype/dejavu")
NOTO_PACKAGE = "fontpkg_noto_sans"

#: reportlab CID font per language; none of them needs a font file.
CJK_FONTS: dict[str, str] = {
    "zh": "STSong-Light",
    "ja": "HeiseiMin-W3",
    "ko": "HYSMyeongJo-Medium",
}


_lock = threading.Lock()
_registered: dict[tuple[str, ...], str] = {}


@dataclass(frozen=True)
class TTFFaces:
    """Files of one TTF family; missing styles fall back to ``regular``."""

    regular: Path
    bold: Path | None = None
    italic: Path | None = None
    bold_italic: Path | None = None
    origin: str = ""


def find_body_font(font_path: Path | None = None) -> TTFFaces | None:
    """The TTF family to draw Latin and Cyrillic text with, or None when there is none.

    An explicit ``font_path`` that does not exist is a configuration error
    (silently falling back would hide a typo in ``PDF_FONT_PATH``).
    """
    if font_path is not None:
        path = Path(font_path)
        if not path.is_file():
            raise ConfigurationError(f"PDF_FONT_PATH points at {path}, which is not a file")
        return TTFFaces(
            regular=path,
            bold=_sibling(path, "Bold"),
            italic=_sibling(path, "Italic") or _sibling(path, "Oblique"),
            bold_italic=_sibling(path, "BoldItalic") or _sibling(path, "BoldOblique"),
            origin="PDF_FONT_PATH",
        )
    return _packaged_noto() or _system_dejavu()


def _sibling(path: Path, style: str) -> Path | None:
    candidate = path.with_name(f"{path.stem}-{style}{path.suffix}")
    return candidate if candidate.is_file() else None


def _packaged_noto() -> TTFFaces | None:
    spec = importlib.util.find_spec(NOTO_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    files = Path(next(iter(spec.submodule_search_locations))) / "files"
    regular = files / "NotoSans[wdth,wght].ttf"
    italic = files / "NotoSans-Italic[wdth,wght].ttf"
    if not regular.is_file():
        return None
    has_italic = italic.is_file()
    return TTFFaces(
        regular=regular,
        italic=italic if has_italic else None,
        bold_italic=italic if has_italic else None,
        origin="fontpkg-noto-sans",
    )


def _system_dejavu() -> TTFFaces | None:
    regular = DEJAVU_DIR / "DejaVuSans.ttf"
    if not regular.is_file():
        return None

    def existing(name: str) -> Path | None:
        path = DEJAVU_DIR / name
        return path if path.is_file() else None

    return TTFFaces(
        regular=regular,
        bold=existing("DejaVuSans-Bold.ttf"),
        italic=existing("DejaVuSans-Oblique.ttf"),
        bold_italic=existing("DejaVuSans-BoldOblique.ttf"),
        origin="fonts-dejavu-core",
    )


def register_ttf_family(faces: TTFFaces) -> str:
    """Register ``faces`` with reportlab and xhtml2pdf; returns the CSS family name."""
    key = tuple(str(p) for p in (faces.regular, faces.bold, faces.italic, faces.bold_italic))
    with _lock:
        if key in _registered:
            return _registered[key]
        base = "DR-" + re.sub(r"[^A-Za-z0-9]+", "", faces.regular.stem)
        base = f"{base}-{len(_registered)}"
        names = {}
        for style, path in (
            ("regular", faces.regular),
            ("bold", faces.bold or faces.regular),
            ("italic", faces.italic or faces.regular),
            ("bold_italic", faces.bold_italic or faces.bold or faces.italic or faces.regular),
        ):
            name = base if style == "regular" else f"{base}-{style}"
            try:
                pdfmetrics.registerFont(TTFont(name, str(path)))
            except (TTFError, OSError) as exc:
                raise ConfigurationError(
                    f"cannot use {path} as the PDF font ({faces.origin}): {exc}"
                ) from exc
            names[style] = name
        pdfmetrics.registerFontFamily(
            base,
            normal=names["regular"],
            bold=names["bold"],
            italic=names["italic"],
            boldItalic=names["bold_italic"],
        )
        _map_css_family(base)
        _registered[key] = base.lower()
        return base.lower()


def register_cjk_font(language: str, text: str = "") -> str | None:
    """Register the CID font for ``language`` (or for the CJK script in ``text``).

    Returns its CSS family name, or None when neither the language nor the
    text needs one.
    """
    cid_name = CJK_FONTS.get(language) or _cjk_font_for_text(text)
    if cid_name is None:
        return None
    with _lock:
        if cid_name not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(UnicodeCIDFont(cid_name))
            # CID fonts have no bold/italic faces; map every style to the one face
            # so <strong> and headings do not fail to resolve.
            pdfmetrics.registerFontFamily(
                cid_name, normal=cid_name, bold=cid_name, italic=cid_name, boldItalic=cid_name
            )
        _map_css_family(cid_name)
    return cid_name.lower()


def _cjk_font_for_text(text: str) -> str | None:
    if HANGUL.search(text):
        return CJK_FONTS["ko"]
    if KANA.search(text):
        return CJK_FONTS["ja"]
    if HAN.search(text):
        return CJK_FONTS["zh"]
    return None


def _map_css_family(name: str) -> None:
    """Let CSS ``font-family: <name>`` reach the reportlab font (caller holds the lock)."""
    xhtml2pdf_default.DEFAULT_FONT[name.lower()] = name


def needs_unicode_font(text: str) -> bool:
    """True when ``text`` has characters outside what the base-14 PDF fonts draw.

    CJK characters do not count: the CID fonts cover them without a file.
    """
    for char in set(text):
        if HAN.match(char) or KANA.match(char) or HANGUL.match(char):
            continue
        if char.isspace():
            continue
        try:
            char.encode("cp1252")
        except UnicodeEncodeError:
            return True
    return False


def font_families(language: str, text: str, font_path: Path | None = None) -> list[str]:
    """The CSS font-family list for a document in ``language`` containing ``text``.

    Raises ConfigurationError naming ``PDF_FONT_PATH`` / ``fonts-dejavu-core``
    when the text needs a Unicode TTF and none is available.
    """
    families: list[str] = []
    faces = find_body_font(font_path)
    if faces is not None:
        families.append(register_ttf_family(faces))
    elif needs_unicode_font(text):
        raise ConfigurationError(
            "the report needs a Unicode font (e.g. Cyrillic) and none was found: set "
            "PDF_FONT_PATH to a TTF, install the PyPI package fontpkg-noto-sans, or install "
            "the Debian package fonts-dejavu-core"
        )
    cjk = register_cjk_font(language, text)
    if cjk is not None:
        families.append(cjk)
    families.append("helvetica")
    return families
