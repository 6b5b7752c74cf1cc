"""Breadth-first expansion from the seeds and the merge + rank of what it reaches.

An entity reached at hop ``h`` scores ``hop_factor(h) × relation_weight`` where
``relation_weight`` is the normalised weight of the strongest relation that reached it
(co-occurrence counts half), plus ``ENTITY_MATCH_BONUS`` when the question names it and
``BOTH_BONUS`` when vector search found it too. Seeds score ``1 +`` their normalised seed
score, so they always lead.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping

from loregraph.models import CO_OCCURS, Entity, Relation, Subgraph, utcnow
from loregraph.retrieve.results.result import RankedEntity, RankedRelation, StartEntity

HOP_FACTORS = {0: 1.0, 1: 1.0, 2: 0.6}
FAR_HOP_DECAY = 0.6
ENTITY_MATCH_BONUS = 0.2
BOTH_BONUS = 0.15
CO_OCCURS_FACTOR = 0.5
MIN_RELATION_WEIGHT = 0.4


def hop_factor(hop: int) -> float:
    """1.0 for the seeds and their neighbours, 0.6 at two hops, decaying further out."""
    if hop in HOP_FACTORS:
        return HOP_FACTORS[hop]
    return HOP_FACTORS[2] * FAR_HOP_DECAY ** (hop - 2)


def effective_weight(relation: Relation) -> float:
    """A relation's weight, with plain co-occurrence counting less than a typed relation."""
    weight = max(relation.weight, 0.0)
    return weight * CO_OCCURS_FACTOR if relation.type == CO_OCCURS else weight


def normalised_weights(relations: Iterable[Relation]) -> dict[str, float]:
    """Each relation's weight mapped into ``[MIN_RELATION_WEIGHT, 1]`` on a log scale."""
    rels = list(relations)
    if not rels:
        return {}
    top = max(effective_weight(r) for r in rels)
    scale = math.log1p(top) if top > 0 else 1.0
    return {
        r.id: MIN_RELATION_WEIGHT
        + (1.0 - MIN_RELATION_WEIGHT) * (math.log1p(effective_weight(r)) / scale)
        for r in rels
    }


def link_weights_from_relations(
    relations: Iterable[Relation], hops: Mapping[str, int]
) -> dict[str, float]:
    """For each entity, the effective weight of its strongest relation to one a hop closer."""
    links: dict[str, float] = {}
    for rel in relations:
        w = effective_weight(rel)
        for near, far in ((rel.source_id, rel.target_id), (rel.target_id, rel.source_id)):
            if near in hops and far in hops and hops[near] < hops[far]:
                links[far] = max(links.get(far, 0.0), w)
    return links


def rank_entities(
    entities: Mapping[str, Entity],
    hops: Mapping[str, int],
    links: Mapping[str, float],
    seeds: list[StartEntity],
    *,
    matched_ids: Collection[str],
    vector_ids: Collection[str],
    max_entities: int,
) -> list[RankedEntity]:
    """Score and order reached entities (merge + rank, see the module docstring).

    ``links`` holds each entity's raw link weight (strongest relation towards the seeds);
    it is normalised here to ``[MIN_RELATION_WEIGHT, 1]`` on a log scale.
    """
    top_link = max(links.values(), default=0.0)
    scale = math.log1p(top_link) if top_link > 0 else 1.0
    seed_scores = {s.entity.id: s.score for s in seeds}
    top_seed = max(seed_scores.values(), default=1.0) or 1.0
    pool: dict[str, Entity] = dict(entities)
    for seed in seeds:
        pool.setdefault(seed.entity.id, seed.entity)

    ranked: list[RankedEntity] = []
    for entity_id, entity in pool.items():
        hop = 0 if entity_id in seed_scores else hops.get(entity_id)
        found_by: list[str] = []
        if entity_id in seed_scores:
            score = 1.0 + 0.5 * seed_scores[entity_id] / top_seed
            found_by.append("start")
        else:
            link = links.get(entity_id, 0.0)
            weight = MIN_RELATION_WEIGHT + (1.0 - MIN_RELATION_WEIGHT) * math.log1p(link) / scale
            score = hop_factor(hop if hop is not None else 2) * weight
            found_by.append("graph")
        if entity_id in matched_ids:
            score += ENTITY_MATCH_BONUS
        if entity_id in vector_ids:
            score += BOTH_BONUS
            found_by.append("vector")
        ranked.append(
            RankedEntity(
                entity=entity,
                score=score,
                hop=hop,
                is_start=entity_id in seed_scores,
                found_by=found_by,
            )
        )
    ranked.sort(key=lambda r: (-r.score, r.hop if r.hop is not None else 99, r.entity.name))
    return ranked[: max(0, max_entities)]


def rank_subgraph(
    subgraph: Subgraph,
    seeds: list[StartEntity],
    *,
    matched_ids: Collection[str],
    vector_ids: Collection[str],
    max_entities: int,
) -> list[RankedEntity]:
    """Score and order the entities of a breadth-first subgraph with typed relations."""
    hops = dict(subgraph.hops)
    for seed in seeds:
        hops[seed.entity.id] = 0
    return rank_entities(
        subgraph.entities,
        hops,
        link_weights_from_relations(subgraph.relations, hops),
        seeds,
        matched_ids=matched_ids,
        vector_ids=vector_ids,
        max_entities=max_entities,
    )


def rank_relations(
    relations: Iterable[Relation],
    entity_scores: Mapping[str, float],
    names: Mapping[str, str],
    max_relations: int,
) -> list[RankedRelation]:
    """Relations among the kept entities, typed first, then by their ends' scores and weight.

    A co-occurrence relation between two entities that also have a typed relation is
    dropped: the typed one says more. A relation that has stopped holding (``invalid_at``
    passed) is history and left out.
    """
    now = utcnow()
    rels = [
        r
        for r in relations
        if r.source_id in entity_scores and r.target_id in entity_scores and not r.expired_at
        if r.invalid_at is None or r.invalid_at > now
    ]
    typed_pairs = {frozenset((r.source_id, r.target_id)) for r in rels if r.type != CO_OCCURS}
    weights = normalised_weights(rels)
    ranked: list[RankedRelation] = []
    seen: set[str] = set()
    for rel in rels:
        if rel.id in seen:
            continue
        seen.add(rel.id)
        if rel.type == CO_OCCURS and frozenset((rel.source_id, rel.target_id)) in typed_pairs:
            continue
        ends = (entity_scores[rel.source_id] + entity_scores[rel.target_id]) / 2.0
        score = ends * weights.get(rel.id, MIN_RELATION_WEIGHT)
        ranked.append(
            RankedRelation(
                relation=rel,
                source_name=names.get(rel.source_id, rel.source_id),
                target_name=names.get(rel.target_id, rel.target_id),
                score=score,
            )
        )
    ranked.sort(key=lambda r: (r.relation.type == CO_OCCURS, -r.score, r.relation.id))
    return ranked[: max(0, max_relations)]


def seeds_only(
    seeds: list[StartEntity], *, matched_ids: Collection[str], vector_ids: Collection[str]
) -> list[RankedEntity]:
    """The seeds as ranked entities, for when no expansion runs."""
    return rank_subgraph(
        Subgraph(),
        seeds,
        matched_ids=matched_ids,
        vector_ids=vector_ids,
        max_entities=len(seeds),
    )
