"""Removing a document's contributions and recomputing what depended on them.

Shared by ``delete_document`` and by ``write_document``'s replace path; everything runs
inside the caller's transaction. Derived values, recomputed (set-based) for every touched
entity and relation:

* entity ``mention_count`` = sum of its mention counts;
* entity ``aliases`` = one surface (the smallest) per distinct alias key its documents used,
  never the canonical name's key, sorted; ``entity_keys`` follows;
* entity ``description`` = the longest non-empty description any of its documents gave;
* entity ``salience`` and ``confidence`` = the highest its listing documents gave (kept as
  they are when none lists it or one's values are unknown, NULL: written before version 7);
* an entity is *supported* while it has a mention or a document that lists it; an
  unsupported entity is removed with its relations;
* relation ``weight`` = its number of evidence rows; ``confidence`` = their highest
  confidence; a relation left with no evidence is removed.

Concurrency: the touched rows are locked (``FOR UPDATE``) before they are checked, so a
concurrent writer that is adding a mention or evidence to one of them has committed first
and its rows are seen (READ COMMITTED takes a new snapshot per statement). Locks are taken
in the order writers take them (entities by name key, then relations by their triple), so
that a delete and a write of documents about the same entities do not deadlock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType

from loregraph.models import Relation
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.provenance import relation_sources
from loregraph.store.postgres.rows import fetch
from loregraph.store.provenance import RelationSource
from loregraph.store.remaining import derived_again, given_by

Times = dict[str, datetime | None]
_NOTHING: Mapping[int, tuple[bool, bool]] = MappingProxyType({})


@dataclass(slots=True)
class Detached:
    """What removing a document's contributions touched."""

    scope: str
    chunks: int = 0
    mentions: int = 0
    chunk_ids: list[str] = field(default_factory=list)
    entities: set[int] = field(default_factory=set)
    relations: set[int] = field(default_factory=set)
    given: dict[int, tuple[bool, bool]] = field(default_factory=dict)
    """Relation pk → whether the document wrote its fact, gave its start (derived again
    from what remains: :mod:`loregraph.store.remaining`)."""


@dataclass(slots=True)
class Removed:
    """What :func:`recompute` deleted."""

    entities: list[str] = field(default_factory=list)
    relations: set[int] = field(default_factory=set)


async def detach_document(conn: Conn, document_id: str) -> Detached | None:
    """Delete a document row and, by cascade, everything it contributed.

    Returns what was touched, or ``None`` when there is no such document.
    """
    cursor = await conn.execute(
        "SELECT d.pk, d.scope, "
        "ARRAY(SELECT m.entity FROM chunks AS c JOIN mentions AS m ON m.chunk = c.pk "
        "WHERE c.document = d.pk "
        "UNION SELECT entity FROM entity_descriptions WHERE document = d.pk "
        "UNION SELECT entity FROM entity_aliases WHERE document = d.pk), "
        "ARRAY(SELECT DISTINCT relation FROM relation_evidence WHERE document = d.pk), "
        "ARRAY(SELECT id FROM chunks WHERE document = d.pk), "
        "(SELECT count(*) FROM chunks AS c JOIN mentions AS m ON m.chunk = c.pk "
        "WHERE c.document = d.pk) "
        "FROM documents AS d WHERE d.id = %s FOR UPDATE OF d",
        (document_id,),
    )
    row = await cursor.fetchone()
    if row is None:
        return None
    doc_pk, scope, entities, relations, chunk_ids, mentions = row
    given = await _given(conn, relations, document_id)
    await conn.execute("DELETE FROM documents WHERE pk = %s", (doc_pk,))
    return Detached(
        scope=scope,
        chunks=len(chunk_ids),
        mentions=int(mentions),
        chunk_ids=list(chunk_ids),
        entities=set(entities),
        relations=set(relations),
        given=given,
    )


async def recompute(
    conn: Conn,
    entities: set[int],
    relations: set[int],
    now: datetime,
    given: Mapping[int, tuple[bool, bool]] = _NOTHING,
) -> Removed:
    """Recompute touched relations, then touched entities; remove unsupported ones. What a
    removed document ``given`` relations (their fact, their start) is derived again from
    what remains (:mod:`loregraph.store.remaining`)."""
    removed = Removed()
    # lock in the writers' order: entities by key, then relations by (source, type, target)
    await conn.execute(
        "SELECT pk FROM entities WHERE pk = ANY(%s) ORDER BY scope, name_key FOR UPDATE",
        (sorted(entities),),
    )
    await conn.execute(
        "SELECT pk FROM relations WHERE pk = ANY(%s) ORDER BY source, type, target FOR UPDATE",
        (sorted(relations),),
    )
    if relations:
        removed.relations |= await _recompute_relations(conn, sorted(relations))
        alive = {pk: marks for pk, marks in given.items() if pk not in removed.relations}
        await _derive_again(conn, alive)
    if entities:
        await _recompute_entities(conn, sorted(entities), now, removed)
    return removed


async def _recompute_relations(conn: Conn, pks: list[int]) -> set[int]:
    await conn.execute(
        "UPDATE relations AS r SET weight = s.n, confidence = s.c FROM ("
        "SELECT relation, count(*)::float8 AS n, max(confidence) AS c FROM relation_evidence "
        "WHERE relation = ANY(%s) GROUP BY relation) AS s "
        "WHERE r.pk = s.relation AND (r.weight, r.confidence) IS DISTINCT FROM (s.n, s.c)",
        (pks,),
    )
    cursor = await conn.execute(
        "DELETE FROM relations AS r WHERE r.pk = ANY(%s) AND NOT EXISTS "
        "(SELECT 1 FROM relation_evidence AS v WHERE v.relation = r.pk) RETURNING r.pk",
        (pks,),
    )
    return {pk for (pk,) in await cursor.fetchall()}


async def _stored(
    conn: Conn, pks: list[int]
) -> tuple[dict[str, tuple[int, Relation]], dict[str, list[RelationSource]], Times]:
    """The relations ``pks`` by id with their pk, fact and start; their evidence by
    relation id; the times of its documents."""
    stored = {
        relation_id: (pk, Relation(relation_id, "", "", "", fact=fact, valid_at=valid_at))
        for pk, relation_id, fact, valid_at in await fetch(
            conn, "SELECT pk, id, fact, valid_at FROM relations WHERE pk = ANY(%s)", (pks,)
        )
    }
    rows = await fetch(
        conn,
        "SELECT DISTINCT d.id, d.valid_at FROM relation_evidence AS x "
        "JOIN documents AS d ON d.pk = x.document WHERE x.relation = ANY(%s)",
        (pks,),
    )
    times: Times = {doc_id: valid_at for doc_id, valid_at in rows}
    return stored, await relation_sources(conn, list(stored)), times


async def _given(conn: Conn, pks: list[int], document_id: str) -> dict[int, tuple[bool, bool]]:
    """What the document gave the relations ``pks`` (read before its evidence goes)."""
    if not pks:
        return {}
    stored, sources, times = await _stored(conn, pks)
    given: dict[int, tuple[bool, bool]] = {}
    for relation_id, (pk, relation) in stored.items():
        marks = given_by(relation, sources.get(relation_id, []), document_id, times)
        if any(marks):
            given[pk] = marks
    return given


async def _derive_again(conn: Conn, given: Mapping[int, tuple[bool, bool]]) -> None:
    """Fact and start of the relations a removed document gave them, from what remains."""
    if not given:
        return
    stored, sources, times = await _stored(conn, sorted(given))
    for relation_id, (pk, relation) in stored.items():
        fact, start = given[pk]
        found = sources.get(relation_id, [])
        again = derived_again(relation, found, times, fact=fact, start=start)
        if (again.fact, again.valid_at) != (relation.fact, relation.valid_at):
            await conn.execute(
                "UPDATE relations SET fact = %s, valid_at = %s WHERE pk = %s",
                (again.fact, again.valid_at, pk),
            )


_UPDATE_ENTITIES = """
UPDATE entities AS e SET
    mention_count = c.mention_count,
    description = c.description,
    aliases = c.aliases,
    search = setweight(to_tsvector('english', e.name), 'A')
        || setweight(to_tsvector('english', array_to_string(c.aliases, ' ')), 'B')
        || setweight(to_tsvector('english', c.description), 'C'),
    salience = c.salience,
    confidence = c.confidence,
    updated_at = %(now)s
FROM (
    SELECT x.pk,
        coalesce(s.salience, x.salience) AS salience,
        coalesce(s.confidence, x.confidence) AS confidence,
        coalesce((SELECT sum(m.count) FROM mentions AS m WHERE m.entity = x.pk), 0)
            AS mention_count,
        coalesce((SELECT d.description FROM entity_descriptions AS d
            WHERE d.entity = x.pk AND d.description <> ''
            ORDER BY length(d.description) DESC, d.description LIMIT 1), '') AS description,
        coalesce((SELECT array_agg(a.surface ORDER BY a.surface, a.key) FROM (
            SELECT alias_key AS key, min(alias) AS surface FROM entity_aliases
            WHERE entity = x.pk AND alias_key <> x.name_key GROUP BY alias_key) AS a),
            '{}') AS aliases
    FROM entities AS x CROSS JOIN LATERAL (
        SELECT CASE WHEN count(*) = count(d.salience) THEN max(d.salience) END AS salience,
            CASE WHEN count(*) = count(d.confidence) THEN max(d.confidence) END AS confidence
        FROM entity_descriptions AS d WHERE d.entity = x.pk) AS s
    WHERE x.pk = ANY(%(pks)s)
) AS c
WHERE e.pk = c.pk
    AND (e.mention_count, e.description, e.aliases, e.salience, e.confidence)
        IS DISTINCT FROM (c.mention_count, c.description, c.aliases, c.salience, c.confidence)
"""

_REFRESH_KEYS = """
INSERT INTO entity_keys (entity, key, scope, type)
SELECT e.pk, k.key, e.scope, e.type FROM entities AS e CROSS JOIN LATERAL (
    SELECT e.name_key AS key
    UNION SELECT a.alias_key FROM entity_aliases AS a WHERE a.entity = e.pk
) AS k
WHERE e.pk = ANY(%s) AND k.key <> ''
"""


async def _recompute_entities(conn: Conn, pks: list[int], now: datetime, removed: Removed) -> None:
    cursor = await conn.execute(
        "SELECT pk, id FROM entities AS e WHERE pk = ANY(%s) "
        "AND NOT EXISTS (SELECT 1 FROM mentions AS m WHERE m.entity = e.pk) "
        "AND NOT EXISTS (SELECT 1 FROM entity_descriptions AS d WHERE d.entity = e.pk) "
        "ORDER BY pk",
        (pks,),
    )
    dead = await cursor.fetchall()
    if dead:
        dead_pks = [pk for pk, _ in dead]
        cursor = await conn.execute(
            "DELETE FROM relations WHERE source = ANY(%s) OR target = ANY(%s) RETURNING pk",
            (dead_pks, dead_pks),
        )
        removed.relations |= {pk for (pk,) in await cursor.fetchall()}
        await conn.execute("DELETE FROM entities WHERE pk = ANY(%s)", (dead_pks,))
        removed.entities.extend(entity_id for _, entity_id in dead)
        gone = set(dead_pks)
        pks = [pk for pk in pks if pk not in gone]
    if not pks:
        return
    await conn.execute(_UPDATE_ENTITIES, {"now": now, "pks": pks})
    await conn.execute("DELETE FROM entity_keys WHERE entity = ANY(%s)", (pks,))
    await conn.execute(_REFRESH_KEYS, (pks,))


async def bump_graph_version(conn: Conn, scope: str) -> int:
    """Increment the scope's graph version counter; return the new value."""
    cursor = await conn.execute(
        "INSERT INTO graph_versions (scope, version) VALUES (%s, 1) ON CONFLICT (scope) "
        "DO UPDATE SET version = graph_versions.version + 1 RETURNING version",
        (scope,),
    )
    row = await cursor.fetchone()
    assert row is not None
    return int(row[0])


async def read_graph_version(conn: Conn, scope: str) -> int:
    """A scope's graph version (0 when it was never written)."""
    cursor = await conn.execute("SELECT version FROM graph_versions WHERE scope = %s", (scope,))
    row = await cursor.fetchone()
    return 0 if row is None else int(row[0])
