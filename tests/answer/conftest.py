"""Answer tests reuse the retrieval tests' hand-made corpus and fixtures."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "retrieve"))

from retrieve_fixtures import embedder, store

__all__ = ["embedder", "store"]
