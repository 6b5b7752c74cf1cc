"""Plain reads: documents, chunks, entities, merges, bundles, paging and counts."""

from __future__ import annotations

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
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.rows import (
    CHUNK_SELECT,
    CODEC,
    DOCUMENT_COLUMNS,
    ENTITY_COLUMNS,
    attach_evidence,
    fetch,
    parse_vector,
)
from loregraph.store.queries import DocumentQuery, EntityListing, Page, PageKey
from loregraph.store.rows import in_order, listed_entity, supported_relations
from loregraph.store.sqlreads import MERGE_SELECT, RELATION_SELECT


# ----------------------------------------------------------------- documents
async def get_document(conn: Conn, document_id: str) -> Document | None:
    """A document by id."""
    cursor = await conn.execute(
        f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id = %s", (document_id,)
    )
    row = await cursor.fetchone()
    return None if row is None else CODEC.document(row)


async def documents(conn: Conn, query: DocumentQuery) -> list[Document]:
    """A scope's documents matching every criterion, oldest (or newest) first, in a window."""
    order = " DESC" if query.newest_first else ""
    rows = await fetch(
        conn,
        f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE scope = %(scope)s"
        + "".join(f" AND {name} = %({name})s" for name in query.criteria)
        + f" ORDER BY created_at{order}, pk{order} LIMIT %(limit)s OFFSET %(offset)s",
        {"scope": query.scope, "limit": query.limit, "offset": query.offset, **query.criteria},
    )
    return [CODEC.document(row) for row in rows]


async def scopes(conn: Conn) -> list[str]:
    """Scopes holding at least one document, sorted."""
    cursor = await conn.execute("SELECT DISTINCT scope FROM documents ORDER BY scope")
    return [row[0] for row in await cursor.fetchall()]


# ----------------------------------------------------------------- chunks
async def get_chunks(conn: Conn, chunk_ids: Sequence[str]) -> list[Chunk]:
    """Chunks by id in the order asked (missing skipped), without embeddings."""
    cursor = await conn.execute(f"{CHUNK_SELECT} WHERE c.id = ANY(%s)", (list(chunk_ids),))
    found = {row[0]: CODEC.chunk(row) for row in await cursor.fetchall()}
    return [found[i] for i in chunk_ids if i in found]


# ----------------------------------------------------------------- entities
async def get_entities(conn: Conn, entity_ids: Sequence[str]) -> list[Entity]:
    """Entities by id in the order asked (missing skipped), without embeddings."""
    cursor = await conn.execute(
        f"SELECT {ENTITY_COLUMNS} FROM entities AS e WHERE e.id = ANY(%s)", (list(entity_ids),)
    )
    found = {row[0]: CODEC.entity(row) for row in await cursor.fetchall()}
    return in_order(found, entity_ids)


async def find_entities_by_key(conn: Conn, scope: str, keys: Sequence[str]) -> dict[str, Entity]:
    """Exact lookup of name keys: canonical names first, then aliases (most mentioned wins)."""
    wanted = list(dict.fromkeys(keys))
    cursor = await conn.execute(
        f"SELECT e.name_key, {ENTITY_COLUMNS} FROM entities AS e "
        "WHERE e.scope = %s AND e.name_key = ANY(%s)",
        (scope, wanted),
    )
    result = {row[0]: CODEC.entity(row[1:]) for row in await cursor.fetchall()}
    rest = [key for key in wanted if key not in result]
    if rest:
        cursor = await conn.execute(
            f"SELECT DISTINCT ON (a.alias_key) a.alias_key, {ENTITY_COLUMNS} "
            "FROM entity_aliases AS a JOIN entities AS e ON e.pk = a.entity "
            "WHERE a.alias_key = ANY(%s) AND e.scope = %s "
            "ORDER BY a.alias_key, e.mention_count DESC, e.pk",
            (rest, scope),
        )
        for row in await cursor.fetchall():
            result[row[0]] = CODEC.entity(row[1:])
    return result


async def entity_embeddings(conn: Conn, entity_ids: Sequence[str]) -> dict[str, Vector]:
    """Stored embeddings by entity id (entities without one are absent)."""
    cursor = await conn.execute(
        "SELECT id, embedding::text FROM entities WHERE id = ANY(%s) AND embedding IS NOT NULL",
        (list(entity_ids),),
    )
    return {entity_id: parse_vector(text) for entity_id, text in await cursor.fetchall()}


_ORDERS = {
    "mentions": "e.mention_count DESC, e.name, e.pk",
    "name": "lower(e.name), e.pk",
    "degree": (
        "((SELECT count(*) FROM relations AS r WHERE r.source = e.pk) + "
        "(SELECT count(*) FROM relations AS r WHERE r.target = e.pk)) DESC, "
        "e.mention_count DESC, e.name, e.pk"
    ),
}


async def list_entities(conn: Conn, listing: EntityListing) -> list[Entity]:
    """A scope's entities by mentions, degree or name (without embeddings)."""
    typed = "" if listing.entity_type is None else " AND e.type = %(type)s"
    cursor = await conn.execute(
        f"SELECT {ENTITY_COLUMNS} FROM entities AS e WHERE e.scope = %(scope)s{typed} "
        f"ORDER BY {_ORDERS[listing.order]} LIMIT %(limit)s OFFSET %(offset)s",
        {
            "scope": listing.scope,
            "type": listing.entity_type,
            "limit": listing.limit,
            "offset": listing.offset,
        },
    )
    return [CODEC.entity(row) for row in await cursor.fetchall()]


async def entities_page(conn: Conn, scope: str, after: PageKey, batch: int) -> Page[Entity]:
    """The next ``batch`` entities (with embeddings) after pk ``after``, as (pk, entity)."""
    cursor = await conn.execute(
        f"SELECT e.pk, e.embedding::text, {ENTITY_COLUMNS} FROM entities AS e "
        "WHERE e.scope = %s AND e.pk > %s ORDER BY e.pk LIMIT %s",
        (scope, after or 0, batch),
    )
    return [(row[0], CODEC.entity(row[2:], row[1])) for row in await cursor.fetchall()]


async def relations_page(conn: Conn, scope: str, after: PageKey, batch: int) -> Page[Relation]:
    """The next ``batch`` relations (with evidence) after pk ``after``, as (pk, relation)."""
    cursor = await conn.execute(
        f"SELECT r.pk, {RELATION_SELECT.removeprefix('SELECT ')} "
        "WHERE r.scope = %s AND r.pk > %s ORDER BY r.pk LIMIT %s",
        (scope, after or 0, batch),
    )
    page: Page[Relation] = [(row[0], CODEC.relation(row[1:])) for row in await cursor.fetchall()]
    await attach_evidence(conn, [relation for _, relation in page])
    return page


# ----------------------------------------------------------------- bundles
async def read_bundle(conn: Conn, document_id: str) -> DocumentBundle | None:
    """A document and what it contributed (see :meth:`Store.read_bundle`).

    Run it in one snapshot (``Database.snapshot``) so that the parts agree.
    """
    found = await fetch(
        conn, f"SELECT pk, {DOCUMENT_COLUMNS} FROM documents WHERE id = %s", (document_id,)
    )
    if not found:
        return None
    doc_pk, document = found[0][0], CODEC.document(found[0][1:])
    chunks = [
        CODEC.chunk(row[1:], row[0])
        for row in await fetch(
            conn,
            f"SELECT c.embedding::text, {CHUNK_SELECT.removeprefix('SELECT ')} "
            "WHERE c.document = %s ORDER BY c.seq",
            (doc_pk,),
        )
    ]
    aliases: dict[str, list[str]] = {}
    for entity_id, alias in await fetch(
        conn,
        "SELECT e.id, a.alias FROM entity_aliases AS a JOIN entities AS e ON e.pk = a.entity "
        "WHERE a.document = %s ORDER BY a.entity, a.alias_key",
        (doc_pk,),
    ):
        aliases.setdefault(entity_id, []).append(alias)
    entities = [
        listed_entity(
            CODEC.entity(row[4:], row[3]), row[0], aliases.get(row[4], []), row[1], row[2]
        )
        for row in await fetch(
            conn,
            "SELECT d.description, d.salience, d.confidence, e.embedding::text, "
            f"{ENTITY_COLUMNS} "
            "FROM entity_descriptions AS d JOIN entities AS e ON e.pk = d.entity "
            "WHERE d.document = %s ORDER BY e.pk",
            (doc_pk,),
        )
    ]
    mentions = [
        Mention(*row)
        for row in await fetch(
            conn,
            "SELECT e.id, c.id, m.surface, m.count FROM chunks AS c "
            "JOIN mentions AS m ON m.chunk = c.pk JOIN entities AS e ON e.pk = m.entity "
            "WHERE c.document = %s ORDER BY c.seq, e.pk, m.surface",
            (doc_pk,),
        )
    ]
    relations = supported_relations(
        (CODEC.relation(row[5:]), Evidence(row[4] or "", row[0], row[1], row[2]), row[3])
        for row in await fetch(
            conn,
            'SELECT x.sentence, x.start, x."end", x.confidence, c.id, '
            f"{RELATION_SELECT.removeprefix('SELECT ')} JOIN relation_evidence AS x "
            "ON x.relation = r.pk LEFT JOIN chunks AS c ON c.pk = x.chunk "
            "WHERE x.document = %s ORDER BY r.pk, x.pk",
            (doc_pk,),
        )
    )
    merges = [
        CODEC.merge(row)
        for row in await fetch(
            conn, f"{MERGE_SELECT} WHERE m.document = %s ORDER BY m.pk", (doc_pk,)
        )
    ]
    return DocumentBundle(document, chunks, entities, mentions, relations, merges)


# ----------------------------------------------------------------- merges, counts
async def list_merges(conn: Conn, scope: str, entity_id: str | None) -> list[Merge]:
    """Recorded merges of a scope (optionally of one entity), newest first."""
    sql = f"{MERGE_SELECT} WHERE m.scope = %s"
    params: list[object] = [scope]
    if entity_id is not None:
        sql += " AND e.id = %s"
        params.append(entity_id)
    cursor = await conn.execute(sql + " ORDER BY m.created_at DESC, m.pk DESC", params)
    return [CODEC.merge(row) for row in await cursor.fetchall()]


async def stats(conn: Conn, scope: str, schema_version: int) -> StoreStats:
    """Counts for a scope."""
    cursor = await conn.execute(
        "SELECT (SELECT count(*) FROM documents WHERE scope = %(s)s), "
        "(SELECT count(*) FROM chunks WHERE scope = %(s)s), "
        "(SELECT count(*) FROM entities WHERE scope = %(s)s), "
        "(SELECT count(*) FROM relations WHERE scope = %(s)s), "
        "(SELECT count(*) FROM chunks AS c JOIN mentions AS m ON m.chunk = c.pk "
        "WHERE c.scope = %(s)s)",
        {"s": scope},
    )
    row = await cursor.fetchone()
    assert row is not None
    counts = [int(value) for value in row]
    types: list[dict[str, int]] = []
    for table in ("relations", "entities"):
        cursor = await conn.execute(
            f"SELECT type, count(*) AS n FROM {table} WHERE scope = %s "
            "GROUP BY type ORDER BY n DESC, type",
            (scope,),
        )
        types.append({kind: int(n) for kind, n in await cursor.fetchall()})
    return StoreStats(
        documents=counts[0],
        chunks=counts[1],
        entities=counts[2],
        relations=counts[3],
        mentions=counts[4],
        schema_version=schema_version,
        relation_types=types[0],
        entity_types=types[1],
    )
