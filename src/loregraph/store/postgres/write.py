"""Writing a document bundle and deleting a document, each inside one transaction.

A write replaces the document's previous version (its row is deleted, and with it by
cascade everything it contributed; see :mod:`.cleanup`), inserts the new document and
chunks, upserts entities (:mod:`.entities`) and relations (:mod:`.relations`), recomputes
every touched entity and relation, then bumps the scope's graph version. The caller
(:meth:`~loregraph.store.postgres.connection.Database.write`) owns the transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from loregraph.models import DeleteReport, DocumentBundle, Relation, utcnow
from loregraph.store.postgres.cleanup import bump_graph_version, detach_document, recompute
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.entities import resolve_entities, write_contributions
from loregraph.store.postgres.relations import write_relations
from loregraph.store.postgres.rows import CODEC, DOCUMENT_COLUMNS, utc, utc_or_none
from loregraph.store.postgres.vectors import vector_dim, vector_param


def vector_dims(bundle: DocumentBundle) -> set[int]:
    """The embedding dimensions a bundle writes."""
    dims = {vector_dim(chunk.embedding) for chunk in bundle.chunks}
    dims.update(vector_dim(write.entity.embedding) for write in bundle.entities)
    return {dim for dim in dims if dim}


async def write_bundle(conn: Conn, bundle: DocumentBundle) -> int:
    """Write (or replace) a document and its derived data; returns the new graph version."""
    doc = bundle.document
    now = utcnow()
    old = await detach_document(conn, doc.id)
    if old is not None:  # a new version (a first write opens nothing: see reopen_relations)
        await reopen_relations(conn, doc.id)
    entities = set() if old is None else set(old.entities)
    relations = set() if old is None else set(old.relations)
    cursor = await conn.execute(
        f"INSERT INTO documents ({DOCUMENT_COLUMNS}) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING pk",
        CODEC.document_values(doc),
    )
    row = await cursor.fetchone()
    assert row is not None
    doc_pk = int(row[0])
    chunks = await _write_chunks(conn, bundle, doc_pk)
    resolved = await resolve_entities(conn, bundle, now)
    entities |= await write_contributions(conn, resolved, doc_pk, chunks)
    relations |= await write_relations(conn, bundle, resolved, doc_pk, chunks)
    await end_relations(conn, bundle.invalidations)
    await conn.execute(
        "INSERT INTO merges (scope, entity, surface, rule, score, document, created_at) "
        "SELECT %s, entity, surface, rule, score, %s, created_at FROM unnest(%s::bigint[], "
        "%s::text[], %s::text[], %s::float8[], %s::timestamptz[]) WITH ORDINALITY "
        "AS t(entity, surface, rule, score, created_at, ord) ORDER BY t.ord",
        (
            doc.scope,
            doc_pk,
            [resolved.pk(m.entity_id) for m in bundle.merges],
            [m.surface for m in bundle.merges],
            [m.rule for m in bundle.merges],
            [float(m.score) for m in bundle.merges],
            [utc(m.created_at) for m in bundle.merges],
        ),
    )
    await recompute(conn, entities, relations, now, {} if old is None else old.given)
    return await bump_graph_version(conn, doc.scope)


async def _write_chunks(conn: Conn, bundle: DocumentBundle, doc_pk: int) -> dict[str, int]:
    """Insert the chunks (with their search vectors); returns chunk id -> pk."""
    if not bundle.chunks:
        return {}
    vectors = [vector_param(chunk.embedding) for chunk in bundle.chunks]
    cursor = await conn.execute(
        'INSERT INTO chunks (id, document, scope, seq, start, "end", text, token_count, search, '
        "dim, embedding) "
        "SELECT c.id, %(doc)s, %(scope)s, c.seq, c.start, c.stop, c.text, c.tokens, "
        "setweight(to_tsvector('english', c.text), 'A') "
        "|| setweight(to_tsvector('english', %(title)s), 'B'), c.dim, c.embedding "
        "FROM unnest(%(ids)s::text[], %(seqs)s::integer[], %(starts)s::integer[], "
        "%(stops)s::integer[], %(texts)s::text[], %(tokens)s::integer[], %(dims)s::integer[], "
        "%(vectors)b::vector[]) WITH ORDINALITY "
        "AS c(id, seq, start, stop, text, tokens, dim, embedding, ord) ORDER BY c.ord "
        "RETURNING id, pk",
        {
            "doc": doc_pk,
            "scope": bundle.document.scope,
            "title": bundle.document.title,
            "ids": [chunk.id for chunk in bundle.chunks],
            "seqs": [chunk.seq for chunk in bundle.chunks],
            "starts": [chunk.start for chunk in bundle.chunks],
            "stops": [chunk.end for chunk in bundle.chunks],
            "texts": [chunk.text for chunk in bundle.chunks],
            "tokens": [chunk.token_count for chunk in bundle.chunks],
            "dims": [dim for dim, _ in vectors],
            "vectors": [vector for _, vector in vectors],
        },
    )
    return {chunk_id: pk for chunk_id, pk in await cursor.fetchall()}


async def delete_document(
    conn: Conn, document_id: str, ends: Sequence[Relation] = ()
) -> tuple[DeleteReport, int | None]:
    """Delete a document and exactly what only it supported; then apply ``ends``
    (relations ended, as a bundle's invalidations).

    Returns the report and the scope's new graph version (``None``: no such document).
    """
    old = await detach_document(conn, document_id)
    if old is None:
        return DeleteReport(document_id=document_id), None
    await reopen_relations(conn, document_id)
    removed = await recompute(conn, old.entities, old.relations, utcnow(), old.given)
    await end_relations(conn, ends)
    version = await bump_graph_version(conn, old.scope)
    report = DeleteReport(
        document_id=document_id,
        chunks=old.chunks,
        mentions=old.mentions,
        entities_removed=len(removed.entities),
        relations_removed=len(removed.relations),
        relations_weakened=len(old.relations - removed.relations),
    )
    return report, version


async def reopen_relations(conn: Conn, document_id: str) -> None:
    """Open again the relations the document ``document_id`` ended (it is being removed or
    replaced: what it said no longer ends them). A document written for the first time
    opens nothing: a copy writes a relation with the id of the later document that ended
    it before that document."""
    await conn.execute(
        "UPDATE relations SET invalid_at = NULL, expired_at = NULL, invalidated_by = NULL "
        "WHERE invalidated_by = %s",
        (document_id,),
    )


async def end_relations(conn: Conn, ends: Sequence[Relation]) -> None:
    """Apply invalidations: a bundle's (after its relations are written), or a delete's."""
    if not ends:
        return
    await conn.execute(
        "UPDATE relations AS r SET invalid_at = t.invalid_at, expired_at = t.expired_at, "
        "invalidated_by = t.by FROM unnest(%s::text[], %s::timestamptz[], "
        "%s::timestamptz[], %s::text[]) AS t(id, invalid_at, expired_at, by) WHERE r.id = t.id",
        (
            [rel.id for rel in ends],
            [utc_or_none(rel.invalid_at) for rel in ends],
            [utc_or_none(rel.expired_at) for rel in ends],
            [rel.invalidated_by for rel in ends],
        ),
    )


async def invalidate_relation(
    conn: Conn, relation_id: str, invalid_at: datetime, by: str | None
) -> bool:
    """End a relation (``invalid_at``, ``expired_at`` now, ``invalidated_by``); ``False``
    when there is no such relation."""
    cursor = await conn.execute(
        "UPDATE relations SET invalid_at = %s, expired_at = %s, invalidated_by = %s "
        "WHERE id = %s RETURNING scope",
        (utc(invalid_at), utcnow(), by, relation_id),
    )
    row = await cursor.fetchone()
    if row is None:
        return False
    await bump_graph_version(conn, row[0])
    return True


ANALYZED_TABLES = "documents, chunks, entities, entity_keys, mentions, relations"


async def analyze(conn: Conn) -> None:
    """Refresh the planner's row estimates after a large write.

    Right after a bulk load PostgreSQL still believes the tables are nearly empty and sorts
    every row of a scope instead of using the HNSW vector index (measured: 33 ms instead of
    about 2 ms for a top-10 over 5,000 entities) until autovacuum analyzes them.
    """
    await conn.execute(f"ANALYZE {ANALYZED_TABLES}")
