"""Per-document contributions of entities and relations (``Store.entity_sources`` and
``Store.relation_sources``) on PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence

from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.rows import fetch
from loregraph.store.provenance import (
    EntitySource,
    RelationSource,
    entity_sources_from_rows,
    relation_sources_from_rows,
)


async def entity_sources(conn: Conn, entity_ids: Sequence[str]) -> dict[str, list[EntitySource]]:
    """Entity id → what each document listing or mentioning it contributed (run it in one
    snapshot)."""
    ids = (list(entity_ids),)
    listings = await fetch(
        conn,
        "SELECT e.id, d.id, x.description, x.salience, x.confidence "
        "FROM entity_descriptions AS x JOIN entities AS e ON e.pk = x.entity "
        "JOIN documents AS d ON d.pk = x.document WHERE e.id = ANY(%s)",
        ids,
    )
    aliases = await fetch(
        conn,
        "SELECT e.id, d.id, a.alias_key, a.alias FROM entity_aliases AS a "
        "JOIN entities AS e ON e.pk = a.entity JOIN documents AS d ON d.pk = a.document "
        "WHERE e.id = ANY(%s)",
        ids,
    )
    mentions = await fetch(
        conn,
        "SELECT e.id, d.id, m.surface, sum(m.count) FROM mentions AS m "
        "JOIN entities AS e ON e.pk = m.entity JOIN chunks AS c ON c.pk = m.chunk "
        "JOIN documents AS d ON d.pk = c.document WHERE e.id = ANY(%s) "
        "GROUP BY e.id, d.id, m.surface",
        ids,
    )
    return entity_sources_from_rows(
        [tuple(row) for row in listings],
        [tuple(row) for row in aliases],
        [(row[0], row[1], row[2], int(row[3])) for row in mentions],
    )


async def relation_sources(
    conn: Conn, relation_ids: Sequence[str]
) -> dict[str, list[RelationSource]]:
    """Relation id → its evidence with the document of each piece, in written order."""
    rows = await fetch(
        conn,
        'SELECT r.id, d.id, c.id, x.sentence, x.start, x."end", x.confidence '
        "FROM relation_evidence AS x JOIN relations AS r ON r.pk = x.relation "
        "JOIN documents AS d ON d.pk = x.document LEFT JOIN chunks AS c ON c.pk = x.chunk "
        "WHERE r.id = ANY(%s) ORDER BY x.pk",
        (list(relation_ids),),
    )
    return relation_sources_from_rows(rows)
