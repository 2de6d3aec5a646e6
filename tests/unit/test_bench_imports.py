"""Every benchmark module imports: the scripts outside ``make bench`` (``bench.reading``,
``bench.splitters``, ``bench.profile``) are run by hand, so nothing else notices when a
change in the app leaves one naming something that is gone."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import bench

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(bench.__path__, "bench.")
    if not m.name.endswith(".__main__")  # runs the benchmark when imported
)


def test_the_benchmarks_are_found() -> None:
    assert {"bench.reading", "bench.precision", "bench.latency", "bench.eval"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_a_benchmark_module_imports(name: str) -> None:
    importlib.import_module(name)
