"""The default backend: one SQLite file, FTS5 for BM25, in-memory vector and fuzzy-name search."""

from loregraph.store.sqlite.store import SqliteStore

__all__ = ["SqliteStore"]
