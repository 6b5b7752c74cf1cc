"""Keeping the FTS5 indexes in step with the tables they index.

The writer updates the indexes with one ``INSERT ... SELECT`` per batch of rows instead of
row triggers: an FTS5 insert made from a trigger flushes FTS5's pending terms for every row
(each row's statement opens a savepoint), which made relation writes three times slower.

Invariant: every ``entities``/``relations`` row is indexed with its current text columns,
and every chunk with its text and its document's title. ``unindex_*`` must be called
*before* the indexed columns change or the rows are deleted (FTS5 needs the old values), and
``index_*`` after they are inserted or changed.

``chunks_trigram`` (FTS5 ``trigram`` tokenizer, contentless) indexes for substring search
only the chunks whose text or document title holds a script that word search serves badly
(:mod:`loregraph.store.scripts`): a store of English text pays nothing for it. Which chunks
it holds is decided in SQL by one ``GLOB`` over the stored text and title, so removing a
chunk selects exactly the rows that adding it selected.
"""

from __future__ import annotations

import sqlite3

from loregraph.store.scripts import SUBSTRING_SCRIPT_GLOB
from loregraph.store.sqlite.rows import IN_JSON

_NEEDS_TRIGRAMS = "(? GLOB ? OR text GLOB ?)"
# Two spaces after text and title give a one- or two-character term at the very end a
# three-character piece that starts with it (see :func:`.search.search_substrings`).
_PADDED = "text || '  ', ? || '  '"

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
    """Add a document's chunks, with its title, to the chunk indexes."""
    conn.execute(
        "INSERT INTO chunks_fts(rowid, text, title) "
        "SELECT pk, text, ? FROM chunks WHERE document_id = ?",
        (title, document_id),
    )
    conn.execute(
        "INSERT INTO chunks_trigram(rowid, text, title) "
        f"SELECT pk, {_PADDED} FROM chunks WHERE document_id = ? AND {_NEEDS_TRIGRAMS}",
        (title, document_id, title, SUBSTRING_SCRIPT_GLOB, SUBSTRING_SCRIPT_GLOB),
    )


def unindex_chunks(conn: sqlite3.Connection, document_id: str, title: str) -> None:
    """Remove a document's chunks (indexed with ``title``) from the chunk indexes."""
    conn.execute(
        "INSERT INTO chunks_fts(chunks_fts, rowid, text, title) "
        "SELECT 'delete', pk, text, ? FROM chunks WHERE document_id = ?",
        (title, document_id),
    )
    conn.execute(
        "INSERT INTO chunks_trigram(chunks_trigram, rowid, text, title) "
        f"SELECT 'delete', pk, {_PADDED} FROM chunks "
        f"WHERE document_id = ? AND {_NEEDS_TRIGRAMS}",
        (title, document_id, title, SUBSTRING_SCRIPT_GLOB, SUBSTRING_SCRIPT_GLOB),
    )


FTS_TABLES = ("chunks_fts", "chunks_trigram", "entities_fts", "relations_fts")


def purge_deleted(conn: sqlite3.Connection) -> None:
    """Merge each index's segments into one, so that the terms of deleted rows leave the
    file (FTS5 keeps them in the old segments until a merge; its ``secure-delete`` option
    needs SQLite 3.44). With ``secure_delete`` on, the freed pages are zeroed."""
    for table in FTS_TABLES:
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")


def index_all_trigrams(conn: sqlite3.Connection) -> None:
    """Fill the substring index from every stored chunk (the migration that adds it)."""
    conn.execute(
        "INSERT INTO chunks_trigram(rowid, text, title) "
        "SELECT c.pk, c.text || '  ', d.title || '  ' FROM chunks AS c JOIN documents AS d "
        "ON d.id = c.document_id WHERE d.title GLOB ? OR c.text GLOB ?",
        (SUBSTRING_SCRIPT_GLOB, SUBSTRING_SCRIPT_GLOB),
    )
