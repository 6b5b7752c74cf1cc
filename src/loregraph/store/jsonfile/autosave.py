"""When a memory file store writes its file after a change.

A change is written at once, unless the file was written less than :data:`SAVE_SPACING`
times the last write's duration ago: then a timer writes it when that time is up. So a
long-lived process (a server, an agent's MCP session) has each change on disk a moment
after it is made, and a long ingest spends about a tenth of its time or less rewriting the
file. A change made while the file is being written is written after it, the same way; a
failed write is logged and tried again the same way (only the store's write at close
raises).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from loregraph.errors import StoreError

log = logging.getLogger(__name__)

SAVE_SPACING = 10.0
"""An automatic write waits this many times the last write's duration after it."""


class Autosave:
    """Writes a store's file after its changes (see the module notes).

    ``save`` writes the file; ``pending`` says whether there is anything to write.
    """

    def __init__(self, save: Callable[[], Awaitable[None]], pending: Callable[[], bool]) -> None:
        self._save = save
        self._pending = pending
        self.saving = False
        """Whether a write is under way (set by the store around every write)."""
        self._last = (0.0, 0.0)
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None

    def wrote(self, ended: float, took: float) -> None:
        """Record a write (automatic or not) that ended at ``ended`` and took ``took`` s."""
        self._last = (ended, took)

    async def changed(self) -> None:
        """After a change: write now, or when the spacing since the last write is up."""
        if self.saving or self._timer is not None:
            return  # the write under way, or the timer, takes care of it
        if self._wait() > 0:
            self._later()
            return
        await self._write()

    def _wait(self) -> float:
        ended, took = self._last
        return ended + SAVE_SPACING * took - time.monotonic()

    def _later(self) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(max(self._wait(), 0.0), self._due)

    def _due(self) -> None:
        self._timer = None
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        if self.saving or not self._pending():
            return
        try:
            await self._save()
        except StoreError as exc:
            log.warning("%s (tried again later, and at close)", exc)
        if self._pending() and self._timer is None:
            self._later()

    async def stop(self) -> None:
        """Cancel the timer and wait for a write under way (before the store's last write)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        task, self._task = self._task, None
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
