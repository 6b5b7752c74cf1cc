"""Upserting a bundle's relations and their evidence (inside the write transaction).

Relations are unique per ``(source, type, target, statement)``. The bundle's relations,
grouped by that key by the plan (:mod:`loregraph.store.planning`), are upserted in key order. What a
write adds to a stored relation: it keeps its id and fact (filled in when empty);
``valid_at`` becomes the earliest known, ``invalid_at``/``expired_at`` take the bundle's
value when it gives one; ``weight`` (= evidence count) and ``confidence`` (= max over
evidence) are recomputed afterwards (see :mod:`.cleanup`). A relation without evidence gets
one chunk-less row. A new relation is inserted with this document's weight and confidence,
which the recomputation then finds right: the row is written once (an update would re-index
it).
"""

from __future__ import annotations

from loregraph.models import DocumentBundle
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.entities import Resolved
from loregraph.store.postgres.rows import utc, utc_or_none


async def write_relations(
    conn: Conn,
    bundle: DocumentBundle,
    resolved: Resolved,
    doc_pk: int,
    chunks: dict[str, int],
) -> set[int]:
    """Upsert the relations and insert their evidence; returns the relation pks."""
    groups = {
        (resolved.pks[source], kind, resolved.pks[target], said): group
        for (source, kind, target, said), group in resolved.plan.relations.items()
    }
    if not groups:
        return set()
    ordered = sorted(groups)
    rels = [groups[triple].relation for triple in ordered]
    cursor = await conn.execute(
        "INSERT INTO relations AS r (id, scope, source, target, type, fact, weight, confidence, "
        "valid_at, invalid_at, created_at, expired_at, invalidated_by, statement) "
        "SELECT g.id, %(scope)s, g.source, g.target, g.type, g.fact, g.weight, g.confidence, "
        "g.valid_at, g.invalid_at, g.created_at, g.expired_at, g.invalidated_by, g.statement "
        "FROM unnest(%(ids)s::text[], %(sources)s::bigint[], %(targets)s::bigint[], "
        "%(types)s::text[], %(facts)s::text[], %(weights)s::float8[], %(confidences)s::float8[], "
        "%(valid)s::timestamptz[], %(invalid)s::timestamptz[], %(created)s::timestamptz[], "
        "%(expired)s::timestamptz[], %(by)s::text[], %(said)s::text[]) WITH ORDINALITY AS "
        "g(id, source, target, type, fact, weight, confidence, valid_at, invalid_at, "
        "created_at, expired_at, invalidated_by, statement, ord) ORDER BY g.ord "
        "ON CONFLICT (source, type, target, statement) DO UPDATE SET "
        "fact = CASE WHEN r.fact = '' THEN excluded.fact ELSE r.fact END, "
        "valid_at = least(r.valid_at, excluded.valid_at), "
        "invalid_at = coalesce(excluded.invalid_at, r.invalid_at), "
        "expired_at = coalesce(excluded.expired_at, r.expired_at) "
        "RETURNING r.pk, r.source, r.type, r.target, r.statement",
        {
            "scope": bundle.document.scope,
            "ids": [rel.id for rel in rels],
            "sources": [triple[0] for triple in ordered],
            "targets": [triple[2] for triple in ordered],
            "types": [triple[1] for triple in ordered],
            "facts": [rel.fact for rel in rels],
            "weights": [float(len(groups[triple].evidence)) for triple in ordered],
            "confidences": [float(groups[triple].confidence) for triple in ordered],
            "valid": [utc_or_none(rel.valid_at) for rel in rels],
            "invalid": [utc_or_none(rel.invalid_at) for rel in rels],
            "created": [utc(rel.created_at) for rel in rels],
            "expired": [utc_or_none(rel.expired_at) for rel in rels],
            "by": [rel.invalidated_by for rel in rels],
            "said": [key[3] for key in ordered],
        },
    )
    rows_back = await cursor.fetchall()
    pks = {(source, kind, target, said): pk for pk, source, kind, target, said in rows_back}
    rows: list[tuple[int, int | None, str, int, int, float]] = []
    for triple in ordered:
        group = groups[triple]
        for chunk_id, sentence, start, end in group.evidence:
            chunk = chunks[chunk_id] if chunk_id else None
            rows.append((pks[triple], chunk, sentence, start, end, group.confidence))
    await conn.execute(
        'INSERT INTO relation_evidence (relation, document, chunk, sentence, start, "end", '
        "confidence) SELECT relation, %s, chunk, sentence, start, stop, confidence FROM "
        "unnest(%s::bigint[], %s::bigint[], %s::text[], %s::integer[], %s::integer[], "
        "%s::float8[]) WITH ORDINALITY AS t(relation, chunk, sentence, start, stop, confidence, "
        "ord) ORDER BY t.ord",
        (doc_pk, *[[row[i] for row in rows] for i in range(6)]),
    )
    return set(pks.values())
