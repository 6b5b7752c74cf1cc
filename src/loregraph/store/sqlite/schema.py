"""The SQLite schema: tables, full-text indexes and versions (migrations: :mod:`.migrations`).

Layout. Documents, chunks, entities and relations have a text ``id`` (the model's) and an
integer ``pk`` (a rowid alias, stable across VACUUM). Every other table refers to them by
``pk``: new rows get increasing pks, so the indexes of a bulk load grow at their end instead
of at random places (text ids are hashes), which keeps large writes fast.

* ``documents``, ``chunks``;
* ``entity_vectors`` and ``chunk_vectors``: embeddings as little-endian float32 BLOBs, one
  row per embedded entity or chunk. Kept apart so that the entity and chunk tables stay
  small (a 384-d vector is 1.5 KB) and loading a scope's vectors is one sequential scan;
* ``entities`` with ``aliases`` (JSON array, derived) and ``search_keys`` (derived: the name
  key and alias keys, each padded as ``"  key "``, one per line, for fuzzy search, which
  runs in memory: see :mod:`loregraph.store.names`);
* per-document contributions, so that deleting a document removes exactly what it added:
  ``entity_descriptions`` (one row per entity a document lists, with its description, maybe
  empty), ``entity_aliases`` (surface forms a document used), ``mentions`` (per chunk),
  ``relation_evidence`` (``chunk`` is NULL when a document asserted a relation without a
  supporting chunk);
* ``relations``: unique per (source, type, target, statement), which is unique per scope
  since both ends belong to the relation's scope (``statement``: the memory or document a
  dated fact of a functional type was stated by, one relation per statement; else empty);
  ``merges``, ``llm_cache``, ``meta`` (schema version, per-scope graph versions);
* FTS5: ``chunks_fts`` (contentless: chunk text + document title), ``entities_fts`` (name,
  aliases, description) and ``relations_fts`` (fact, type), the last two external-content
  tables; ``chunks_trigram`` (contentless, trigram tokenizer: substring search for chunks
  in scripts written without spaces or with attached particles, see
  :mod:`loregraph.store.scripts`) and ``chunks_trigram_vocab`` (its terms, for looking up
  one- and two-character terms). The writer keeps them in sync in the same transaction (see
  :mod:`.fts`; no triggers, on purpose).

``llm_cache`` and ``relations_fts`` are no longer read (the LLM response cache lives in its
own file, and the store contract has no relation text search); they stay, kept in step, so
that the schema is unchanged.

``ledger`` holds what belongs to no document (:mod:`loregraph.store.ledger`): API keys,
grants, scope links, merge decisions and the audit log, one JSON value a row.

Versions: 1, the first; 2 adds ``chunks_trigram`` (and fills it from the stored chunks);
3 adds ``api_keys``; 4 adds ``merge_decisions`` and ``audit_log``; 5 adds
``relations.invalidated_by``, the id of the memory or document that ended a relation
(forgetting it opens the relation again); 6 adds ``relations.statement`` (the table is
rebuilt, since SQLite cannot change a UNIQUE constraint; foreign keys are off while
:func:`ensure_schema` migrates, as SQLite's procedure for this asks); 7 adds
``entity_descriptions.salience`` and ``confidence``, the document's own values (NULL in rows
written before: unknown, so the entity keeps its stored values); 8 adds ``grants`` (a
principal's role per scope) and ``scope_links`` (the scopes whose documents a scope reads);
9 moves the rows of ``api_keys``, ``grants``, ``scope_links``, ``merge_decisions`` and
``audit_log`` into ``ledger`` and drops those tables.

Every foreign-key column is indexed (deleting a parent row would otherwise scan the child).
WITHOUT ROWID tables list their primary-key columns first and in key order: SQLite 3.40's
``PRAGMA integrity_check`` reports false "NULL value" errors otherwise.
"""

from __future__ import annotations

import sqlite3

from loregraph.errors import StoreError

# Porter stemming: "proposed" finds "proposals", "travelled" finds "travels".
_TEXT = "tokenize='porter unicode61 remove_diacritics 2'"

TRIGRAM_TABLES = """
CREATE VIRTUAL TABLE chunks_trigram USING fts5(text, title, content='', tokenize='trigram');
CREATE VIRTUAL TABLE chunks_trigram_vocab USING fts5vocab(chunks_trigram, 'row');
"""

KEY_TABLES = """
CREATE TABLE api_keys (
    pk INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    key_hash TEXT NOT NULL UNIQUE,
    roles TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
"""
CHANGE_TABLES = """
CREATE TABLE IF NOT EXISTS merge_decisions (
    scope TEXT NOT NULL,
    kind TEXT NOT NULL,
    merge_id TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    surface TEXT NOT NULL,
    rule TEXT NOT NULL,
    score REAL NOT NULL DEFAULT 1,
    document_id TEXT,
    principal TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    PRIMARY KEY (scope, kind, merge_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS audit_log (
    pk INTEGER PRIMARY KEY,
    scope TEXT NOT NULL,
    at TEXT NOT NULL,
    principal TEXT NOT NULL,
    action TEXT NOT NULL,
    subject TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS audit_log_scope ON audit_log(scope, pk);
"""
"""Version 4: remembered merge decisions (never merge again / merged by hand) and the audit
log. Text ids, no foreign keys: a decision outlives the rows it names."""
GRANT_TABLES = """
CREATE TABLE IF NOT EXISTS grants (
    principal TEXT NOT NULL,
    scope TEXT NOT NULL,
    role TEXT NOT NULL,
    PRIMARY KEY (principal, scope)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS scope_links (
    scope TEXT NOT NULL,
    linked TEXT NOT NULL,
    share TEXT NOT NULL,
    documents TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (scope, linked)
) WITHOUT ROWID;
"""
"""Version 8: principals' roles by scope and the links between scopes (``documents``: the
JSON list of the document ids a selective link shares)."""
LEDGER_TABLE = """
CREATE TABLE IF NOT EXISTS ledger (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    part TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    UNIQUE (kind, part, key)
);
"""
"""Version 9: API keys, grants, scope links, merge decisions and the audit log as rows of
one table (``seq``: the order rows were first written)."""


INVALIDATED_INDEX = (
    "CREATE INDEX relations_invalidated_by ON relations(invalidated_by) "
    "WHERE invalidated_by IS NOT NULL;"
)
"""Finds the relations a memory or document ended, when it is forgotten."""

RELATIONS_TABLE = f"""
CREATE TABLE relations (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL,
    source INTEGER NOT NULL REFERENCES entities(pk) ON DELETE CASCADE,
    target INTEGER NOT NULL REFERENCES entities(pk) ON DELETE CASCADE,
    type TEXT NOT NULL,
    fact TEXT NOT NULL DEFAULT '',
    weight REAL NOT NULL DEFAULT 0,
    confidence REAL NOT NULL DEFAULT 1,
    valid_at TEXT,
    invalid_at TEXT,
    created_at TEXT NOT NULL,
    expired_at TEXT,
    invalidated_by TEXT,
    statement TEXT NOT NULL DEFAULT '',
    UNIQUE (source, type, target, statement)
);
CREATE INDEX relations_source ON relations(source, weight);
CREATE INDEX relations_target ON relations(target, weight);
{INVALIDATED_INDEX}"""
"""The relations table and its indexes (also what version 6 rebuilds it as)."""

TABLES = f"""
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value
) WITHOUT ROWID;

CREATE TABLE documents (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL,
    title TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL,
    kind TEXT NOT NULL,
    visibility TEXT NOT NULL,
    owner TEXT,
    metadata TEXT NOT NULL DEFAULT '{{}}',
    status TEXT NOT NULL,
    char_count INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    valid_at TEXT
);
CREATE INDEX documents_scope ON documents(scope, created_at);
CREATE INDEX documents_hash ON documents(scope, content_hash);
CREATE INDEX documents_source ON documents(scope, source);

CREATE TABLE chunks (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    scope TEXT NOT NULL,
    seq INTEGER NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    text TEXT NOT NULL,
    token_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX chunks_document ON chunks(document_id, seq);
CREATE INDEX chunks_scope ON chunks(scope);

CREATE TABLE entities (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    type TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    aliases TEXT NOT NULL DEFAULT '[]',
    search_keys TEXT NOT NULL DEFAULT '',
    mention_count INTEGER NOT NULL DEFAULT 0,
    salience REAL NOT NULL DEFAULT 0,
    confidence REAL NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (scope, name_key)
);
CREATE INDEX entities_mentions ON entities(scope, mention_count);
CREATE INDEX entities_type ON entities(scope, type);

CREATE TABLE entity_vectors (
    entity INTEGER PRIMARY KEY REFERENCES entities(pk) ON DELETE CASCADE,
    embedding BLOB NOT NULL
);

CREATE TABLE chunk_vectors (
    chunk INTEGER PRIMARY KEY REFERENCES chunks(pk) ON DELETE CASCADE,
    embedding BLOB NOT NULL
);

CREATE TABLE entity_descriptions (
    entity INTEGER NOT NULL REFERENCES entities(pk) ON DELETE CASCADE,
    document INTEGER NOT NULL REFERENCES documents(pk) ON DELETE CASCADE,
    description TEXT NOT NULL DEFAULT '',
    salience REAL,
    confidence REAL,
    PRIMARY KEY (entity, document)
) WITHOUT ROWID;
CREATE INDEX entity_descriptions_document ON entity_descriptions(document);

CREATE TABLE entity_aliases (
    entity INTEGER NOT NULL REFERENCES entities(pk) ON DELETE CASCADE,
    alias_key TEXT NOT NULL,
    document INTEGER NOT NULL REFERENCES documents(pk) ON DELETE CASCADE,
    alias TEXT NOT NULL,
    PRIMARY KEY (entity, alias_key, document)
) WITHOUT ROWID;
CREATE INDEX entity_aliases_key ON entity_aliases(alias_key);
CREATE INDEX entity_aliases_document ON entity_aliases(document);

CREATE TABLE mentions (
    entity INTEGER NOT NULL REFERENCES entities(pk) ON DELETE CASCADE,
    chunk INTEGER NOT NULL REFERENCES chunks(pk) ON DELETE CASCADE,
    surface TEXT NOT NULL,
    count INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (entity, chunk, surface)
) WITHOUT ROWID;
CREATE INDEX mentions_chunk ON mentions(chunk);

{RELATIONS_TABLE}

CREATE TABLE relation_evidence (
    pk INTEGER PRIMARY KEY,
    relation INTEGER NOT NULL REFERENCES relations(pk) ON DELETE CASCADE,
    document INTEGER NOT NULL REFERENCES documents(pk) ON DELETE CASCADE,
    chunk INTEGER,
    sentence TEXT NOT NULL DEFAULT '',
    start INTEGER NOT NULL DEFAULT 0,
    "end" INTEGER NOT NULL DEFAULT 0,
    confidence REAL NOT NULL DEFAULT 1
);
CREATE INDEX relation_evidence_relation ON relation_evidence(relation);
CREATE INDEX relation_evidence_document ON relation_evidence(document);

CREATE TABLE merges (
    pk INTEGER PRIMARY KEY,
    scope TEXT NOT NULL,
    entity INTEGER NOT NULL REFERENCES entities(pk) ON DELETE CASCADE,
    surface TEXT NOT NULL,
    rule TEXT NOT NULL,
    score REAL NOT NULL DEFAULT 1,
    document INTEGER REFERENCES documents(pk) ON DELETE CASCADE,
    created_at TEXT NOT NULL
);
CREATE INDEX merges_scope ON merges(scope, created_at);
CREATE INDEX merges_entity ON merges(entity);
CREATE INDEX merges_document ON merges(document);

CREATE TABLE llm_cache (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    value TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE VIRTUAL TABLE chunks_fts USING fts5(text, title, content='', {_TEXT});
CREATE VIRTUAL TABLE entities_fts USING fts5(
    name, aliases, description, content='entities', content_rowid='pk', {_TEXT}
);
CREATE VIRTUAL TABLE relations_fts USING fts5(
    fact, type, content='relations', content_rowid='pk', {_TEXT}
);
{TRIGRAM_TABLES}
{LEDGER_TABLE}"""


def read_version(conn: sqlite3.Connection) -> int | None:
    """The recorded schema version, ``None`` for an empty database.

    Raises :class:`StoreError` for a database that holds tables but is not a loregraph store.
    """
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not names:
        return None
    if "meta" not in names:
        raise StoreError(
            "this SQLite database is not a loregraph store (it has no 'meta' table); "
            "choose another path for the store"
        )
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        raise StoreError("this loregraph store has no recorded schema version; it is damaged")
    return int(row[0])


def statements(script: str) -> list[str]:
    """Split a DDL script into complete statements (trigger bodies contain semicolons)."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            if current.strip():
                statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements
