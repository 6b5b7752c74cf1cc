"""One writer at a time per memory file: an exclusive lock held from open to close.

A command that writes a memory file reads it whole at open and writes it whole at close; two
such commands at once would each write their own result and the last would silently drop
the other's changes. So a writer takes an exclusive ``flock`` on a lock file next to the
memory file (``.<name>.lock``, left in place: removing it would let two writers lock two
different files) and a second writer waits for it, then reads what the first one wrote.
Readers take no lock: they read the file, which is only ever replaced whole.

Where the platform has no ``flock`` (Windows), writers are not serialised.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import IO

from loregraph.errors import StoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

WAIT_SECONDS = 120.0
"""How long a writer waits for another to finish before giving up."""
POLL_SECONDS = 0.05


class WriterLock:
    """The exclusive lock of one memory file (``acquire`` blocks; ``release`` is safe twice)."""

    def __init__(self, path: Path, wait: float = WAIT_SECONDS) -> None:
        self.file = path
        self.path = path.with_name(f".{path.name}.lock")
        self.wait = wait
        self._handle: IO[bytes] | None = None

    def acquire(self) -> None:
        """Take the lock, waiting up to ``wait`` seconds for another writer to finish;
        raises :class:`StoreError` when it does not."""
        if fcntl is None or self._handle is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "ab")  # noqa: SIM115 - held until release
        deadline = time.monotonic() + self.wait
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    handle.close()
                    raise StoreError(
                        f"another loregraph command has been writing {self.file} for over "
                        f"{self.wait:.0f} s: try again when it has finished"
                    ) from None
                time.sleep(POLL_SECONDS)
                continue
            self._handle = handle
            return

    def release(self) -> None:
        """Let the next writer in."""
        handle, self._handle = self._handle, None
        if handle is not None and fcntl is not None:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            handle.close()
