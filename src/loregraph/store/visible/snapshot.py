"""A scope's whole graph as a principal sees it, for the reads that need all of it at once
(the in-memory graph index, counts, entity listings). Built from the store's pages and
provenance, kept until the scope or the readable documents change."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from loregraph.models import Entity, GraphArrays, Relation, StoreStats
from loregraph.store.visible.derive import visible_entity, visible_relation

if TYPE_CHECKING:
    from loregraph.store.base import Store

BATCH = 1000


@dataclass(slots=True)
class VisibleGraph:
    """The entities (with embeddings) and relations (with evidence) a principal sees."""

    readable: frozenset[str]
    entities: dict[str, Entity] = field(default_factory=dict)
    relations: list[Relation] = field(default_factory=list)
    _by_entity: dict[str, list[Relation]] | None = None

    def touching(self, entity_id: str, direction: str = "both") -> list[Relation]:
        """The relations of one entity (``out``, ``in`` or ``both``), with evidence."""
        if self._by_entity is None:
            self._by_entity = {}
            for relation in self.relations:
                for end in dict.fromkeys((relation.source_id, relation.target_id)):
                    self._by_entity.setdefault(end, []).append(relation)
        mine = self._by_entity.get(entity_id, [])
        if direction == "out":
            return [r for r in mine if r.source_id == entity_id]
        if direction == "in":
            return [r for r in mine if r.target_id == entity_id]
        return list(mine)


async def visible_graph(store: Store, scope: str, readable: frozenset[str]) -> VisibleGraph:
    """Every entity and relation of ``scope`` seen through the ``readable`` documents."""
    graph = VisibleGraph(readable)
    batch: list[Entity] = []
    async for entity in store.iter_entities(scope, BATCH):
        batch.append(entity)
        if len(batch) >= BATCH:
            await _add_entities(store, graph, batch)
            batch = []
    await _add_entities(store, graph, batch)
    pending: list[Relation] = []
    async for relation in store.iter_relations(scope, BATCH):
        pending.append(relation)
        if len(pending) >= BATCH:
            await _add_relations(store, graph, pending)
            pending = []
    await _add_relations(store, graph, pending)
    return graph


async def _add_entities(store: Store, graph: VisibleGraph, batch: list[Entity]) -> None:
    sources = await store.entity_sources([e.id for e in batch]) if batch else {}
    for entity in batch:
        seen = visible_entity(entity, sources.get(entity.id, []), graph.readable)
        if seen is not None:
            graph.entities[seen.id] = seen


async def _add_relations(store: Store, graph: VisibleGraph, batch: list[Relation]) -> None:
    sources = await store.relation_sources([r.id for r in batch]) if batch else {}
    for relation in batch:
        seen = visible_relation(relation, sources.get(relation.id, []), graph.readable)
        if seen is not None and {seen.source_id, seen.target_id} <= graph.entities.keys():
            graph.relations.append(seen)


def arrays(full: GraphArrays, graph: VisibleGraph) -> GraphArrays:
    """``full`` (the store's arrays of the scope) cut down to what ``graph`` shows: its
    entities, its live relations, the readable chunks and their mentions."""
    entity_ids = [e for e in full.entity_ids if e in graph.entities]
    entity_at = {entity_id: i for i, entity_id in enumerate(entity_ids)}
    live = [r for r in graph.relations if r.expired_at is None]
    keep_chunks = [i for i, d in enumerate(full.chunk_document) if d in graph.readable]
    chunk_at = np.full(len(full.chunk_ids), -1, dtype=np.int64)
    chunk_at[keep_chunks] = np.arange(len(keep_chunks), dtype=np.int64)
    old_entity = np.array(
        [entity_at.get(entity_id, -1) for entity_id in full.entity_ids], dtype=np.int64
    )
    m_entity = old_entity[full.mention_entity] if len(full.mention_entity) else full.mention_entity
    m_chunk = chunk_at[full.mention_chunk] if len(full.mention_chunk) else full.mention_chunk
    kept = (m_entity >= 0) & (m_chunk >= 0)
    return GraphArrays(
        entity_ids=entity_ids,
        edge_src=np.array([entity_at[r.source_id] for r in live], dtype=np.int64),
        edge_dst=np.array([entity_at[r.target_id] for r in live], dtype=np.int64),
        edge_weight=np.array([r.weight for r in live], dtype=np.float32),
        chunk_ids=[full.chunk_ids[i] for i in keep_chunks],
        chunk_document=[full.chunk_document[i] for i in keep_chunks],
        mention_entity=m_entity[kept],
        mention_chunk=m_chunk[kept],
        mention_count=full.mention_count[kept],
    )


def stats(full: StoreStats, graph: VisibleGraph, cut: GraphArrays) -> StoreStats:
    """The scope's counts as ``graph`` shows them."""
    return StoreStats(
        documents=len(graph.readable),
        chunks=len(cut.chunk_ids),
        entities=len(graph.entities),
        relations=len(graph.relations),
        mentions=len(cut.mention_entity),
        schema_version=full.schema_version,
        relation_types=dict(Counter(r.type for r in graph.relations).most_common()),
        entity_types=dict(Counter(e.type for e in graph.entities.values()).most_common()),
    )


def _order_key(order: str, degree: Counter[str]) -> Callable[[Entity], tuple[Any, ...]]:
    if order == "name":
        return lambda e: (e.name.casefold(), e.id)
    if order == "degree":
        return lambda e: (-degree[e.id], -e.mention_count, e.name, e.id)
    return lambda e: (-e.mention_count, e.name, e.id)


def listing(
    graph: VisibleGraph, entity_type: str | None, order: str, limit: int | None, offset: int
) -> list[Entity]:
    """:meth:`Store.list_entities` over ``graph`` (without embeddings)."""
    degree: Counter[str] = Counter()
    for relation in graph.relations:
        degree[relation.source_id] += 1
        degree[relation.target_id] += 1
    chosen = [e for e in graph.entities.values() if entity_type is None or e.type == entity_type]
    chosen.sort(key=_order_key(order, degree))
    end = None if limit is None else offset + limit
    return [_without_embedding(e) for e in chosen[offset:end]]


def _without_embedding(entity: Entity) -> Entity:
    return replace(entity, embedding=None)
