"""The offline engine's documents about the question, by meaning (``offline_meaning``): the
page that answers an everyday question in other words is chosen, an unrelated one is not,
and a corpus without vectors leaves the decision to the lexical gate."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.adapters.reasoning import offline_meaning
from shared.adapters.search import corpus_vectors
from shared.adapters.search.builtin_corpus import BuiltinCorpus
from shared.core.config import Settings

pytestmark = pytest.mark.skipif(not corpus_vectors.available(), reason="model not installed")

PAGES = {
    "chain.md": "# itertools — Functions creating iterators\n\nchain.from_iterable(iterable) "
    "makes one iterator over the elements of each nested iterable in turn: a sequence of "
    "sequences becomes one flat sequence.\n",
    "bread.md": "# Baking bread\n\nKnead the dough for ten minutes, let it rise in a warm "
    "place, then bake it until the crust sounds hollow.\n",
    "tax.md": "# Filing taxes\n\nKeep every receipt of the year in one folder, and send the "
    "form before the end of April to avoid the late fee.\n",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> BuiltinCorpus:
    root: Path = tmp_path_factory.mktemp("meaning")
    (root / "docs").mkdir()
    for name, text in PAGES.items():
        (root / "docs" / name).write_text(text)
    return BuiltinCorpus(Settings(data_dir=root / "data", local_corpus_path=str(root / "docs")))


def test_the_page_that_answers_in_other_words_is_chosen_and_unrelated_ones_are_not(corpus):
    chosen = offline_meaning.chosen(corpus, "How do I flatten nested lists?", "en")
    assert chosen is not None and [Path(u).name for u in chosen] == ["chain.md"]


def test_a_question_no_page_comes_near_still_has_its_nearest_page(corpus):
    chosen = offline_meaning.chosen(corpus, "Which planets have rings?", "en")
    assert chosen is not None and len(chosen) == 1  # quoted as the nearest page, not nothing


def test_without_vectors_the_lexical_gate_decides():
    class Words:  # a corpus that only matches words (another collection, no model)
        def by_meaning(self, query: str) -> None:
            return None

    assert offline_meaning.chosen(Words(), "flatten a list", "en") is None
    assert offline_meaning.about(Words(), [], "flatten a list", "en") is None


def test_a_question_in_another_language_is_judged_by_its_words(corpus):
    # the model was trained on English: a German question's cosines say little
    assert offline_meaning.chosen(corpus, "Wie glätte ich verschachtelte Listen?", "de") is None
    assert offline_meaning.chosen(corpus, "How do I flatten nested lists?", "en-GB")


MODULES = {
    "functools.md": "# functools — Higher-order functions and operations on callable objects\n\n"
    "reduce(function, iterable) applies a function of two arguments cumulatively to the "
    "items of an iterable. wraps(wrapped) applies update_wrapper() to a wrapper.\n",
    "textwrap.md": "# textwrap — Text wrapping and filling\n\nWhen should you use wrap()? "
    "wrap(text) wraps a paragraph and returns wrapped lines; use fill() for one string.\n",
    "inspect.md": "# inspect — Get useful information from live objects\n\nunwrap(func) "
    "follows the chain of __wrapped__ attributes that functools.wraps leaves on a "
    "decorated function and returns the function it wraps.\n",
}


def test_a_question_on_a_modules_attribute_keeps_other_modules_only_if_they_name_it(
    tmp_path: Path,
) -> None:
    """ "When should I use functools.wraps?" chose textwrap by meaning ("wraps", "wrap"), and
    the search answer quoted its wrap() first."""
    (tmp_path / "docs").mkdir()
    for name, text in MODULES.items():
        (tmp_path / "docs" / name).write_text(text)
    corpus = BuiltinCorpus(
        Settings(data_dir=tmp_path / "data", local_corpus_path=str(tmp_path / "docs"))
    )
    query = "When should I use functools.wraps?"
    ranked = dict(corpus.by_meaning(query) or [])
    bar = max(offline_meaning.TAU, max(ranked.values()) - offline_meaning.DELTA)
    near = {Path(u).name for u, c in ranked.items() if c >= bar}
    assert "textwrap.md" in near  # near enough in meaning: the rule is what leaves it out
    chosen = {Path(u).name for u in offline_meaning.chosen(corpus, query, "en") or ()}
    assert "functools.md" in chosen and "textwrap.md" not in chosen
    assert "inspect.md" in chosen or "inspect.md" not in near  # it names functools
    # a module the question names stays, and so does every page for a question naming no
    # module's attribute
    both = offline_meaning.chosen(corpus, "Is functools.wraps like textwrap's wrap?", "en")
    assert "textwrap.md" in {Path(u).name for u in both or ()}
    plain = offline_meaning.chosen(corpus, "How do I wrap text to a width?", "en")
    assert plain and Path(plain[0]).name == "textwrap.md"
