"""``python -m bench.splitters``: sentence splitters measured on the default corpus.

Not part of ``make bench``: the alternatives are not dependencies. Install
them in a scratch environment (``pip install blingfire syntok``) to compare;
a splitter that is not installed is reported as such. Prints, for each, the
time per character over the largest corpus documents' prose paragraphs and the
share of paragraphs split exactly as pysbd splits them (what our passages and
quotes are made of today).
"""

from __future__ import annotations

import importlib.util
import pydoc_data.topics
import time
from collections.abc import Callable

import pysbd

from shared.tools import sentence_split

DOCUMENTS = 60  # the largest topics: long prose, the pages whose splitting costs most


def _pysbd() -> Callable[[str], list[str]]:
    segmenter = pysbd.Segmenter(language="en", clean=False)
    return lambda p: [s.strip() for s in segmenter.segment(p) if s.strip()]


def _blingfire() -> Callable[[str], list[str]]:
    import blingfire  # optional: measured only when installed

    return lambda p: [s for s in blingfire.text_to_sentences(p).split("\n") if s.strip()]


def _syntok() -> Callable[[str], list[str]]:
    from syntok import segmenter  # optional: measured only when installed

    return lambda p: [
        "".join(t.spacing + t.value for t in sentence).strip()
        for paragraph in segmenter.process(p)
        for sentence in paragraph
    ]


SPLITTERS = {"pysbd": _pysbd, "blingfire": _blingfire, "syntok": _syntok}


def main() -> None:
    texts = sorted(pydoc_data.topics.topics.values(), key=len)[-DOCUMENTS:]
    paragraphs = [p for text in texts for p in sentence_split.paragraphs(text)]
    chars = sum(map(len, paragraphs))
    reference: list[list[str]] = []
    for name, make in SPLITTERS.items():
        if name != "pysbd" and importlib.util.find_spec(name) is None:
            print(f"{name:10s} not installed")
            continue
        split = make()
        begun = time.perf_counter()
        out = [split(p) for p in paragraphs]
        seconds = time.perf_counter() - begun
        reference = reference or out
        same = sum(a == b for a, b in zip(reference, out, strict=True)) / len(out)
        print(f"{name:10s} {1e6 * seconds / chars:6.2f} µs/char  same as pysbd {same:.1%}")


if __name__ == "__main__":
    main()
