"""The PostgreSQL schema: tables, indexes, and per-dimension vector indexes.

Version 1 is the first; version 2 adds ``chunks_substrings``, a pg_trgm index of the chunks
whose text holds a script that word search serves badly (:mod:`loregraph.store.scripts`),
for substring search in them; version 3 adds ``api_keys``, the HTTP server's keys (name,
SHA-256 of the secret, roles by scope as JSON text, created and revoked times; in no scope);
version 4 adds ``merge_decisions`` and ``audit_log``;
version 5 adds ``relations.invalidated_by``, the id of the memory or document that ended a
relation (forgetting it opens the relation again); version 6 adds ``relations.statement``
(the memory or document whose statement a dated fact of a functional type is: one relation
per statement; empty for the others) to the relation's unique key; version 7 adds each
listing document's own salience and confidence; version 8 adds ``grants`` (a principal's
role per scope) and ``scope_links`` (the scopes whose documents a scope reads); version 9
moves those five tables' rows into ``ledger`` (JSON values) and drops them.

Layout. Documents, chunks, entities and relations have a text ``id`` (the model's) and a
``bigint`` identity ``pk``; every other table refers to them by ``pk`` with
``ON DELETE CASCADE``, so deleting a row removes exactly what hangs off it.

* ``entities`` is unique per ``(scope, name_key)``: concurrent writers that create the same
  entity meet on that key (``INSERT ... ON CONFLICT``), never in a duplicate row;
* ``relations`` is unique per ``(source, type, target, statement)`` (which implies the
  scope);
* per-document contributions, so that deleting a document removes exactly what it added:
  ``entity_descriptions``, ``entity_aliases``, ``mentions`` (per chunk) and
  ``relation_evidence`` (``chunk`` NULL when a document asserted a relation without one);
* derived, kept in step by the writer: entity ``mention_count``/``description``/``aliases``,
  relation ``weight``/``confidence``, ``entity_keys`` (an entity's name key and alias keys,
  trigram-indexed for fuzzy search) and the ``search`` tsvectors (BM25-like ranking with
  ``ts_rank_cd``; the relations' one is a generated column);
* ``embedding`` is a dimensionless ``vector`` with its ``dim``; an HNSW cosine index is built
  per dimension on first use (:func:`vector_index_statements`);
* ``graph_versions`` (one counter per scope), ``merges``, ``llm_cache``, and
  ``schema_migrations`` (one row per applied version, see :mod:`.migrations`).

``llm_cache`` and the relations' ``search`` vector are no longer read (the LLM response
cache lives in its own file, and the store contract has no relation text search); they stay
so that the schema is unchanged.

Text columns that are compared or sorted use the ``"C"`` collation (byte order), as SQLite does.
"""

from __future__ import annotations

from loregraph.store.scripts import SUBSTRING_SCRIPT_REGEX

EXTENSIONS = ("vector", "pg_trgm", "btree_gist")
"""Extensions the schema needs (pgvector; pg_trgm and btree_gist ship with PostgreSQL)."""

MAX_INDEXED_DIM = 2000
"""pgvector's HNSW limit for ``vector``; larger embeddings are searched without an index."""

VECTOR_TABLES = ("entities", "chunks")

VERSION_1 = """
CREATE TABLE documents (
    pk bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    scope text COLLATE "C" NOT NULL,
    title text NOT NULL,
    source text NOT NULL DEFAULT '',
    content_hash text NOT NULL,
    kind text NOT NULL,
    visibility text NOT NULL,
    owner text,
    metadata jsonb NOT NULL DEFAULT '{}',
    status text NOT NULL,
    char_count integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    valid_at timestamptz
);
CREATE INDEX documents_scope ON documents (scope, created_at, pk);
CREATE INDEX documents_hash ON documents (scope, content_hash);
CREATE INDEX documents_source ON documents (scope, source);

CREATE TABLE chunks (
    pk bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    document bigint NOT NULL REFERENCES documents (pk) ON DELETE CASCADE,
    scope text COLLATE "C" NOT NULL,
    seq integer NOT NULL,
    start integer NOT NULL,
    "end" integer NOT NULL,
    text text NOT NULL,
    token_count integer NOT NULL DEFAULT 0,
    search tsvector NOT NULL,
    dim integer,
    embedding vector
);
CREATE INDEX chunks_document ON chunks (document, seq);
CREATE INDEX chunks_scope ON chunks (scope, pk);
CREATE INDEX chunks_search ON chunks USING gin (search);

CREATE TABLE entities (
    pk bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    scope text COLLATE "C" NOT NULL,
    name text COLLATE "C" NOT NULL,
    name_key text COLLATE "C" NOT NULL,
    type text COLLATE "C" NOT NULL DEFAULT '',
    description text COLLATE "C" NOT NULL DEFAULT '',
    aliases text[] COLLATE "C" NOT NULL DEFAULT '{}',
    mention_count bigint NOT NULL DEFAULT 0,
    salience double precision NOT NULL DEFAULT 0,
    confidence double precision NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    search tsvector NOT NULL DEFAULT ''::tsvector,
    dim integer,
    embedding vector,
    CONSTRAINT entities_scope_key UNIQUE (scope, name_key)
);
CREATE INDEX entities_scope ON entities (scope, pk);
CREATE INDEX entities_mentions ON entities (scope, mention_count DESC);
CREATE INDEX entities_type ON entities (scope, type);
CREATE INDEX entities_search ON entities USING gin (search);

CREATE TABLE entity_keys (
    entity bigint NOT NULL REFERENCES entities (pk) ON DELETE CASCADE,
    key text COLLATE "C" NOT NULL,
    scope text COLLATE "C" NOT NULL,
    type text COLLATE "C" NOT NULL,
    PRIMARY KEY (entity, key)
);
CREATE INDEX entity_keys_trigrams ON entity_keys USING gist (scope, key gist_trgm_ops);

CREATE TABLE entity_descriptions (
    entity bigint NOT NULL REFERENCES entities (pk) ON DELETE CASCADE,
    document bigint NOT NULL REFERENCES documents (pk) ON DELETE CASCADE,
    description text COLLATE "C" NOT NULL DEFAULT '',
    PRIMARY KEY (entity, document)
);
CREATE INDEX entity_descriptions_document ON entity_descriptions (document);

CREATE TABLE entity_aliases (
    entity bigint NOT NULL REFERENCES entities (pk) ON DELETE CASCADE,
    alias_key text COLLATE "C" NOT NULL,
    document bigint NOT NULL REFERENCES documents (pk) ON DELETE CASCADE,
    alias text COLLATE "C" NOT NULL,
    PRIMARY KEY (entity, alias_key, document)
);
CREATE INDEX entity_aliases_key ON entity_aliases (alias_key);
CREATE INDEX entity_aliases_document ON entity_aliases (document);

CREATE TABLE mentions (
    entity bigint NOT NULL REFERENCES entities (pk) ON DELETE CASCADE,
    chunk bigint NOT NULL REFERENCES chunks (pk) ON DELETE CASCADE,
    surface text COLLATE "C" NOT NULL,
    count integer NOT NULL DEFAULT 1,
    PRIMARY KEY (entity, chunk, surface)
);
CREATE INDEX mentions_chunk ON mentions (chunk);

CREATE TABLE relations (
    pk bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    scope text COLLATE "C" NOT NULL,
    source bigint NOT NULL REFERENCES entities (pk) ON DELETE CASCADE,
    target bigint NOT NULL REFERENCES entities (pk) ON DELETE CASCADE,
    type text COLLATE "C" NOT NULL,
    fact text NOT NULL DEFAULT '',
    weight double precision NOT NULL DEFAULT 0,
    confidence double precision NOT NULL DEFAULT 1,
    valid_at timestamptz,
    invalid_at timestamptz,
    created_at timestamptz NOT NULL,
    expired_at timestamptz,
    search tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, fact), 'A')
        || setweight(to_tsvector('english'::regconfig, replace(type, '_', ' ')), 'B')
    ) STORED,
    CONSTRAINT relations_triple UNIQUE (source, type, target)
);
CREATE INDEX relations_source ON relations (source, weight DESC, pk);
CREATE INDEX relations_target ON relations (target, weight DESC, pk);
CREATE INDEX relations_scope ON relations (scope, pk);
CREATE INDEX relations_search ON relations USING gin (search);

CREATE TABLE relation_evidence (
    pk bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    relation bigint NOT NULL REFERENCES relations (pk) ON DELETE CASCADE,
    document bigint NOT NULL REFERENCES documents (pk) ON DELETE CASCADE,
    chunk bigint REFERENCES chunks (pk) ON DELETE CASCADE,
    sentence text NOT NULL DEFAULT '',
    start integer NOT NULL DEFAULT 0,
    "end" integer NOT NULL DEFAULT 0,
    confidence double precision NOT NULL DEFAULT 1
);
CREATE INDEX relation_evidence_relation ON relation_evidence (relation);
CREATE INDEX relation_evidence_document ON relation_evidence (document);
CREATE INDEX relation_evidence_chunk ON relation_evidence (chunk);

CREATE TABLE merges (
    pk bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope text COLLATE "C" NOT NULL,
    entity bigint NOT NULL REFERENCES entities (pk) ON DELETE CASCADE,
    surface text NOT NULL,
    rule text NOT NULL,
    score double precision NOT NULL DEFAULT 1,
    document bigint REFERENCES documents (pk) ON DELETE CASCADE,
    created_at timestamptz NOT NULL
);
CREATE INDEX merges_scope ON merges (scope, created_at);
CREATE INDEX merges_entity ON merges (entity);
CREATE INDEX merges_document ON merges (document);

CREATE TABLE llm_cache (
    key text PRIMARY KEY,
    model text NOT NULL,
    value text NOT NULL,
    created_at timestamptz NOT NULL
);

CREATE TABLE graph_versions (
    scope text COLLATE "C" PRIMARY KEY,
    version bigint NOT NULL
);
"""


SUBSTRING_ROWS = f"text ~ '{SUBSTRING_SCRIPT_REGEX}'"
"""The predicate of the chunks the substring index holds; a query must repeat it verbatim
for the planner to use the (partial) index."""

VERSION_2 = f"""
CREATE INDEX chunks_substrings ON chunks USING gin (text gin_trgm_ops) WHERE {SUBSTRING_ROWS}
"""

VERSION_3 = """
CREATE TABLE api_keys (
    pk bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text COLLATE "C" NOT NULL UNIQUE,
    key_hash text COLLATE "C" NOT NULL UNIQUE,
    roles text NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    revoked_at timestamptz
)
"""


VERSION_4 = """
CREATE TABLE IF NOT EXISTS merge_decisions (
    scope text COLLATE "C" NOT NULL,
    kind text COLLATE "C" NOT NULL,
    merge_id text COLLATE "C" NOT NULL,
    entity_id text COLLATE "C" NOT NULL,
    surface text NOT NULL,
    rule text NOT NULL,
    score double precision NOT NULL DEFAULT 1,
    document_id text COLLATE "C",
    principal text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    PRIMARY KEY (scope, kind, merge_id)
);
CREATE TABLE IF NOT EXISTS audit_log (
    pk bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope text COLLATE "C" NOT NULL,
    at timestamptz NOT NULL,
    principal text NOT NULL,
    action text NOT NULL,
    subject text NOT NULL,
    detail text NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS audit_log_scope ON audit_log (scope, pk)
"""
"""Version 4: remembered merge decisions and the audit log (text ids, no foreign keys: a
decision outlives the rows it names)."""

VERSION_5 = """
ALTER TABLE relations ADD COLUMN invalidated_by text COLLATE "C";
CREATE INDEX relations_invalidated_by ON relations (invalidated_by)
    WHERE invalidated_by IS NOT NULL
"""

VERSION_6 = """
ALTER TABLE relations ADD COLUMN statement text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE relations DROP CONSTRAINT relations_triple;
ALTER TABLE relations ADD CONSTRAINT relations_statement UNIQUE (source, type, target, statement)
"""
"""Version 6: a dated fact of a functional type is one relation per statement."""

VERSION_7 = """
ALTER TABLE entity_descriptions ADD COLUMN salience double precision;
ALTER TABLE entity_descriptions ADD COLUMN confidence double precision
"""
"""Version 7: each listing document's own salience and confidence of an entity (NULL in the
rows already there: unknown, so the entity keeps its stored values)."""

VERSION_8 = """
CREATE TABLE IF NOT EXISTS grants (
    principal text COLLATE "C" NOT NULL,
    scope text COLLATE "C" NOT NULL,
    role text NOT NULL,
    PRIMARY KEY (principal, scope)
);
CREATE TABLE IF NOT EXISTS scope_links (
    scope text COLLATE "C" NOT NULL,
    linked text COLLATE "C" NOT NULL,
    share text NOT NULL,
    documents text NOT NULL DEFAULT '[]',
    PRIMARY KEY (scope, linked)
)
"""
"""Version 8: principals' roles by scope and the links between scopes (``documents``: the
JSON list of the document ids a selective link shares)."""


def _utc(column: str) -> str:
    """A timestamptz column as :func:`~loregraph.store.rows.iso` writes a time."""
    return f"to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"')"


VERSION_9 = f"""
CREATE TABLE IF NOT EXISTS ledger (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind text COLLATE "C" NOT NULL,
    part text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    value jsonb NOT NULL,
    UNIQUE (kind, part, key)
);
INSERT INTO ledger (kind, part, key, value)
    SELECT 'api_key', '', name, jsonb_build_object('name', name, 'key_hash', key_hash,
        'roles', roles::jsonb, 'created_at', {_utc("created_at")},
        'revoked_at', {_utc("revoked_at")})
    FROM api_keys ORDER BY created_at, pk;
INSERT INTO ledger (kind, part, key, value)
    SELECT 'grant', principal, scope,
        jsonb_build_object('principal', principal, 'scope', scope, 'role', role)
    FROM grants ORDER BY principal, scope;
INSERT INTO ledger (kind, part, key, value)
    SELECT 'scope_link', scope, linked, jsonb_build_object('scope', scope, 'linked', linked,
        'share', share, 'documents', documents::jsonb)
    FROM scope_links ORDER BY scope, linked;
INSERT INTO ledger (kind, part, key, value)
    SELECT 'decision', scope, kind || ':' || merge_id, jsonb_build_object('scope', scope,
        'kind', kind, 'merge_id', merge_id, 'entity_id', entity_id, 'surface', surface,
        'rule', rule, 'score', score, 'document_id', document_id, 'principal', principal,
        'created_at', {_utc("created_at")})
    FROM merge_decisions ORDER BY created_at, kind, merge_id;
INSERT INTO ledger (kind, part, key, value)
    SELECT 'audit', scope, 'log-' || pk, jsonb_build_object('at', {_utc("at")},
        'principal', principal, 'action', action, 'subject', subject, 'detail', detail,
        'scope', scope)
    FROM audit_log ORDER BY pk;
DROP TABLE api_keys;
DROP TABLE grants;
DROP TABLE scope_links;
DROP TABLE merge_decisions;
DROP TABLE audit_log
"""
"""Version 9: API keys, grants, scope links, merge decisions and the audit log moved into
one table of JSON values (:mod:`loregraph.store.ledger`; ``seq``: the order rows were first
written), the five tables dropped."""


def statements(script: str) -> list[str]:
    """The statements of a DDL script (none of ours has a semicolon inside a statement)."""
    return [part.strip() for part in script.split(";") if part.strip()]


def vector_index_name(table: str, dim: int) -> str:
    """The name of the HNSW index over ``table``'s embeddings of dimension ``dim``."""
    return f"{table}_embedding_{dim}"


def vector_cast(dim: int) -> str:
    """The expression an indexed vector search orders by (must match the index)."""
    return f"(embedding::vector({int(dim)}))"


def vector_index_statements(dim: int) -> list[tuple[str, str]]:
    """``(name, CREATE INDEX statement)`` for vectors of dimension ``dim`` (none past the limit)."""
    if not 0 < dim <= MAX_INDEXED_DIM:
        return []
    return [
        (
            vector_index_name(table, dim),
            f"CREATE INDEX IF NOT EXISTS {vector_index_name(table, dim)} ON {table} "
            f"USING hnsw ({vector_cast(dim)} vector_cosine_ops) WHERE dim = {int(dim)}",
        )
        for table in VECTOR_TABLES
    ]
