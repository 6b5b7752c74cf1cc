"""loregraph's benchmark suite: retrieval and extraction quality, speed, memory and scale.

Run with ``make bench-quick`` / ``make bench`` or ``python -m bench.run --help``; results go
to ``bench/results/*.json`` and the tables of BENCHMARKS.md.
"""
