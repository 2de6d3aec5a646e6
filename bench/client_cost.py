"""The app's model client's own time per call: what every model call costs beyond its reply.

The floors of the overhead and fan-out rows leave out everything a task does besides
waiting for its replies. A model call itself is not free: the openai SDK and httpx build
and send the request, the reply crosses loopback and is read and validated. These
calls go through the app's own ``LLMClient`` to the bench's fake, nothing else around
them, so what they take beyond L is that cost alone (over TLS to Azure OpenAI it is
only larger). Kept apart from ``bench.latency`` so both floors read the same figures.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable

from bench.fake_llm import LatencyLLM
from bench.scenarios import llm_settings, temp_dir
from shared.adapters.reasoning.llm_client import LLMClient
from shared.core.analysis_models import Analysis

CALLS = 20  # calls timed one after another, for the median
PHASE_RUNS = 3  # runs of the fan-out's calls alone, for the median


def client_seconds(llm: LatencyLLM, latency: float, prompt_chars: int) -> float:
    """The median time beyond ``latency`` of CALLS calls with a prompt of ``prompt_chars``."""
    call = _caller(llm, prompt_chars)
    call()  # the connection is opened once per client, as in a worker
    beyond = []
    for _ in range(CALLS):
        started = time.perf_counter()
        call()
        beyond.append(time.perf_counter() - started - latency)
    return statistics.median(beyond)


def client_phase(
    llm: LatencyLLM, latency: float, prompt_chars: int, fan: int, steps: int
) -> tuple[float, float]:
    """The fan-out's model calls and nothing else: seconds beyond their replies for
    ``fan`` × ``steps`` calls one after another, and for ``fan`` threads of ``steps`` calls
    each (their replies come back together, so their SDK and httpx work runs one thread
    after another under the GIL); medians of PHASE_RUNS."""
    call = _caller(llm, prompt_chars)
    call()

    def calls(n: int) -> None:
        for _ in range(n):
            call()

    alone, together = [], []
    for _ in range(PHASE_RUNS):
        started = time.perf_counter()
        calls(fan * steps)
        alone.append(time.perf_counter() - started - fan * steps * latency)
        threads = [threading.Thread(target=calls, args=(steps,)) for _ in range(fan)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        together.append(time.perf_counter() - started - steps * latency)
    return statistics.median(alone), statistics.median(together)


def _caller(llm: LatencyLLM, prompt_chars: int) -> Callable[[], object]:
    """One structured call through a fresh ``LLMClient``, its prompt ``prompt_chars`` long."""
    settings = llm_settings(temp_dir(), llm.base_url)
    client = LLMClient(settings)
    half = "words " * (prompt_chars // 12)
    messages = [{"role": "system", "content": half}, {"role": "user", "content": half}]
    return lambda: client.complete_structured(
        Analysis, messages, model=settings.fast_model, temperature=0.0, max_tokens=800
    )
