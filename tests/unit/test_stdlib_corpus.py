"""The default corpus's standard-library half: pydoc's documentation of everyday modules."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from shared.adapters.search import stdlib_docs
from shared.adapters.search.builtin_corpus import BuiltinCorpus
from shared.core.config import Settings
from tests.contract.conftest import shared_corpus

WARM_UP_SECONDS = 5.0  # issue 32: a worker with the index on disk is ready this fast


def test_a_question_naming_a_module_finds_its_documentation():
    results = shared_corpus().search("when should I use functools.wraps in a decorator", 3)
    assert results[0].url == "corpus://python-stdlib/functools"
    page = shared_corpus().fetch("corpus://python-stdlib/functools")
    assert page.title == "functools — Tools for working with functions and callable objects"
    assert "update_wrapper" in page.text and "Decorator factory" in page.text


def test_the_reference_and_the_standard_library_are_one_corpus():
    name, documents = shared_corpus().describe()
    assert name == "python-docs"
    urls = {p.url for p in shared_corpus().documents()}
    assert "corpus://python-reference/function" in urls
    assert {f"corpus://python-stdlib/{m}" for m in ("asyncio", "typing", "itertools")} <= urls
    assert documents == len(urls) > 100


def test_inherited_and_slot_wrapper_docs_are_left_out():
    text = dict((name, text) for name, _, text in stdlib_docs.documents())["functools"]
    assert "Implement setattr" not in text and "Initialize self" not in text
    assert "functools.lru_cache(maxsize=128, typed=False)" in text


def test_another_name_for_a_built_in_class_is_not_documented_again():
    """``typing.Text`` is ``str``: its methods made the typing page answer "How do I split,
    join and strip strings?". The builtins page keeps its own classes."""
    texts = {name: text for name, _, text in stdlib_docs.documents()}
    assert "typing.Text.rsplit" not in texts["typing"]
    assert "typing.TypeVar" in texts["typing"]
    assert "builtins.str" in texts["builtins"]


def test_a_docstrings_sphinx_roles_read_as_the_names_they_mark():
    """A report quoted "the current :class:`contextvars.Context` is propagated"; the roles
    are markup for Sphinx, not words of the sentence."""
    texts = {name: " ".join(text.split()) for name, _, text in stdlib_docs.documents()}
    assert "the current `contextvars.Context` is propagated" in texts["asyncio"]
    assert "implements the buffer protocol." in texts["asyncio"]  # a reference's own text
    assert (
        "the `Mock` object behavior is the same as with an `Mock` object" in texts["unittest.mock"]
    )
    assert not any(":class:`" in text or ":func:`" in text for text in texts.values())


def test_the_cache_is_keyed_without_rendering_and_loads_within_the_warm_up_budget():
    shared_corpus().describe()  # the shared cache holds the index (built once per run)
    data_dir = Path(tempfile.gettempdir()) / "deep-research-test-corpus"
    settings = Settings(data_dir=data_dir, local_corpus_path=None)
    started = time.perf_counter()
    corpus = BuiltinCorpus(settings)
    assert corpus.describe()[1] > 100
    assert time.perf_counter() - started < WARM_UP_SECONDS
    assert "3." in stdlib_docs.fingerprint()  # the interpreter's version is in the key


def test_builtins_and_os_path_read_as_a_person_names_them():
    """builtins holds the built-in functions, without the types' methods the reference has
    (with them it was a 68,000-character page about every type); os.path's functions are
    os.path's, not posixpath's."""
    texts = {name: text for name, _, text in stdlib_docs.documents()}
    assert "builtins.sorted(iterable, /, *, key=None, reverse=False)" in texts["builtins"]
    assert (
        "builtins.isinstance(" in texts["builtins"] and "builtins.str.join" not in texts["builtins"]
    )
    assert len(texts["builtins"]) < 40_000
    assert "os.path.join(" in texts["os.path"] and "posixpath.join" not in texts["os.path"]


def test_a_summary_written_without_a_period_is_a_sentence_a_report_can_quote():
    """Many docstrings end their one-line summary without a period, and the sentence
    splitter keeps only ended sentences: the line that answers "run code when my program
    exits" (``atexit.register``) could not be quoted. A signature line stays as written."""
    corpus = shared_corpus()
    sentences = corpus.document_sentences("corpus://python-stdlib/atexit")[0]
    assert "Register a function to be executed upon normal program termination." in sentences
    texts = {name: text for name, _, text in stdlib_docs.documents()}
    assert "os.path.isfile(path)\n\nTest whether a path is a regular file." in texts["os.path"]
    assert "D.keys() -> a set-like object providing a view on D's keys\n" in texts["collections"]


def test_each_sentence_of_a_module_page_knows_the_member_it_documents():
    """A docstring rarely names its function, and its signature line is no sentence: quoted
    alone, "Get an environment variable, return None if it doesn't exist." does not say it
    is ``os.getenv``. A sentence two entries repeat (``os.getenvb``) goes by the first; the
    signature a C method writes in its own docstring ("od.clear() -> …") opens no entry."""
    text = (
        "Tools for paths. The module is portable across systems.\n\n"
        "mod.getenv(key, default=None)\n\n"
        "Get an environment variable, return None if it doesn't exist.\n\n"
        "mod.getenvb(key, default=None)\n\n"
        "Get an environment variable, return None if it doesn't exist.\n\n"
        "mod.Thing\n\n"
        "od.clear() -> None.  Remove all items from od.\n\n"
        "A thing that holds several values at once."
    )
    entries = stdlib_docs.Entries(text, "mod")
    assert entries.of("Get an environment variable, return None if it doesn't exist.") == (
        "mod.getenv"
    )
    assert entries.of("A thing that holds several values at once.") == "mod.Thing"
    assert entries.of("The module is portable across systems.") is None  # the module's own
    corpus = shared_corpus()
    getenv = "Get an environment variable, return None if it doesn't exist."
    assert corpus.member_of("corpus://python-stdlib/os", getenv) == "os.getenv"
    assert corpus.member_of("corpus://python-reference/with", getenv) is None
