"""Sentences are what reports quote: a cut inside a sentence makes a quote no reader can use."""

from __future__ import annotations

from shared.tools.sentence_split import segment, split_sentences

JSON_LOAD = (
    "Deserialize ``fp`` (a ``.read()``-supporting file-like object containing a JSON "
    "document) to a Python object using this conversion table. The other arguments have "
    "the same meaning as in the loads function."
)


def test_a_period_inside_a_name_does_not_end_the_sentence():
    """pysbd cuts at the dot of ``.read()``; the json page's first sentence was quoted as
    "read()``-supporting file-like object …"."""
    assert split_sentences(JSON_LOAD) == (
        JSON_LOAD.split(" The other")[0],
        "The other arguments have the same meaning as in the loads function.",
    )


def test_a_method_called_on_a_result_stays_one_sentence():
    text = (
        "Inside the method you can call super().__setattr__(name, value) to store it. Then go on."
    )
    assert segment(text) == [
        "Inside the method you can call super().__setattr__(name, value) to store it.",
        "Then go on.",
    ]


def test_sentences_that_end_without_a_space_in_chinese_stay_apart():
    assert segment("上下文管理器是一个对象。它定义了运行时上下文。") == [
        "上下文管理器是一个对象。",
        "它定义了运行时上下文。",
    ]


def test_a_sentence_after_a_period_and_a_space_is_its_own():
    text = "The first sentence ends here with a period. the second one starts in lower case."
    assert len(segment(text)) == 2


def test_a_list_items_bullet_is_not_part_of_its_sentence():
    item = 'Using a trailing comma for a singleton tuple: "a," or "(a,)"'
    text = f"Tuples may be built in several ways, as listed below.\n\n* {item}"
    assert split_sentences(text)[-1] == item


def test_the_tail_of_a_parenthetical_cut_at_a_period_is_not_a_sentence():
    """A comparison report's whole section on difflib was "(b), 0), and this is the only
    case in which the last tuple element (number of elements matched) is 0."."""
    tail = "(b), 0), and this is the only case in which the last tuple element is 0."
    assert split_sentences(f"The last triple is a dummy.\n\n{tail}") == (
        "The last triple is a dummy.",
    )
    interval = "Get a random number in the range [a, b) or [a, b] depending on rounding."
    assert split_sentences(interval) == (interval,)


def test_a_signature_line_does_not_open_the_sentence_under_it():
    """A class's docstring lists its methods as a signature line with the description under
    it; a report quoted "bind_partial(*args, **kwargs) -> BoundArguments Creates a partial
    mapping …"."""
    doc = (
        "A Signature object has the following public attributes and methods:\n\n"
        "* bind(*args, **kwargs) -> BoundArguments\n"
        "    Creates a mapping from positional and keyword arguments to\n"
        "    parameters.\n"
        "* bind_partial(*args, **kwargs) -> BoundArguments\n"
        "    Creates a partial mapping from positional and keyword arguments\n"
        "    to parameters (simulating 'functools.partial' behavior.)"
    )
    assert split_sentences(doc) == (
        "Creates a mapping from positional and keyword arguments to parameters.",
        "Creates a partial mapping from positional and keyword arguments to parameters "
        "(simulating 'functools.partial' behavior.)",
    )
    prose = "Call acquire() and release() around the block, and never call wait()\nalone."
    assert split_sentences(prose) == (" ".join(prose.split()),)  # a call in prose is no signature


def test_each_item_of_a_list_of_names_is_its_own_sentence():
    """``sys`` lists its attributes one per line, "name -- what it is": joined, they made a
    51-word "sentence" of a dozen names."""
    doc = (
        "int_info -- a named tuple with information about the int implementation.\n"
        "maxsize -- the largest supported length of containers.\n"
        "platform -- platform identifier"
    )
    assert split_sentences(doc) == (
        "int_info -- a named tuple with information about the int implementation.",
        "maxsize -- the largest supported length of containers.",
    )
    prose = "The wait -- a short one -- ends when the lock is released, and the call returns."
    assert split_sentences(prose) == (prose,)  # a dash inside one line is no list


def test_each_parameter_of_a_list_of_what_they_are_is_its_own_sentence():
    """``functools.update_wrapper`` lists its parameters one a line, "wrapper is the
    function to be updated": joined, they made a 56-word quote of four parameters. A
    sentence wrapped before a second "kappa is the …" after "and" stays whole."""
    doc = (
        "wrapped is the original function\n"
        "assigned is a tuple naming the attributes assigned directly\n"
        "from the wrapped function to the wrapper function (defaults to\n"
        "functools.WRAPPER_ASSIGNMENTS)\n"
        "updated is a tuple naming the attributes of the wrapper that\n"
        "are updated with the corresponding attribute (defaults to WRAPPER_UPDATES)"
    )
    assert split_sentences(doc) == (
        "assigned is a tuple naming the attributes assigned directly from the wrapped "
        "function to the wrapper function (defaults to functools.WRAPPER_ASSIGNMENTS)",
        "updated is a tuple naming the attributes of the wrapper that are updated with the "
        "corresponding attribute (defaults to WRAPPER_UPDATES)",
    )
    wrapped = (
        "mu is the mean angle, expressed in radians between 0 and 2*pi, and\n"
        "kappa is the concentration parameter, which must be at least zero."
    )
    assert split_sentences(wrapped) == (" ".join(wrapped.split()),)


def test_a_definition_lists_term_does_not_open_its_descriptions_first_sentence():
    """The reference's type hierarchy names each type on a line of its own and describes it
    indented under it: joined, a report quoted "Tuples The items of a tuple are …". A
    parameter's lower-case name stays with what it is ("whence The relative position …"
    says more than its description alone), and so does a line whose sentence goes on in a
    hanging indent."""
    doc = (
        "Tuples\n"
        "   The items of a tuple are arbitrary Python objects. Tuples of two or\n"
        "   more items are formed by comma-separated lists of expressions.\n"
        "Lists\n"
        "   The items of a list are arbitrary Python objects."
    )
    assert split_sentences(doc) == (
        "The items of a tuple are arbitrary Python objects.",
        "Tuples of two or more items are formed by comma-separated lists of expressions.",
        "The items of a list are arbitrary Python objects.",
    )
    parameter = "whence\n  The relative position to seek from."
    assert split_sentences(parameter) == ("whence The relative position to seek from.",)
    hanging = (
        "On Windows the Win32 API function TerminateProcess()\n is called to stop the subprocess."
    )
    assert split_sentences(hanging) == (" ".join(hanging.split()),)


def test_a_see_also_entry_describing_another_document_is_not_a_sentence_of_the_page():
    """Under "See also:", the reference names a PEP and describes it indented under it: a
    report quoted "The specification, background, and examples for the Python "with"
    statement" as a finding on context managers. A see-also that is a sentence stays, even
    where a chunk's first line lost its indent."""
    doc = (
        "The with statement binds the value.\n\n"
        "See also:\n\n"
        "  **PEP 343** - The “with” statement\n"
        '     The specification, background, and examples for the Python "with"\n'
        "     statement.\n\n"
        '"types.MappingProxyType" can be used to create a read-only view of a\n'
        '  "dict".\n\n'
        "The statement after it is prose again."
    )
    assert split_sentences(doc) == (
        "The with statement binds the value.",
        '"types.MappingProxyType" can be used to create a read-only view of a "dict".',
        "The statement after it is prose again.",
    )


def test_a_sentence_that_only_sends_the_reader_elsewhere_is_not_quoted():
    """ "For more information on context managers, see Context Manager Types." says nothing
    of context managers: the demo's report quoted it as a finding."""
    doc = (
        "A context manager is an object that defines the runtime context. For more "
        "information on context managers, see Context Manager Types. See section Literals "
        "for details. (See section Primaries for the syntax definitions.)"
    )
    assert split_sentences(doc) == (
        "A context manager is an object that defines the runtime context.",
    )


def test_a_quote_ending_inside_its_parenthesis_ends_before_the_next_labelled_quote():
    """A search answer's quote that ends on ".)" takes its marker after the parenthesis; the
    next, labelled with its function ("`inspect.get_annotations`: …"), opens on a backtick,
    and pysbd read both as one sentence: the report dropped the first one's marker."""
    answer = (
        "Creates a partial mapping (simulating 'functools.partial' behavior.) [2] "
        "`inspect.get_annotations`: If obj is a callable, globals defaults to it [2]. "
        "A call f(x) [3] goes on."
    )
    assert segment(answer) == [
        "Creates a partial mapping (simulating 'functools.partial' behavior.) [2]",
        "`inspect.get_annotations`: If obj is a callable, globals defaults to it [2].",
        "A call f(x) [3] goes on.",
    ]


def test_a_sentence_written_inside_parentheses_keeps_its_closing_one():
    """pysbd cut the ")" after the period off: a report quoted "(The difference between
    "next" and "step" is …" unclosed, and the sentence after it opened on the ")"."""
    text = (
        "A trailing comma yields the value of that expression. (To create an empty tuple, use "
        'an empty pair of parentheses: "()".) This is done both for efficiency reasons and '
        "for clarity. It closes (as it should) here."
    )
    assert split_sentences(text) == (
        "A trailing comma yields the value of that expression.",
        '(To create an empty tuple, use an empty pair of parentheses: "()".)',
        "This is done both for efficiency reasons and for clarity.",
        "It closes (as it should) here.",
    )
