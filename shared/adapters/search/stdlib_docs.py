"""The standard library's own documentation, read through ``pydoc``: one document per module.

The language reference (``pydoc_data.topics``) says how ``with`` or ``def`` work; the
questions people ask every day name a module ("when should I use functools.wraps?").
CPython carries that documentation too, as the docstrings ``help()`` shows, so the
default corpus adds them for the modules below: the module's docstring, then each
public function and class (``pydoc.visiblename``: the names ``help()`` lists) with its
signature and ``pydoc.getdoc`` text, and each class's own public methods. Inherited
members and slot wrappers ("Implement setattr(self, name, value)") are left out: they
repeat in every class and say nothing about the module.

The text depends on the interpreter that runs it, so the index cache is keyed by the
Python version and ``MODULES``, not by the rendered text (rendering them all takes
seconds, which is what the cache saves).
"""

from __future__ import annotations

import bisect
import builtins
import importlib
import inspect
import pydoc
import re
import sys

STDLIB_CORPUS = "python-stdlib"
# Everyday modules: the ones tutorials and questions name. Platform-specific, GUI and
# deprecated modules stay out; so do the ones whose docstrings are a pointer to the
# online manual only.
MODULES = [
    "abc",
    "argparse",
    "array",
    "asyncio",
    "atexit",
    "base64",
    "bisect",
    "builtins",
    "calendar",
    "collections",
    "collections.abc",
    "concurrent.futures",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "cProfile",
    "csv",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "enum",
    "fnmatch",
    "fractions",
    "functools",
    "gc",
    "glob",
    "graphlib",
    "gzip",
    "hashlib",
    "heapq",
    "html",
    "html.parser",
    "http.client",
    "http.server",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "locale",
    "logging",
    "math",
    "multiprocessing",
    "operator",
    "os",
    "os.path",
    "pathlib",
    "pickle",
    "platform",
    "pprint",
    "pstats",
    "queue",
    "random",
    "re",
    "secrets",
    "shlex",
    "shutil",
    "signal",
    "smtplib",
    "socket",
    "sqlite3",
    "statistics",
    "string",
    "struct",
    "subprocess",
    "sys",
    "tarfile",
    "tempfile",
    "textwrap",
    "threading",
    "time",
    "timeit",
    "tomllib",
    "traceback",
    "types",
    "typing",
    "unittest",
    "unittest.mock",
    "urllib.parse",
    "urllib.request",
    "uuid",
    "warnings",
    "weakref",
    "xml.etree.ElementTree",
    "zipfile",
    "zoneinfo",
]
# modules listed without their classes' methods: the reference documents the built-in types'
# methods (``typesseq``, ``string-methods``, ``typesmapping``); with them too, builtins is a
# long page about every type at once, outranked by its own parts
WITHOUT_METHODS = {"builtins"}
SYNOPSIS_CHARS = 90
# pydoc renders some defaults with their address ("<object object at 0x7f16dd6c4160>"), which
# differs each run: left out, so a chunk's text, and the key of its shipped vector, stay put
ADDRESS = re.compile(r" at 0x[0-9a-f]+")
# a Sphinx role some docstrings keep (":class:`contextvars.Context`", ":func:`~inspect.signature`",
# ":ref:`buffer protocol <bufferobjects>`"): quoted, it read as markup; rendered as Sphinx renders
# it, the name in code (its last part after "~", no leading "."), a reference's text as is
_ROLE = re.compile(r":(?:\w+:)?(?P<role>\w+):`(?P<tilde>~?)\.?(?P<text>[^`<]*?)\s*(?:<[^`>]*>)?`")
# a summary line written as prose: a capital, then words; not a signature ("D.keys() -> …"),
# a doctest or a table row, whose symbols the sentence splitter turns away anyway
_PROSE_SUMMARY = re.compile(r"^[A-Z][a-z]*(?: [\w,;:'()/.`-]+){3,}(?<![.!?:;])$")
_SIGNATURE = re.compile(r"^[\w.]+\(.*\)(?:\s*->.*)?$")
# the line an entry opens with (``_entry``): the member's qualified name, maybe its signature
_ENTRY = re.compile(r"^(?P<name>[A-Za-z_]\w*(?:\.\w+)+)(?:\(.*\))?(?:\s*->.*)?$")
_GENERIC = re.compile(
    r"^(?:Initialize self|Implement |Return (?:repr|str|hash|self|getattr)|Create and return "
    r"a new object|Helper for pickle|See PEP 585|Call self as a function|Return state information)"
)


def fingerprint() -> str:
    """What the rendered documents depend on: the interpreter and the module lists."""
    return f"{sys.version}\x00{' '.join(MODULES)}\x00{' '.join(sorted(WITHOUT_METHODS))}"


def documents() -> list[tuple[str, str, str]]:
    """``(module name, title, text)`` per module that imports here, in ``MODULES`` order."""
    out = []
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:  # a stripped-down interpreter (no sqlite3, no _ctypes): skip it
            continue
        out.append((name, _title(name, module), _text(name, module)))
    return out


def _title(name: str, module: object) -> str:
    """ "functools — Tools for working with functions and callable objects"."""
    doc = pydoc.getdoc(module)
    synopsis, _ = pydoc.splitdoc(doc)
    if not synopsis:  # no one-line summary: the docstring's first sentence
        synopsis = re.split(r"(?<=\.)\s", " ".join(doc.split()), maxsplit=1)[0]
    short = re.escape(name.rsplit(".", 1)[-1])
    synopsis = re.sub(
        rf"^(?:module\s+)?{short}(?:\.py|\s+module)?\s*(?:--|[-—:])\s*", "", synopsis, flags=re.I
    )
    synopsis = "" if synopsis.startswith("#") else synopsis.strip().rstrip(".")
    if len(synopsis) > SYNOPSIS_CHARS:
        synopsis = synopsis[:SYNOPSIS_CHARS].rsplit(" ", 1)[0] + "…"
    return f"{name} — {synopsis}" if synopsis else f"The {name} module"


def _text(listed: str, module: object) -> str:
    """The module's docstring, then its members', named as listed ("os.path.join", not the
    "posixpath.join" of the module ``os.path`` is on this system)."""
    blocks = [_as_sentences(pydoc.getdoc(module))]
    names = getattr(module, "__all__", None)
    for name, member in inspect.getmembers(module):
        if not _documented(module, name, member, names):
            continue
        blocks.append(_entry(f"{listed}.{name}", member))
        if inspect.isclass(member) and listed not in WITHOUT_METHODS:
            for attr, value in sorted(vars(member).items()):
                if not attr.startswith("_") and (inspect.isroutine(value) or callable(value)):
                    blocks.append(_entry(f"{listed}.{name}.{attr}", value))
    seen: set[str] = set()
    unique = []
    for block in blocks:
        if block and block not in seen:
            seen.add(block)
            unique.append(block)
    return _ROLE.sub(_rendered, ADDRESS.sub("", "\n\n".join(unique)))


def _rendered(role: re.Match[str]) -> str:
    text = role["text"].rsplit(".", 1)[-1] if role["tilde"] else role["text"]
    return text if role["role"] == "ref" else f"`{text}`"


def _documented(module: object, name: str, member: object, names: list[str] | None) -> bool:
    """Public functions and classes of this module itself (not its imports), less another
    name for a built-in class: ``typing.Text`` is ``str``, and its methods made the typing
    page answer "How do I split, join and strip strings?" ("`typing.Text.rsplit`: …")."""
    if not (inspect.isroutine(member) or inspect.isclass(member)):
        return False
    builtin = inspect.isclass(member) and getattr(builtins, member.__name__, None) is member
    if builtin and module is not builtins:  # another name for a built-in class
        return False
    if not pydoc.visiblename(name, names, member):
        return False
    home = getattr(member, "__module__", None) or ""
    own = module.__name__
    return names is not None or home == own or home.lstrip("_") == own.rsplit(".", 1)[-1]


def _entry(qualified: str, member: object) -> str:
    """The member's signature line, then its docstring (blank when there is none to say)."""
    doc = _as_sentences(pydoc.getdoc(member).strip())
    if not doc or _GENERIC.match(doc):
        return ""
    try:
        signature = f"{qualified}{inspect.signature(member)}"  # type: ignore[arg-type]
    except (TypeError, ValueError):
        signature = qualified
    return f"{signature}\n\n{doc}"


class Entries:
    """Which member's entry a sentence of a module's document (``documents``) is in: "Get an
    environment variable, return None if it doesn't exist." -> "os.getenv". A docstring
    rarely names its own function, and the entry's signature line is no sentence, so a quote
    on its own does not say what it describes.

    The sentences were split when the collection was built; the page is not split again
    (a quarter of a second for ``asyncio``'s). A sentence is found in the page's text with
    its spaces collapsed, as the splitter collapses them, and belongs to the last entry line
    before it; a sentence in several entries goes by the first ("os.getenv", whose docstring
    ``os.getenvb`` repeats). ``module``: the page's module, as its entries name it."""

    def __init__(self, text: str, module: str) -> None:
        blocks = re.split(r"\n\s*\n", text)
        said = [" ".join(block.split()) for block in blocks]
        self._text = " ".join(said)
        self._starts: list[int] = []  # where each entry line starts in ``_text``
        self._names: list[str] = []
        at = 0
        for block, collapsed in zip(blocks, said, strict=True):
            # a line of its own naming one of this module's members, not the signature a C
            # method writes in its docstring ("od.clear() -> None.  Remove all items …")
            entry = _ENTRY.match(block.strip())
            if entry and entry["name"].startswith(f"{module}."):
                self._starts.append(at)
                self._names.append(entry["name"])
            at += len(collapsed) + 1

    def of(self, sentence: str) -> str | None:
        """The member whose entry holds ``sentence``; None before the first entry (the
        module's own docstring) or when the page does not hold it."""
        if not self._starts:
            return None
        at = self._text.find(sentence, self._starts[0])  # after the module's docstring
        return self._names[bisect.bisect_right(self._starts, at) - 1] if at >= 0 else None


def _as_sentences(doc: str) -> str:
    """``doc`` with its summary (its first paragraph after any signature line a C function
    writes itself) ended by a period when it was written without one ("Register a function
    to be executed upon normal program termination"): the sentence splitter keeps only
    ended sentences, and about a hundred of the library's summaries, often the line that
    answers the question (``atexit.register``, ``os.path.isfile``), were lost."""
    paragraphs = doc.split("\n\n")
    at = next((i for i, p in enumerate(paragraphs) if not _SIGNATURE.match(p)), len(paragraphs))
    if at < len(paragraphs) and _PROSE_SUMMARY.match(" ".join(paragraphs[at].split())):
        paragraphs[at] = paragraphs[at].rstrip() + "."
    return "\n\n".join(paragraphs)
