"""Per-document contributions of entities and relations (``Store.entity_sources`` and
``Store.relation_sources``) on SQLite."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from loregraph.store.provenance import (
    EntitySource,
    RelationSource,
    entity_sources_from_rows,
    relation_sources_from_rows,
)
from loregraph.store.sqlite.db import transaction
from loregraph.store.sqlite.rows import IN_JSON, json_list


def entity_sources(
    conn: sqlite3.Connection, entity_ids: Sequence[str]
) -> dict[str, list[EntitySource]]:
    """Entity id → what each document listing or mentioning it contributed."""
    ids = (json_list(entity_ids),)
    with transaction(conn, write=False):
        listings = conn.execute(
            "SELECT e.id, d.id, x.description, x.salience, x.confidence "
            "FROM entity_descriptions AS x JOIN entities AS e ON e.pk = x.entity "
            f"JOIN documents AS d ON d.pk = x.document WHERE e.id IN {IN_JSON}",
            ids,
        ).fetchall()
        aliases = conn.execute(
            "SELECT e.id, d.id, a.alias_key, a.alias FROM entity_aliases AS a "
            "JOIN entities AS e ON e.pk = a.entity JOIN documents AS d ON d.pk = a.document "
            f"WHERE e.id IN {IN_JSON}",
            ids,
        ).fetchall()
        mentions = conn.execute(
            "SELECT e.id, c.document_id, m.surface, sum(m.count) FROM mentions AS m "
            "JOIN entities AS e ON e.pk = m.entity JOIN chunks AS c ON c.pk = m.chunk "
            f"WHERE e.id IN {IN_JSON} GROUP BY e.id, c.document_id, m.surface",
            ids,
        ).fetchall()
    return entity_sources_from_rows(listings, aliases, mentions)


def relation_sources(
    conn: sqlite3.Connection, relation_ids: Sequence[str]
) -> dict[str, list[RelationSource]]:
    """Relation id → its evidence with the document of each piece, in written order."""
    rows = conn.execute(
        'SELECT r.id, d.id, c.id, x.sentence, x.start, x."end", x.confidence '
        "FROM relation_evidence AS x JOIN relations AS r ON r.pk = x.relation "
        "JOIN documents AS d ON d.pk = x.document LEFT JOIN chunks AS c ON c.pk = x.chunk "
        f"WHERE r.id IN {IN_JSON} ORDER BY x.pk",
        (json_list(relation_ids),),
    )
    return relation_sources_from_rows(rows)
