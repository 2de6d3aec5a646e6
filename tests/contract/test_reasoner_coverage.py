"""``Reasoner.judge_coverage``: both reasoners quote only what the passages say.

Whatever either reasoner decides, its evidence is sentences the passages hold verbatim,
and a topic it calls covered has at least one.
"""

from __future__ import annotations

from shared.core.ask_models import Passage
from tests.contract.conftest import fixture_pages


def _passages() -> list[Passage]:
    return [
        Passage(n=n, url=page.url, text=page.text[:1500])
        for n, page in enumerate(fixture_pages(), start=1)
    ]


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_evidence_is_verbatim_and_covered_needs_some(reasoner):
    passages = _passages()
    for topic in ("How does the with statement call __exit__?", "How do tides form?"):
        verdict = reasoner.judge_coverage(topic, passages, "en")
        held = [_flat(p.text) for p in passages]
        assert all(any(_flat(q) in text for text in held) for q in verdict.evidence)
        assert not verdict.covered or verdict.evidence


def test_offline_covers_what_the_pages_are_about_and_not_what_they_are_not(offline_reasoner):
    passages = _passages()
    assert offline_reasoner.judge_coverage(
        "How does the with statement call __exit__?", passages, "en"
    ).covered
    assert not offline_reasoner.judge_coverage("How do ocean tides form?", passages, "en").covered
