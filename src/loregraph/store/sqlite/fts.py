"""Keeping the FTS5 indexes in step with the tables they index.

The writer updates the indexes with one ``INSERT ... SELECT`` per batch of rows instead of
row triggers: an FTS5 insert made from a trigger flushes FTS5's pending terms for every row
(each row's statement opens a savepoint), which made relation writes three times slower.

Invariant: every ``entities``/``relations`` row is indexed with its current text columns,
and every chunk with its text and its document's title. ``unindex_*`` must be called
*before* the indexed columns change or the rows are deleted (FTS5 needs the old values), and
``index_*`` after they are inserted or changed.
"""

from __future__ import annotations

import sqlite3

from loregraph.store.sqlite.rows import IN_JSON

_ENTITY_TEXT = "pk, name, aliases, description FROM entities WHERE pk IN " + IN_JSON
_RELATION_TEXT = "pk, fact, type FROM relations WHERE pk IN " + IN_JSON


def index_entities(conn: sqlite3.Connection, pks_json: str) -> None:
    """Add entities (a JSON array of pks) to the BM25 index."""
    conn.execute(
        f"INSERT INTO entities_fts(rowid, name, aliases, description) SELECT {_ENTITY_TEXT}",
        (pks_json,),
    )


def unindex_entities(conn: sqlite3.Connection, pks_json: str) -> None:
    """Remove entities from the BM25 index (call before changing or deleting the rows)."""
    conn.execute(
        "INSERT INTO entities_fts(entities_fts, rowid, name, aliases, description) "
        f"SELECT 'delete', {_ENTITY_TEXT}",
        (pks_json,),
    )


def index_relations(conn: sqlite3.Connection, pks_json: str) -> None:
    """Add relations (a JSON array of pks) to the BM25 index."""
    conn.execute(
        f"INSERT INTO relations_fts(rowid, fact, type) SELECT {_RELATION_TEXT}", (pks_json,)
    )


def unindex_relations(conn: sqlite3.Connection, pks_json: str) -> None:
    """Remove relations from the BM25 index (call before changing or deleting the rows)."""
    conn.execute(
        "INSERT INTO relations_fts(relations_fts, rowid, fact, type) "
        f"SELECT 'delete', {_RELATION_TEXT}",
        (pks_json,),
    )


def index_chunks(conn: sqlite3.Connection, document_id: str, title: str) -> None:
    """Add a document's chunks, with its title, to the chunk index."""
    conn.execute(
        "INSERT INTO chunks_fts(rowid, text, title) "
        "SELECT pk, text, ? FROM chunks WHERE document_id = ?",
        (title, document_id),
    )


def unindex_chunks(conn: sqlite3.Connection, document_id: str, title: str) -> None:
    """Remove a document's chunks (indexed with ``title``) from the chunk index."""
    conn.execute(
        "INSERT INTO chunks_fts(chunks_fts, rowid, text, title) "
        "SELECT 'delete', pk, text, ? FROM chunks WHERE document_id = ?",
        (title, document_id),
    )
