"""The offline citation gate: what makes a quote, and a document, about the question."""

from __future__ import annotations

from shared.adapters.reasoning.question_terms import stem
from shared.adapters.reasoning.relevance import Gate, question_gate

IDF = {
    "generator": 2.2, "yield": 1.2, "expression": 0.7, "decide": 3.5, "name": 0.8,
    "global": 1.5, "local": 1.6, "load": 4.0, "import": 1.6, "module": 1.1, "class": 0.7,
    "definition": 0.8, "special": 1.1, "method": 0.6, "init": 2.9, "with": 0.35,
    "statement": 0.7, "context": 1.4, "manager": 2.7, "break": 2.0, "for": 0.2, "loop": 1.9,
    "python": 0.0,
}  # fmt: skip


def test_words_that_frame_the_question_weigh_nothing():
    gate = question_gate("How does Python decide which names are global or local?", IDF, "en")
    assert "decide" not in gate.weights
    assert gate.admits("Names listed in a global statement are global, not local.")


def test_a_rare_word_does_not_outweigh_the_subject():
    gate = question_gate("How does the import statement load modules?", IDF, "en")
    assert gate.weights["load"] == 2.0  # capped: rare because the corpus is not about it
    assert gate.admits("The import statement finds a module and binds it.")
    assert not gate.admits("The debugger can load a file of commands.")


def test_one_part_of_a_two_part_question_is_enough():
    gate = question_gate("How do context managers and global names work?", IDF, "en")
    assert gate.admits("Names declared global are bound in the module.")  # a third of it
    assert not gate.admits("Every name is bound somewhere.")
    query = "How do class definitions and special methods like __init__ work?"
    light = question_gate(query, IDF, "en")
    assert light.admits("The special method __init__ is called after the instance is created.")
    # "class definition" weighs too little alone: many pages define a class somewhere
    assert not light.admits("Class definition blocks bind names in their own scope.")


def test_a_shared_everyday_word_is_not_about_the_question():
    gate = question_gate("How do context managers and the with statement work?", IDF, "en")
    assert not gate.admits("Execute the statement in the context of the current frame.")
    assert gate.admits("A context manager defines the runtime context of a with statement.")


def test_the_bar_drops_to_what_the_best_evidence_reaches_but_not_below_a_floor():
    gate = Gate("q", dict.fromkeys(["a", "b", "c", "d", "e"], 1.0))
    assert not gate.admits("a b")  # two fifths of the question
    assert gate.admits("a b c")
    lowered = gate.calibrated(["a b and nothing else", "a alone"])
    assert lowered.admits("a b")
    assert not lowered.admits("a")
    floor = gate.calibrated(["a"])
    assert floor.minimum == 0.3
    assert not floor.admits("a")


def test_a_document_is_about_the_question_by_its_title_or_two_quotes():
    gate = question_gate("How do for loops and break work?", IDF, "en")
    assert gate.is_about("The for statement", [])  # a keyword the question uses
    assert not gate.is_about("pdb — The Python Debugger", ["Set a break in the for loop."])
    assert gate.is_about("Notes", ["A break ends the for loop.", "Use break in a for loop."])


def test_another_language_is_judged_by_the_words_that_carry_over():
    gate = question_gate("Как работают менеджеры контекста и оператор with?", IDF, "ru")
    assert gate.weights == {"with": 0.35} and gate.light() and gate.judges()
    assert gate.admits("Use with to open a file.")
    assert not gate.is_about("Notes", ["Use with to open a file.", "Go with care."])
    assert gate.is_about("The with statement", [])  # the keyword names it
    topic = gate.with_words("Ключевые понятия: With Statement Context Managers", IDF)
    assert topic.admits("A context manager is entered by the with statement.")
    german = question_gate("Wie wirkt sich das GIL auf Threads aus?", {"thread": 0.1}, "de")
    assert german.weights == {"thread": 0.1}  # "wie", "wirkt", ... are not translated
    assert not german.judges() and german.is_about("Threads and I/O", [])


def test_a_word_the_corpus_never_saw_weighs_the_most_and_python_nothing():
    gate = question_gate("How does Python asyncio schedule tasks?", IDF, "en")
    assert "python" not in gate.weights
    assert gate.weights["asyncio"] == 2.0


def test_a_question_in_words_every_page_uses_filters_nothing():
    gate = question_gate("How does the GIL affect threads?", {"gil": 0.0, "thread": 0.1}, "en")
    assert not gate.judges()
    assert gate.admits("Threads that wait for I/O release the lock.")
    assert gate.is_about("Threads and I/O", [])


def test_a_long_page_that_mentions_the_subject_in_passing_is_not_about_it():
    gate = question_gate("How do for loops and break work?", IDF, "en")
    passing = ["A break ends the for loop.", "Use break in a for loop."]
    passing += [f"Assertion helper number {n} compares two values." for n in range(60)]
    assert not gate.is_about("unittest — Unit testing framework", passing)
    assert gate.is_about("Notes", passing[:2] + passing[2:20])  # 2 of 20: a tenth


def test_a_keyword_names_a_title_only_as_a_construct():
    gate = question_gate("How do for loops and while loops work?", IDF, "en")
    assert gate.names("The for statement")
    assert not gate.names("shutil — Utility functions for copying files")
    assert not gate.names("Identifiers and keywords")  # "and" joins, it names no operator


def test_words_are_matched_by_their_snowball_stems():
    assert stem("decorators") == stem("decorated") == stem("decorator")
    assert stem("handling") == "handl" and stem("__init__") == "__init__"
    gate = question_gate("How are exceptions handled?", {"exception": 1.5, "handle": 1.4}, "en")
    assert gate.admits("An exception handler is selected by the handling code.")


def test_a_page_whose_title_names_the_subject_needs_only_one_distinctive_word():
    gate = question_gate("How do context managers and global names work?", IDF, "en")
    quote = "A manager object is created first."  # two fifths of the question's weight
    assert not gate.admits(quote)
    assert gate.admits(quote, named=True)  # "manager", on the page about managers
    assert not gate.admits("Every name is bound somewhere.", named=True)  # an everyday word
    many = question_gate("How do the deque, Counter and defaultdict containers work?", {}, "en")
    assert many.admits("Containers emulate sequences or mappings.", named=True)  # a fifth


def test_a_module_title_names_the_module_not_its_synopsis():
    gate = question_gate("How do generators and the yield expression work?", IDF, "en")
    assert not gate.names("random — Random variable generators")
    assert gate.names("Generator expressions")


def test_a_keyword_verb_names_the_construct_only_as_written():
    gate = question_gate("How do generators and the yield expression work?", IDF, "en")
    assert gate.admits("A yield expression suspends the generator.")
    # the verb: "yields a tuple" says nothing about the yield expression
    verb = gate.share("An expression list containing a comma yields a tuple.")
    assert verb == gate.share("An expression list containing a comma makes a tuple.")
    assert gate.share("A comma in a yield expression makes a tuple.") > verb


def test_a_title_word_as_distinctive_as_special_names_the_subject():
    idf = {"class": 0.57, "definition": 1.34, "special": 1.19, "method": 0.44, "init": 2.0}
    gate = question_gate("How do class definitions and special methods work?", idf, "en")
    assert gate.names("Special method names")
    assert not gate.names("Methods")  # everyday title words do not


def test_a_section_of_a_long_page_makes_it_about_the_question():
    gate = question_gate("How do context managers work?", IDF, "en")
    other = [f"Filler sentence number {i} about files." for i in range(100)]
    quotes = [f"A context manager does step {i}." for i in range(4)]
    assert not gate.is_about("Compound statements", other[:50] + quotes[:3] + other[50:])
    assert gate.is_about("Compound statements", other[:50] + quotes + other[50:])  # a section
    spread = [s for i, q in enumerate(quotes) for s in (q, *other[i * 20 : i * 20 + 20])]
    assert not gate.is_about("Compound statements", spread)  # mentions in passing


def test_a_section_needs_quotes_carrying_the_question_not_one_of_its_words():
    gate = question_gate("How do for loops work, including break and continue?", IDF, "en")
    other = [f"Filler sentence number {i} about files." for i in range(100)]
    commands = [f"Use the continue command number {i}." for i in range(4)]  # one part's word
    assert all(gate.admits(c) for c in commands)
    assert not gate.is_about("pdb — The Python Debugger", other[:50] + commands + other[50:])


def test_a_keyword_used_as_an_english_word_names_no_construct():
    for query in (
        "How do I write regular expressions with the re module?",
        "How do I save data with json and pickle?",
        "How do decorators work in Python?",
        "How do I loop over a dict, for each key and value?",
        "What is a set, and when is it not the right container?",
    ):
        gate = question_gate(query, IDF, "en")
        for title in ("The with statement", "The for statement", "The if statement"):
            assert not gate.names(title), (query, title)
            assert not gate.is_about(title, []), (query, title)


def test_a_keyword_the_question_marks_as_a_construct_names_it():
    marked = {
        "How do context managers and the with statement work?": "The with statement",
        "How do for and while loops work?": "The while statement",
        "How does the `with` keyword close files?": "The with statement",
        "How does with work?": "The with statement",  # the whole subject
        "How do the is and is not operators differ?": "Identity comparisons: is",
        "Как работает цикл for?": "The for statement",  # the noun before it
        "Wie funktioniert die with-Anweisung?": "The with statement",
    }
    for query, title in marked.items():
        assert question_gate(query, IDF, "en").names(title), query


def test_a_class_name_the_question_capitalizes_matches_only_as_written():
    idf = {"counter": 2.0, "deque": 2.0, "contain": 1.5, "semaphor": 2.0}
    gate = question_gate("How do the deque and Counter containers work?", idf, "en")
    assert gate.admits("A Counter is a container for counting hashable objects.")
    assert gate.share("Counters count.") == gate.share("A Counter counts.") > 0
    # the everyday word is not the class
    assert gate.share("Release a semaphore, incrementing the internal counter.") == 0.0
    lower = question_gate("How does a counter work with a deque?", idf, "en")
    assert lower.share("The internal counter grows.") > 0  # not capitalized: any counter


def test_a_question_in_everyday_words_needs_a_title_or_a_section():
    idf = {"list": 0.53, "tupl": 0.89, "tuple": 0.89, "filler": 0.1}
    gate = question_gate("What is the difference between a list and a tuple?", idf, "en")
    other = [f"Filler sentence number {i} about files." for i in range(20)]
    scattered = ["Return a tuple describing the fields.", *other[:8], "Return a named tuple."]
    assert gate.admits(scattered[0]) and not gate.is_about("dataclasses", scattered)
    section = [f"A tuple is immutable, unlike a list ({i})." for i in range(4)]
    assert gate.is_about("Sequence Types", other + section + other)


def test_an_everyday_phrase_of_when_or_how_often_names_no_subject():
    idf = {"iterate": 2.0, "two": 1.1, "list": 0.5, "time": 1.2, "type": 0.5, "run": 2.0}
    gate = question_gate("How do I iterate over two lists at the same time?", idf, "en")
    assert "time" not in gate.weights  # not the time module
    assert not gate.is_about("time — Time access and conversions", [])
    assert not gate.admits("Return the time in seconds since the epoch as two floats.")
    at_run = question_gate("How do I check the type of an object at run time?", idf, "en")
    assert not {"run", "time"} & at_run.weights.keys()
    # the words themselves still count where they name the subject
    assert "time" in question_gate("How do I measure the time a loop takes?", idf, "en").weights


def test_a_word_of_how_much_or_how_well_names_no_subject():
    idf = {"cache": 2.0, "result": 0.9, "expensive": 2.0, "function": 0.5}
    gate = question_gate("How do I cache the results of an expensive function?", idf, "en")
    assert "expens" not in gate.weights  # rare in the corpus, but it names nothing
    page = ["Arguments to the cached function must be hashable.", "The cache can grow."]
    page += [f"Helper number {n} wraps a callable." for n in range(10)]
    assert gate.is_about("functools — Tools for working with functions", page)
    idf = {"print": 1.0, "full": 1.9, "stack": 1.8, "trace": 2.0}
    gate = question_gate("How do I print the full stack trace?", idf, "en")
    assert "full" not in gate.weights  # how much of it, not what: not "a full Queue"
    assert not gate.admits("Raised when put_nowait() is called on a full Queue.", vouched=True)


def test_a_how_to_is_answered_by_the_page_with_the_most_strong_quotes():
    idf = {"read": 1.7, "environment": 2.0, "variable": 1.3, "python": 0.0}
    os_page = [f"Function number {i} of this module does something else." for i in range(400)]
    os_page[120] = "Get an environment variable, return None if it doesn't exist."
    os_page[121] = "Change or add an environment variable."
    os_page[300] = "*env* must be an environment variable dict or None."
    time_page = ["The TZ environment variable should be set.", "If the TZ environment variable"]
    pages = {"os": os_page, "time": time_page, "io": ["Read a line."]}
    how_to = question_gate("How do I read an environment variable?", idf, "en")
    assert not how_to.is_about("os — OS routines", os_page)  # 3 of 400: not by its share
    assert how_to.answering(pages) == "os"  # three strong quotes against two
    assert how_to.answering({"time": time_page, "again": time_page}) is None  # a tie
    assert how_to.answering({"io": pages["io"]}) is None  # no page with two
    concept = question_gate("What is an environment variable?", idf, "en")
    assert concept.answering(pages) is None  # only a how-to is answered by one function


def test_a_question_of_which_no_word_carries_over_is_told_from_a_light_one():
    """The report cites none of the English corpus's documents for it (the e2e test); the
    gate leaves nothing out, for pages in the question's own language."""
    gate = question_gate("Wie funktionieren Generatoren in Python?", IDF, "de")
    assert gate.weights == {} and gate.carries_nothing() and not gate.judges()
    assert gate.admits("Ein Generator liefert Werte nacheinander.")
    light = question_gate("What is the GIL?", {"gil": 0.1}, "en")  # English: only light
    assert not light.carries_nothing() and not light.judges()


def test_frame_words_that_are_english_words_too_carry_nothing():
    """French "comment" (how), "en" (in), German "ist" (is) weighed as rare English words."""
    idf = {**IDF, "comment": 3.0, "en": 3.0, "ist": 3.0, "environment": 2.0, "variable": 1.5}
    french = question_gate("Comment lire une environment variable en Python ?", idf, "fr")
    assert set(french.weights) == {stem("environment"), stem("variable")}
    assert question_gate("Was ist ein Generator?", idf, "de").weights == {"generat": 2.0}


def test_a_chinese_question_carries_the_keyword_it_writes_against_its_own_words():
    """ "with语句" is the with statement: no space separates the keyword from 语句."""
    gate = question_gate("如何在Python中使用with语句？", IDF, "zh")
    assert gate.weights == {"with": 0.35} and gate.judges()
    assert gate.is_about("The with statement", [])


def test_the_attribute_of_a_dotted_name_counts_only_beside_its_module():
    """ "Dekoratoren" carries nothing, so "wraps" was half the question: the textwrap page
    ("Wrap a single paragraph") and unittest.mock's ``wraps`` were cited for it."""
    idf = {**IDF, "functool": 2.0, "wrap": 2.0, "paragraph": 1.9}
    gate = question_gate("Wie benutze ich functools.wraps mit Dekoratoren?", idf, "de")
    assert not gate.admits("Wrap a single paragraph of text, returning a list of lines.")
    assert not gate.is_about("textwrap — Text wrapping", ["Wraps text.", "It wraps lines."])
    assert gate.admits("functools.wraps() is a convenience function for update_wrapper().")
    # on the module's own page its functions are named alone
    assert gate.admits("Returns a decorator that invokes update_wrapper(); see wraps().", True)
    assert gate.is_about("functools — Tools for functions", ["It wraps a function."])
    japanese = question_gate("Pythonのデコレータとfunctools.wrapsの使い方", idf, "ja")
    assert not japanese.admits("The public interface consists of the wrap() method.")


def test_a_sentence_saying_what_either_side_of_a_comparison_is_is_about_it():
    """ "list" weighs less than "tuple": by the share alone the tuple's definition was about
    the question and the list's was not, and a reader wants both first."""
    idf = {**IDF, "list": 1.0, "tuple": 1.6, "difference": 1.3}
    gate = question_gate("What is the difference between a list and a tuple?", idf, "en")
    lists = "Lists are mutable sequences, typically used to store collections of items."
    assert gate.share(lists) < gate.minimum
    assert gate.defines(lists) and gate.admits(lists)
    assert gate.defines("A tuple is an immutable sequence.")
    assert not gate.defines("The items of a list are any objects.")  # its subject: the items
    assert not gate.defines("Sorting is stable.")  # not a word of the question
    assert not gate.admits("Sort the list in place.")  # not what a list is
    both = "Tuples and lists are compared lexicographically."  # about it, but says less
    assert gate.admits(both) and not gate.defines(both)
    assert sorted([both, lists], key=gate.first) == [lists, both]
