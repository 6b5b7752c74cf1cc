"""The write planner's reads (:class:`~loregraph.store.planstate.WriteState`) in SQLite.

They run on the store's worker thread, inside the write's ``BEGIN IMMEDIATE`` transaction,
and answer at once (no read waits for anything), so a whole plan is made with
:func:`~loregraph.store.planstate.at_once` and no other writer can come in between: the
write sequence is not needed here. Records are found by id; the tables join on their
integer pks.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from loregraph.models import Relation
from loregraph.store.planning import StoredEntity
from loregraph.store.planstate import ContributionRow, OldDocument, RelationKey, RelationState
from loregraph.store.provenance import RelationSource
from loregraph.store.sqlite.provenance import relation_sources
from loregraph.store.sqlite.rows import CODEC, IN_JSON, json_list

_ENTITY_IDS = f"SELECT pk FROM entities WHERE id IN {IN_JSON}"


class SqliteWriteState:
    """:class:`~loregraph.store.planstate.WriteState` over one connection (see the module
    notes)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    async def meta_seq(self) -> int:
        return 0

    async def old_document(self, document_id: str) -> OldDocument | None:
        found = self.conn.execute(
            "SELECT pk, scope FROM documents WHERE id = ?", (document_id,)
        ).fetchone()
        if found is None:
            return None
        pk, scope = found
        old = OldDocument(scope)
        old.chunk_ids = [
            chunk_id
            for (chunk_id,) in self.conn.execute(
                "SELECT id FROM chunks WHERE document_id = ? ORDER BY seq", (document_id,)
            )
        ]
        mentioned = self.conn.execute(
            "SELECT e.id FROM chunks AS c JOIN mentions AS m ON m.chunk = c.pk "
            "JOIN entities AS e ON e.pk = m.entity WHERE c.document_id = ?",
            (document_id,),
        ).fetchall()
        old.mentions = len(mentioned)
        old.entities = {entity_id for (entity_id,) in mentioned}
        old.entities |= {
            entity_id
            for (entity_id,) in self.conn.execute(
                "SELECT e.id FROM entity_descriptions AS d JOIN entities AS e ON e.pk = d.entity "
                "WHERE d.document = ?1 UNION SELECT e.id FROM entity_aliases AS a "
                "JOIN entities AS e ON e.pk = a.entity WHERE a.document = ?1",
                (pk,),
            )
        }
        old.relations = {
            relation_id
            for (relation_id,) in self.conn.execute(
                "SELECT DISTINCT r.id FROM relation_evidence AS x "
                "JOIN relations AS r ON r.pk = x.relation WHERE x.document = ?",
                (pk,),
            )
        }
        return old

    async def foreign_chunks(self, document_id: str, chunk_ids: list[str]) -> list[str]:
        rows = self.conn.execute(
            f"SELECT id FROM chunks WHERE id IN {IN_JSON} AND document_id != ?",
            (json_list(chunk_ids), document_id),
        )
        return [chunk_id for (chunk_id,) in rows]

    async def stored_by_id(self, ids: list[str]) -> dict[str, StoredEntity]:
        rows = self.conn.execute(
            f"SELECT id, scope, name_key FROM entities WHERE id IN {IN_JSON}", (json_list(ids),)
        )
        return {entity_id: StoredEntity(entity_id, scope, key) for entity_id, scope, key in rows}

    async def stored_by_key(self, scope: str, keys: list[str]) -> dict[str, str]:
        rows = self.conn.execute(
            f"SELECT name_key, id FROM entities WHERE scope = ? AND name_key IN {IN_JSON}",
            (scope, json_list(keys)),
        )
        return dict(rows.fetchall())

    async def entity_rows(self, ids: list[str]) -> list[tuple[str, str, str, float, float]]:
        rows = self.conn.execute(
            f"SELECT id, name_key, type, salience, confidence FROM entities WHERE id IN {IN_JSON}",
            (json_list(ids),),
        )
        return [(i, key, kind, float(s), float(c)) for i, key, kind, s, c in rows]

    async def other_mentions(self, ids: list[str], document_id: str) -> list[tuple[str, int, int]]:
        rows = self.conn.execute(
            "SELECT e.id, sum(m.count), count(*) FROM mentions AS m "
            "JOIN entities AS e ON e.pk = m.entity JOIN chunks AS c ON c.pk = m.chunk "
            f"WHERE m.entity IN ({_ENTITY_IDS}) AND c.document_id != ? GROUP BY e.id",
            (json_list(ids), document_id),
        )
        return [(entity_id, int(total), int(count)) for entity_id, total, count in rows]

    async def other_contributions(self, ids: list[str], document_id: str) -> list[ContributionRow]:
        listed = self.conn.execute(
            "SELECT e.id, 1, x.description, '{}', x.salience, x.confidence "
            "FROM entity_descriptions AS x JOIN entities AS e ON e.pk = x.entity "
            f"JOIN documents AS d ON d.pk = x.document WHERE x.entity IN ({_ENTITY_IDS}) "
            "AND d.id != ?",
            (json_list(ids), document_id),
        ).fetchall()
        aliases = self.conn.execute(
            "SELECT e.id, 0, '', json_group_object(a.alias_key, a.alias), NULL, NULL "
            "FROM entity_aliases AS a JOIN entities AS e ON e.pk = a.entity "
            f"JOIN documents AS d ON d.pk = a.document WHERE a.entity IN ({_ENTITY_IDS}) "
            "AND d.id != ? GROUP BY a.entity, a.document",
            (json_list(ids), document_id),
        ).fetchall()
        return [*listed, *aliases]

    async def relations_by_key(self, keys: list[RelationKey]) -> dict[RelationKey, RelationState]:
        if not keys:
            return {}
        rows = self.conn.execute(
            "SELECT s.id, r.type, t.id, r.statement, r.id, r.fact, r.valid_at, r.invalid_at, "
            "r.expired_at FROM json_each(?) AS j "
            "JOIN entities AS s ON s.id = json_extract(j.value, '$[0]') "
            "JOIN entities AS t ON t.id = json_extract(j.value, '$[2]') "
            "JOIN relations AS r ON r.source = s.pk AND r.target = t.pk "
            "AND r.type = json_extract(j.value, '$[1]') "
            "AND r.statement = json_extract(j.value, '$[3]')",
            (json.dumps([list(key) for key in keys], ensure_ascii=False),),
        )
        return {(s, kind, t, said): RelationState(*rest) for s, kind, t, said, *rest in rows}

    async def other_evidence(
        self, relation_ids: list[str], document_id: str
    ) -> dict[str, tuple[int, float]]:
        rows = self.conn.execute(
            "SELECT r.id, count(*), max(x.confidence) FROM relation_evidence AS x "
            "JOIN relations AS r ON r.pk = x.relation JOIN documents AS d ON d.pk = x.document "
            f"WHERE r.id IN {IN_JSON} AND d.id != ? GROUP BY r.id",
            (json_list(relation_ids), document_id),
        )
        return {relation_id: (int(count), float(best)) for relation_id, count, best in rows}

    async def relations_of(self, entity_ids: list[str]) -> set[str]:
        rows = self.conn.execute(
            f"SELECT id FROM relations WHERE source IN ({_ENTITY_IDS}) "
            f"UNION SELECT id FROM relations WHERE target IN ({_ENTITY_IDS})",
            (json_list(entity_ids), json_list(entity_ids)),
        )
        return {relation_id for (relation_id,) in rows}

    async def relation_starts(self, relation_ids: list[str]) -> dict[str, Relation]:
        rows = self.conn.execute(
            f"SELECT id, fact, valid_at FROM relations WHERE id IN {IN_JSON}",
            (json_list(relation_ids),),
        )
        return {
            relation_id: Relation(
                relation_id, "", "", "", fact=fact, valid_at=CODEC.read_time_or_none(start)
            )
            for relation_id, fact, start in rows
        }

    async def relation_sources(self, relation_ids: list[str]) -> dict[str, list[RelationSource]]:
        return relation_sources(self.conn, relation_ids)

    async def document_times(self, document_ids: list[str]) -> dict[str, datetime | None]:
        rows = self.conn.execute(
            f"SELECT id, valid_at FROM documents WHERE id IN {IN_JSON}", (json_list(document_ids),)
        )
        return {document_id: CODEC.read_time_or_none(at) for document_id, at in rows}
