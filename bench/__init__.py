"""Benchmarks for issue 10: ``python -m bench.run`` prints one table and writes RESULTS.md."""
