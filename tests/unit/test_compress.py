"""compress: every key finding and source kept once, the deep search as evidence, and a
numbering that does not depend on the order agents finished in."""

from __future__ import annotations

import itertools

from shared.core.report_models import SynthesizedAnswer
from shared.core.research_models import Finding, KeyFinding
from shared.core.source_models import Source
from shared.usecases.research.compress import compress, deep_search_finding


def _finding(topic_id: int, todo: str, facts: list[tuple[str, str]]) -> Finding:
    return Finding(
        agent_id=topic_id,
        topic=f"Topic {topic_id}",
        topic_id=topic_id,
        todo_id=todo,
        key_findings=[KeyFinding(text=t, source_urls=[u]) for t, u in facts],
        sources=[Source(url=u, title=u) for u in dict.fromkeys(u for _, u in facts)],
        notes=["internal note"],
    )


FINDINGS = [
    _finding(
        1,
        "todo-1",
        [("Alpha opens the context.", "corpus://a"), ("Beta closes it again.", "corpus://b")],
    ),
    _finding(
        2,
        "todo-2",
        [("Gamma suppresses errors.", "corpus://c"), ("Alpha opens the context!", "corpus://d")],
    ),
    _finding(1, "todo-5", [("Delta deepens topic one.", "corpus://e")]),
]


def test_all_key_findings_and_sources_are_kept_once():
    result = compress(FINDINGS)
    assert [s.url for s in result.sources] == [f"corpus://{x}" for x in "abecd"]
    assert [s.n for s in result.sources] == [1, 2, 3, 4, 5]
    texts = [k.text for f in result.findings for k in f.key_findings]
    assert len(texts) == 4 and "Delta deepens topic one." in texts
    alpha = next(k for f in result.findings for k in f.key_findings if k.text.startswith("Alpha"))
    assert alpha.source_urls == ["corpus://a", "corpus://d"]  # same sentence: URLs merged
    assert all(f.notes == [] for f in result.findings)  # metadata stripped


def test_numbering_does_not_depend_on_completion_order():
    expected = compress(FINDINGS).model_dump_json()
    for order in itertools.permutations(FINDINGS):
        assert compress(list(order)).model_dump_json() == expected


def test_the_deep_search_answer_becomes_citable_evidence():
    answer = SynthesizedAnswer(
        answer="The with statement calls __enter__ first [1]. It calls __exit__ at the end "
        "[1][2].\n\nA sentence with no citation is not evidence here.",
        sources=[
            Source(n=1, url="corpus://with", title="With"),
            Source(n=2, url="corpus://cm", title="CM"),
        ],
    )
    deep = deep_search_finding(answer)
    assert deep.agent_id == 0 and deep.topic == "Deep search"
    assert [(k.text, k.source_urls) for k in deep.key_findings] == [
        ("The with statement calls __enter__ first.", ["corpus://with"]),
        ("It calls __exit__ at the end.", ["corpus://with", "corpus://cm"]),
    ]
    merged = compress([deep, *FINDINGS])
    assert merged.findings[-1].topic == "Deep search"  # agents' topics keep their sentences
    assert {"corpus://with", "corpus://cm"} <= {s.url for s in merged.sources}


def test_quotes_with_no_final_stop_stay_with_their_own_sources():
    """The offline engine quotes pydoc lines that end without a stop; the sentence split
    could not part them, and the inspect page's words were cited as functools'."""
    answer = SynthesizedAnswer(
        answer="updated defaults to functools.WRAPPER_UPDATES) [1] bind_partial(*args) "
        "Creates a partial mapping [2]. Both agree [1][2].",
        sources=[
            Source(n=1, url="corpus://functools", title="functools"),
            Source(n=2, url="corpus://inspect", title="inspect"),
        ],
    )
    assert [(k.text, k.source_urls) for k in deep_search_finding(answer).key_findings] == [
        ("updated defaults to functools.WRAPPER_UPDATES)", ["corpus://functools"]),
        ("bind_partial(*args) Creates a partial mapping.", ["corpus://inspect"]),
        ("Both agree.", ["corpus://functools", "corpus://inspect"]),
    ]
