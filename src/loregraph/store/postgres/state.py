"""The write planner's reads (:class:`~loregraph.store.planstate.WriteState`) in PostgreSQL.

They run inside the write's transaction, after it took the store's write lock (a
transaction-level advisory lock: one writer at a time, whichever process it is in), so what
they read cannot change before the plan is applied and the write sequence is not needed.
Records are found by id; the tables join on their integer pks.
"""

from __future__ import annotations

from datetime import datetime

from loregraph.models import Relation
from loregraph.store.planning import StoredEntity
from loregraph.store.planstate import ContributionRow, OldDocument, RelationKey, RelationState
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.provenance import relation_sources
from loregraph.store.postgres.rows import fetch
from loregraph.store.provenance import RelationSource
from loregraph.store.rows import iso_or_none

_OTHERS = "JOIN documents AS d ON d.pk = x.document WHERE e.id = ANY(%s) AND d.id <> %s"
"""The rows ``x`` of the entities ``e`` that documents other than one gave."""


class PgWriteState:
    """:class:`~loregraph.store.planstate.WriteState` over one connection (see the module
    notes)."""

    def __init__(self, conn: Conn) -> None:
        self.conn = conn

    async def meta_seq(self) -> int:
        return 0

    async def old_document(self, document_id: str) -> OldDocument | None:
        found = await fetch(
            self.conn, "SELECT pk, scope FROM documents WHERE id = %s", (document_id,)
        )
        if not found:
            return None
        pk, scope = found[0]
        old = OldDocument(scope)
        chunks = "SELECT id FROM chunks WHERE document = %s ORDER BY seq"
        old.chunk_ids = [chunk_id for (chunk_id,) in await fetch(self.conn, chunks, (pk,))]
        mentioned = await fetch(
            self.conn,
            "SELECT e.id FROM chunks AS c JOIN mentions AS m ON m.chunk = c.pk "
            "JOIN entities AS e ON e.pk = m.entity WHERE c.document = %s",
            (pk,),
        )
        old.mentions = len(mentioned)
        old.entities = {entity_id for (entity_id,) in mentioned}
        listed = await fetch(
            self.conn,
            "SELECT e.id FROM entity_descriptions AS x JOIN entities AS e ON e.pk = x.entity "
            "WHERE x.document = %(pk)s UNION SELECT e.id FROM entity_aliases AS x "
            "JOIN entities AS e ON e.pk = x.entity WHERE x.document = %(pk)s",
            {"pk": pk},
        )
        old.entities |= {entity_id for (entity_id,) in listed}
        supported = await fetch(
            self.conn,
            "SELECT DISTINCT r.id FROM relation_evidence AS x "
            "JOIN relations AS r ON r.pk = x.relation WHERE x.document = %s",
            (pk,),
        )
        old.relations = {relation_id for (relation_id,) in supported}
        return old

    async def foreign_chunks(self, document_id: str, chunk_ids: list[str]) -> list[str]:
        if not chunk_ids:
            return []
        rows = await fetch(
            self.conn,
            "SELECT c.id FROM chunks AS c JOIN documents AS d ON d.pk = c.document "
            "WHERE c.id = ANY(%s) AND d.id <> %s",
            (chunk_ids, document_id),
        )
        return [chunk_id for (chunk_id,) in rows]

    async def stored_by_id(self, ids: list[str]) -> dict[str, StoredEntity]:
        if not ids:
            return {}
        rows = await fetch(
            self.conn, "SELECT id, scope, name_key FROM entities WHERE id = ANY(%s)", (ids,)
        )
        return {entity_id: StoredEntity(entity_id, scope, key) for entity_id, scope, key in rows}

    async def stored_by_key(self, scope: str, keys: list[str]) -> dict[str, str]:
        if not keys:
            return {}
        rows = await fetch(
            self.conn,
            "SELECT name_key, id FROM entities WHERE scope = %s AND name_key = ANY(%s)",
            (scope, keys),
        )
        return {key: entity_id for key, entity_id in rows}

    async def entity_rows(self, ids: list[str]) -> list[tuple[str, str, str, float, float]]:
        if not ids:
            return []
        rows = await fetch(
            self.conn,
            "SELECT id, name_key, type, salience, confidence FROM entities WHERE id = ANY(%s)",
            (ids,),
        )
        return [(i, key, kind, float(s), float(c)) for i, key, kind, s, c in rows]

    async def other_mentions(self, ids: list[str], document_id: str) -> list[tuple[str, int, int]]:
        if not ids:
            return []
        rows = await fetch(
            self.conn,
            "SELECT e.id, sum(m.count), count(*) FROM mentions AS m "
            "JOIN entities AS e ON e.pk = m.entity JOIN chunks AS x ON x.pk = m.chunk "
            f"{_OTHERS} GROUP BY e.id",
            (ids, document_id),
        )
        return [(entity_id, int(total), int(count)) for entity_id, total, count in rows]

    async def other_contributions(self, ids: list[str], document_id: str) -> list[ContributionRow]:
        if not ids:
            return []
        listed = await fetch(
            self.conn,
            "SELECT e.id, 1, x.description, '{}', x.salience, x.confidence "
            f"FROM entity_descriptions AS x JOIN entities AS e ON e.pk = x.entity {_OTHERS}",
            (ids, document_id),
        )
        aliases = await fetch(
            self.conn,
            "SELECT e.id, 0, '', jsonb_object_agg(x.alias_key, x.alias)::text, NULL, NULL "
            f"FROM entity_aliases AS x JOIN entities AS e ON e.pk = x.entity {_OTHERS} "
            "GROUP BY e.id, x.document",
            (ids, document_id),
        )
        return [tuple(row) for row in [*listed, *aliases]]

    async def relations_by_key(self, keys: list[RelationKey]) -> dict[RelationKey, RelationState]:
        if not keys:
            return {}
        rows = await fetch(
            self.conn,
            # one index lookup per key (a join may scan a table not yet analyzed)
            "SELECT k.source, k.type, k.target, k.said, r.id, r.fact, r.valid_at, "
            "r.invalid_at, r.expired_at FROM unnest(%s::text[], %s::text[], %s::text[], "
            "%s::text[]) AS k(source, type, target, said) CROSS JOIN LATERAL (SELECT * FROM "
            "relations AS r WHERE r.source = (SELECT pk FROM entities WHERE id = k.source) "
            "AND r.target = (SELECT pk FROM entities WHERE id = k.target) "
            "AND r.type = k.type AND r.statement = k.said) AS r",
            [[key[i] for key in keys] for i in range(4)],
        )
        return {
            (s, kind, t, said): RelationState(
                relation_id, fact, iso_or_none(begun), iso_or_none(ended), iso_or_none(expired)
            )
            for s, kind, t, said, relation_id, fact, begun, ended, expired in rows
        }

    async def other_evidence(
        self, relation_ids: list[str], document_id: str
    ) -> dict[str, tuple[int, float]]:
        if not relation_ids:
            return {}
        rows = await fetch(
            self.conn,
            "SELECT r.id, count(*), max(x.confidence) FROM relation_evidence AS x "
            "JOIN relations AS r ON r.pk = x.relation JOIN documents AS d ON d.pk = x.document "
            "WHERE r.id = ANY(%s) AND d.id <> %s GROUP BY r.id",
            (relation_ids, document_id),
        )
        return {relation_id: (int(count), float(best)) for relation_id, count, best in rows}

    async def relations_of(self, entity_ids: list[str]) -> set[str]:
        if not entity_ids:
            return set()
        rows = await fetch(
            self.conn,
            "SELECT r.id FROM relations AS r JOIN entities AS e ON e.pk = r.source "
            "WHERE e.id = ANY(%(ids)s) UNION SELECT r.id FROM relations AS r "
            "JOIN entities AS e ON e.pk = r.target WHERE e.id = ANY(%(ids)s)",
            {"ids": entity_ids},
        )
        return {relation_id for (relation_id,) in rows}

    async def relation_starts(self, relation_ids: list[str]) -> dict[str, Relation]:
        if not relation_ids:
            return {}
        rows = await fetch(
            self.conn,
            "SELECT id, fact, valid_at FROM relations WHERE id = ANY(%s)",
            (relation_ids,),
        )
        return {
            relation_id: Relation(relation_id, "", "", "", fact=fact, valid_at=start)
            for relation_id, fact, start in rows
        }

    async def relation_sources(self, relation_ids: list[str]) -> dict[str, list[RelationSource]]:
        return await relation_sources(self.conn, relation_ids)

    async def document_times(self, document_ids: list[str]) -> dict[str, datetime | None]:
        rows = await fetch(
            self.conn, "SELECT id, valid_at FROM documents WHERE id = ANY(%s)", (document_ids,)
        )
        return {document_id: start for document_id, start in rows}
