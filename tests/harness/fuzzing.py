"""Hypothesis profiles of the fuzz tests and the tally of inputs each target ran.

Profiles (chosen with ``LOREGRAPH_HARNESS_PROFILE``):

* ``ci`` (default, ``make test``): derandomized (the same inputs on every run, so a failure
  in CI reproduces locally), no deadline, no example database; the targets' example counts
  sum to more than 10,000.
* ``bench`` (``make bench``): five times the examples, randomized, so each benchmark run
  explores new inputs.

Only the harness's own tests use these profiles (they are applied per test with
:func:`fuzz`, never loaded globally), so other tests keep their own settings.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import HealthCheck, settings

settings.register_profile(
    "harness-ci",
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "harness-bench",
    deadline=None,
    derandomize=False,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

PROFILE = os.environ.get("LOREGRAPH_HARNESS_PROFILE", "ci")
if PROFILE not in ("ci", "bench"):
    raise ValueError(f"LOREGRAPH_HARNESS_PROFILE must be ci or bench, not {PROFILE!r}")
SCALE = {"ci": 1, "bench": 5}[PROFILE]

TALLY: Counter[str] = Counter()
"""Generated inputs run per fuzz target in this process."""


def fuzz(examples: int) -> settings:
    """The active profile with ``examples`` examples (times the profile's scale)."""
    return settings(settings.get_profile(f"harness-{PROFILE}"), max_examples=examples * SCALE)


def tally(target: str) -> None:
    """Count one generated input for ``target``."""
    TALLY[target] += 1


def _fast_base() -> str | None:
    """A RAM-backed folder for the many small files the fuzz tests write, when there is one
    (creating and removing a folder on a disk-backed /tmp costs milliseconds)."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


@contextmanager
def scratch() -> Iterator[Path]:
    """A new empty folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="loregraph-fuzz-", dir=_fast_base()) as tmp:
        yield Path(tmp)
