"""How much evidence reaches the report writer (issue 21).

One default deep research on the small-latency fake; the writer's first prompt
(the one that writes the report before any critique) is read back from the
fake: the characters of source text in each numbered ``<source>`` block (what
the writer can cite from, per cited source; target >= 600 within the context
budget) and the size of the whole prompt.
"""

from __future__ import annotations

import re
from statistics import median

from bench.fake_llm import LatencyLLM
from bench.results import Row, verdict
from bench.scenarios import Bench, llm_settings, temp_dir

TARGET_CHARS = 600
_SOURCES = re.compile(r"Numbered sources:\n(.*?)\n\nKey findings:", re.DOTALL)
_BODY = re.compile(r"<source [^>]*>\n(.*?)\n</source>", re.DOTALL)


def evidence_per_source(prompt: str) -> list[int]:
    """Characters of source text per numbered source in a writer prompt."""
    block = _SOURCES.search(prompt)
    return [len(body) for body in _BODY.findall(block.group(1))] if block else []


def bench_evidence(llm: LatencyLLM) -> list[Row]:
    bench = Bench(llm_settings(temp_dir(), llm.base_url))
    llm.reset()
    try:
        _, _, view = bench.run("deep_research")
        budget = bench.host.settings.max_context_chars
    finally:
        bench.close()
    prompts = llm.writer_prompts()
    if not prompts:
        return [("evidence reaching the writer", f"no writer call ({view['status']})", "", "—")]
    first = prompts[0]
    sizes = evidence_per_source(first)
    mean = sum(sizes) / len(sizes) if sizes else 0.0
    return [
        (
            "evidence reaching the writer: chars per cited source (mean / median / min)",
            f"{mean:.0f} / {median(sizes or [0]):.0f} / {min(sizes or [0])} "
            f"({len(sizes)} sources, {sum(sizes)} chars; budget {budget})",
            f"≥ {TARGET_CHARS}",
            verdict(bool(sizes) and mean >= TARGET_CHARS),
        ),
        (
            "writer prompt size (first report write)",
            f"{len(first)} chars (~{len(first) // 4} tokens); {len(prompts)} writer calls",
            "",
            "—",
        ),
    ]
