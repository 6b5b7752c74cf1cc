"""Retrieval test fixtures: a real SQLite store holding a small hand-made corpus."""

from __future__ import annotations

from retrieve_fixtures import embedder, store

__all__ = ["embedder", "store"]
