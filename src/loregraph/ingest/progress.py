"""Progress reporting for long work, decoupled from any terminal library."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """Receives progress events. The CLI shows them as bars; the library default ignores them."""

    def start(self, stage: str, total: int | None) -> None:
        """A stage begins; ``total`` units are expected (``None`` if unknown)."""
        ...

    def advance(self, stage: str, amount: int = 1) -> None:
        """``amount`` more units of ``stage`` are done."""
        ...

    def finish(self, stage: str) -> None:
        """A stage is over."""
        ...


class NullProgress:
    """A progress sink that does nothing."""

    def start(self, stage: str, total: int | None) -> None:
        """Ignore."""

    def advance(self, stage: str, amount: int = 1) -> None:
        """Ignore."""

    def finish(self, stage: str) -> None:
        """Ignore."""
