"""The SurrealDB store (``--db surrealkv://PATH``, ``mem://``, ``ws://...``)."""

from loregraph.store.surreal.store import SurrealStore

__all__ = ["SurrealStore"]
