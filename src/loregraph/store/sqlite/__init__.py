"""The default backend: one SQLite file with FTS5 (BM25, trigram) and NumPy vector search."""

from loregraph.store.sqlite.store import SqliteStore

__all__ = ["SqliteStore"]
