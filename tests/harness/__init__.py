"""The robustness harness: kill-and-resume ingests, fuzzed inputs, concurrent processes.

The scenario modules (``crash``, ``concurrency``, ``stores``, ``corpora``) are shared by the
tests here (bounded counts, in ``make test``) and by ``bench/harness.py`` (larger counts,
figures in BENCHMARKS.md).
"""
