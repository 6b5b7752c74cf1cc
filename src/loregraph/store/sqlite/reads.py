"""Plain reads: documents, chunks, entities, merges, bundles, paging and counts."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from loregraph.models import (
    Chunk,
    Document,
    DocumentBundle,
    Entity,
    Evidence,
    Mention,
    Merge,
    Relation,
    StoreStats,
    Vector,
)
from loregraph.store.base import SCHEMA_VERSION
from loregraph.store.queries import DocumentQuery, EntityListing, Page, PageKey
from loregraph.store.rows import (
    ENTITY_FIELDS,
    columns,
    in_order,
    listed_entity,
    supported_relations,
)
from loregraph.store.sqlite.rows import (
    CHUNK_COLUMNS,
    CODEC,
    DOCUMENT_COLUMNS,
    ENTITY_COLUMNS,
    IN_JSON,
    NO_LIMIT,
    attach_evidence,
    json_list,
    prefixed,
)
from loregraph.store.sqlreads import MERGE_SELECT, RELATION_SELECT
from loregraph.store.vectors import blob_to_vector

_E_COLUMNS = columns(ENTITY_FIELDS, "e")


# ----------------------------------------------------------------- documents
def get_document(conn: sqlite3.Connection, document_id: str) -> Document | None:
    """A document by id."""
    row = conn.execute(
        f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id = ?", (document_id,)
    ).fetchone()
    return None if row is None else CODEC.document(row)


def documents(conn: sqlite3.Connection, query: DocumentQuery) -> list[Document]:
    """A scope's documents matching every criterion, oldest (or newest) first, in a window."""
    order = " DESC" if query.newest_first else ""
    rows = conn.execute(
        f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE scope = :scope"
        + "".join(f" AND {name} = :{name}" for name in query.criteria)
        + f" ORDER BY created_at{order}, pk{order} LIMIT :limit OFFSET :offset",
        {"scope": query.scope, "limit": NO_LIMIT if query.limit is None else query.limit,
         "offset": query.offset, **query.criteria},
    )  # fmt: skip
    return [CODEC.document(row) for row in rows]


def scopes(conn: sqlite3.Connection) -> list[str]:
    """Scopes holding at least one document, sorted."""
    return [row[0] for row in conn.execute("SELECT DISTINCT scope FROM documents ORDER BY scope")]


# ----------------------------------------------------------------- chunks
def get_chunks(conn: sqlite3.Connection, chunk_ids: Sequence[str]) -> list[Chunk]:
    """Chunks by id in the order asked (missing skipped), without embeddings."""
    rows = conn.execute(
        f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE id IN {IN_JSON}", (json_list(chunk_ids),)
    ).fetchall()
    found = {row[0]: CODEC.chunk(row) for row in rows}
    return [found[i] for i in chunk_ids if i in found]


# ----------------------------------------------------------------- entities
def get_entities(conn: sqlite3.Connection, entity_ids: Sequence[str]) -> list[Entity]:
    """Entities by id in the order asked (missing skipped), without embeddings."""
    rows = conn.execute(
        f"SELECT {ENTITY_COLUMNS} FROM entities WHERE id IN {IN_JSON}", (json_list(entity_ids),)
    ).fetchall()
    found = {row[0]: CODEC.entity(row) for row in rows}
    return in_order(found, entity_ids)


def find_entities_by_key(
    conn: sqlite3.Connection, scope: str, keys: Sequence[str]
) -> dict[str, Entity]:
    """Exact lookup of name keys: canonical names first, then aliases (most mentioned wins)."""
    wanted = list(dict.fromkeys(keys))
    result: dict[str, Entity] = {}
    for row in conn.execute(
        f"SELECT name_key, {ENTITY_COLUMNS} FROM entities "
        f"WHERE scope = ? AND name_key IN {IN_JSON}",
        (scope, json_list(wanted)),
    ):
        result[row[0]] = CODEC.entity(row[1:])
    rest = [key for key in wanted if key not in result]
    if rest:
        for row in conn.execute(
            f"SELECT a.alias_key, {_E_COLUMNS} FROM entity_aliases AS a "
            "JOIN entities AS e ON e.pk = a.entity "
            f"WHERE a.alias_key IN {IN_JSON} AND e.scope = ? "
            "GROUP BY a.alias_key, e.pk ORDER BY e.mention_count DESC, e.pk",
            (json_list(rest), scope),
        ):
            if row[0] not in result:
                result[row[0]] = CODEC.entity(row[1:])
    return result


def entity_embeddings(conn: sqlite3.Connection, entity_ids: Sequence[str]) -> dict[str, Vector]:
    """Stored embeddings by entity id (entities without one are absent)."""
    rows = conn.execute(
        "SELECT e.id, v.embedding FROM entities AS e JOIN entity_vectors AS v ON v.entity = e.pk "
        f"WHERE e.id IN {IN_JSON}",
        (json_list(entity_ids),),
    )
    return {entity_id: blob_to_vector(blob) for entity_id, blob in rows}


_ORDERS = {
    "mentions": "e.mention_count DESC, e.name, e.pk",
    "name": "e.name COLLATE NOCASE, e.pk",
    "degree": (
        "((SELECT count(*) FROM relations AS r WHERE r.source = e.pk) + "
        "(SELECT count(*) FROM relations AS r WHERE r.target = e.pk)) DESC, "
        "e.mention_count DESC, e.name, e.pk"
    ),
}


def list_entities(conn: sqlite3.Connection, listing: EntityListing) -> list[Entity]:
    """A scope's entities by mentions, degree or name (without embeddings)."""
    typed = "" if listing.entity_type is None else " AND e.type = :type"
    rows = conn.execute(
        f"SELECT {_E_COLUMNS} FROM entities AS e WHERE e.scope = :scope{typed} "
        f"ORDER BY {_ORDERS[listing.order]} LIMIT :limit OFFSET :offset",
        {
            "scope": listing.scope,
            "type": listing.entity_type,
            "limit": NO_LIMIT if listing.limit is None else listing.limit,
            "offset": listing.offset,
        },
    )
    return [CODEC.entity(row) for row in rows]


def entities_page(conn: sqlite3.Connection, scope: str, after: PageKey, batch: int) -> Page[Entity]:
    """The next ``batch`` entities (with embeddings) after row ``after``, as (pk, entity)."""
    rows = conn.execute(
        f"SELECT e.pk, v.embedding, {_E_COLUMNS} FROM entities AS e "
        "LEFT JOIN entity_vectors AS v ON v.entity = e.pk "
        "WHERE e.scope = ? AND e.pk > ? ORDER BY e.pk LIMIT ?",
        (scope, after or 0, batch),
    )
    return [(row[0], CODEC.entity(row[2:], row[1])) for row in rows]


def relations_page(
    conn: sqlite3.Connection, scope: str, after: PageKey, batch: int
) -> Page[Relation]:
    """The next ``batch`` relations (with evidence) after row ``after``, as (pk, relation)."""
    rows = conn.execute(
        f"SELECT r.pk, {RELATION_SELECT[len('SELECT ') :]} "
        "WHERE r.scope = ? AND r.pk > ? ORDER BY r.pk LIMIT ?",
        (scope, after or 0, batch),
    ).fetchall()
    page: Page[Relation] = [(row[0], CODEC.relation(row[1:])) for row in rows]
    attach_evidence(conn, [relation for _, relation in page])
    return page


# ----------------------------------------------------------------- bundles
def read_bundle(conn: sqlite3.Connection, document_id: str) -> DocumentBundle | None:
    """A document and what it contributed (see :meth:`Store.read_bundle`), in one snapshot."""
    conn.execute("BEGIN")
    try:
        return _read_bundle(conn, document_id)
    finally:
        conn.execute("COMMIT")


def _read_bundle(conn: sqlite3.Connection, document_id: str) -> DocumentBundle | None:
    row = conn.execute(
        f"SELECT pk, {DOCUMENT_COLUMNS} FROM documents WHERE id = ?", (document_id,)
    ).fetchone()
    if row is None:
        return None
    doc_pk, document = row[0], CODEC.document(row[1:])
    chunks = [
        CODEC.chunk(row[1:], row[0])
        for row in conn.execute(
            f"SELECT v.embedding, {prefixed(CHUNK_COLUMNS, 'c')} FROM chunks AS c LEFT JOIN "
            "chunk_vectors AS v ON v.chunk = c.pk WHERE c.document_id = ? ORDER BY c.seq",
            (document_id,),
        )
    ]
    aliases: dict[str, list[str]] = {}
    for entity_id, alias in conn.execute(
        "SELECT e.id, a.alias FROM entity_aliases AS a JOIN entities AS e ON e.pk = a.entity "
        "WHERE a.document = ? ORDER BY a.entity, a.alias_key",
        (doc_pk,),
    ):
        aliases.setdefault(entity_id, []).append(alias)
    entities = [
        listed_entity(
            CODEC.entity(row[4:], row[3]), row[0], aliases.get(row[4], []), row[1], row[2]
        )
        for row in conn.execute(
            "SELECT d.description, d.salience, d.confidence, v.embedding, "
            f"{_E_COLUMNS} FROM entity_descriptions AS d "
            "JOIN entities AS e ON e.pk = d.entity LEFT JOIN entity_vectors AS v "
            "ON v.entity = e.pk WHERE d.document = ? ORDER BY e.pk",
            (doc_pk,),
        )
    ]
    mentions = [
        Mention(*row)
        for row in conn.execute(
            "SELECT e.id, c.id, m.surface, m.count FROM chunks AS c "
            "JOIN mentions AS m ON m.chunk = c.pk JOIN entities AS e ON e.pk = m.entity "
            "WHERE c.document_id = ? ORDER BY c.seq, e.pk, m.surface",
            (document_id,),
        )
    ]
    relations = supported_relations(
        (CODEC.relation(row[5:]), Evidence(row[4] or "", row[0], row[1], row[2]), row[3])
        for row in conn.execute(
            'SELECT x.sentence, x.start, x."end", x.confidence, c.id, '
            f"{RELATION_SELECT[len('SELECT ') :]} JOIN relation_evidence AS x "
            "ON x.relation = r.pk LEFT JOIN chunks AS c ON c.pk = x.chunk "
            "WHERE x.document = ? ORDER BY r.pk, x.pk",
            (doc_pk,),
        )
    )
    merges = [
        CODEC.merge(row)
        for row in conn.execute(f"{MERGE_SELECT} WHERE m.document = ? ORDER BY m.pk", (doc_pk,))
    ]
    return DocumentBundle(document, chunks, entities, mentions, relations, merges)


# ----------------------------------------------------------------- merges, counts
def list_merges(conn: sqlite3.Connection, scope: str, entity_id: str | None) -> list[Merge]:
    """Recorded merges of a scope (optionally of one entity), newest first."""
    sql = f"{MERGE_SELECT} WHERE m.scope = ?"
    params: list[object] = [scope]
    if entity_id is not None:
        sql += " AND e.id = ?"
        params.append(entity_id)
    rows = conn.execute(sql + " ORDER BY m.created_at DESC, m.pk DESC", params)
    return [CODEC.merge(row) for row in rows]


def stats(conn: sqlite3.Connection, scope: str, schema_version: int) -> StoreStats:
    """Counts for a scope."""

    def count(sql: str, *params: object) -> int:
        return int(conn.execute(sql, params).fetchone()[0])

    return StoreStats(
        documents=count("SELECT count(*) FROM documents WHERE scope = ?", scope),
        chunks=count("SELECT count(*) FROM chunks WHERE scope = ?", scope),
        entities=count("SELECT count(*) FROM entities WHERE scope = ?", scope),
        relations=count("SELECT count(*) FROM relations WHERE scope = ?", scope),
        mentions=count(
            "SELECT count(*) FROM chunks AS c JOIN mentions AS m ON m.chunk = c.pk "
            "WHERE c.scope = ?",
            scope,
        ),
        schema_version=schema_version or SCHEMA_VERSION,
        relation_types=dict(
            conn.execute(
                "SELECT type, count(*) FROM relations WHERE scope = ? "
                "GROUP BY type ORDER BY count(*) DESC, type",
                (scope,),
            ).fetchall()
        ),
        entity_types=dict(
            conn.execute(
                "SELECT type, count(*) FROM entities WHERE scope = ? "
                "GROUP BY type ORDER BY count(*) DESC, type",
                (scope,),
            ).fetchall()
        ),
    )
