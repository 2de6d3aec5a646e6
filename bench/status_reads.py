"""Status reads against history length: a poll must cost the same at 10 or 10,000 events.

Two ``fan`` instances of ``bench.engine_app`` run to completion on one devhost:
one with a short history, one with a long one (each no-op activity adds a
``TaskScheduled`` and a ``TaskCompleted``). Then the status of each is read
the way a client reads it, over HTTP through devhost's Durable status
endpoint, and straight from the instance store (the part that once read
through the whole history row). The ratios long / short are what matter:
about 1 means the read does not grow with the history.

``python -m bench.status_reads`` runs it alone.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import httpx

from bench import engine_app
from bench.results import Row, verdict
from bench.scenarios import offline_settings, temp_dir
from devhost.host import DevHost

SHORT, LONG = 5, 5000  # activities: about 10+ and 10,000+ history events
HTTP_READS = 300
STORE_READS = 3000
RATIO_TARGET = 1.5  # long / short p50; noise on a shared machine stays well below


def p50(read: Callable[[], object], times: int) -> float:
    """Median seconds of ``times`` calls of ``read`` after a short warm-up."""
    for _ in range(20):
        read()
    samples = []
    for _ in range(times):
        begun = time.perf_counter()
        read()
        samples.append(time.perf_counter() - begun)
    return statistics.median(samples)


def _run(host: DevHost, client: httpx.Client, n: int) -> tuple[str, int]:
    """Start ``fan`` of ``n`` over HTTP, wait; (its status URL, its history length)."""
    response = client.post("/api/start/fan", json=n)
    response.raise_for_status()
    links = response.json()
    assert host.engine is not None
    inst = host.engine.wait(links["id"], 600)
    assert inst is not None and inst.status == "Completed", inst and inst.status
    return links["statusQueryGetUri"], len(inst.history)


def bench_status_reads() -> list[Row]:
    host = DevHost(offline_settings(temp_dir()), port=0, app=engine_app.build_app()).start()
    try:
        assert host.engine is not None
        store = host.engine.store
        with httpx.Client(base_url=host.url, timeout=60) as client:
            (short_url, short_events), (long_url, long_events) = (
                _run(host, client, n) for n in (SHORT, LONG)
            )
            http = [
                p50(lambda u=u: client.get(u).raise_for_status(), HTTP_READS)
                for u in (short_url, long_url)
            ]
        ids = [url.split("/instances/")[1].split("?")[0] for url in (short_url, long_url)]
        stored = [p50(lambda i=i: store.summary(i), STORE_READS) for i in ids]
    finally:
        host.stop()
    http_ratio, store_ratio = http[1] / http[0], stored[1] / stored[0]
    sizes = f"{short_events} vs {long_events} history events"
    return [
        (
            f"status read over HTTP (Durable status endpoint), {sizes}: p50 long / short",
            f"{http[0] * 1000:.2f} / {http[1] * 1000:.2f} ms = {http_ratio:.2f}",
            f"≤ {RATIO_TARGET}",
            verdict(http_ratio <= RATIO_TARGET),
        ),
        (
            f"status read from the instance store, {sizes}: p50 long / short",
            f"{stored[0] * 1e6:.0f} / {stored[1] * 1e6:.0f} µs = {store_ratio:.2f}",
            f"≤ {RATIO_TARGET}",
            verdict(store_ratio <= RATIO_TARGET),
        ),
    ]


if __name__ == "__main__":
    for row in bench_status_reads():
        print(" | ".join(row))
