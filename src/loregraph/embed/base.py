"""The embedder interface."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension.

    ``embed`` is synchronous and CPU-bound (or blocking I/O); async callers run it in a
    worker thread.
    """

    name: str

    @property
    def dim(self) -> int:
        """The vector size."""
        ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed texts; returns an array of shape ``(len(texts), dim)``."""
        ...
