"""The graph traversal of each persona intent, and the graph relevance of what it finds.

Every traversal walks the graph from start entities, at most ``persona.max_hops`` hops (one
store call per hop), keeping at each hop the ``max_graph_results`` best entities of the
types its intent wants; the passages mentioning a reached entity (and the evidence of the
relation that reached it) are the graph's hits. A hit scores the **graph relevance**::

    hop_factor(hop) × relationship_weight + 0.2 when the walk started at a question entity

with ``hop_factor`` 1.0 for one hop (and for the start entity itself) and 0.6 for two, and
the persona's weight of the relationship category (:mod:`.categories`) of the weakest
relation on the way. By intent:

* ``relational``: people reached from the people named (else the scope's subject), and
  the evidence of the relations between the people named (one hop each);
* ``temporal``: events, places, times and people around the entities named (else the
  subject), with the time entities of the period asked about; the passages are kept to that
  period by the caller;
* ``spatial``: the stories at the places named (the places themselves and who or what is
  linked to them);
* ``entity_focused``: the stories about the events or things named, and their neighbours;
* ``general``: the one-hop neighbourhood of the subject (the person named, else the scope's
  most mentioned person);
* ``cross_legacy``: no walk here: the linked scopes are searched (:func:`linked_hits`).

The scope's *subject* is its most mentioned person: the person a collection of stories is
about.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from loregraph.models import Entity, Relation, Vector
from loregraph.retrieve.categories import category_of
from loregraph.retrieve.graphindex import GraphIndex
from loregraph.retrieve.intents import IntentRoute, question_period
from loregraph.retrieve.personas import Persona
from loregraph.store.base import Store
from loregraph.text.entity_types import EVENT, LOCATION, ORGANIZATION, PERSON, TIME

HOP_FACTORS = (1.0, 1.0, 0.6)
"""The hop factor by hop count (the start entity, one hop, two hops)."""

ENTITY_BONUS = 0.2
"""Added to the graph relevance of what a walk from a question entity found."""

PASSAGES_PER_ENTITY = 3
"""How many passages mentioning a reached entity (most mentions first) become hits."""

MAX_TIME_ENTITIES = 500
"""How many of a scope's time entities a temporal traversal looks at."""

_WANTED: Mapping[str, frozenset[str] | None] = {
    "relational": frozenset((PERSON,)),
    "temporal": frozenset((EVENT, LOCATION, ORGANIZATION, TIME, PERSON)),
    "spatial": frozenset((PERSON, EVENT, LOCATION, ORGANIZATION)),
    "entity_focused": None,
    "general": None,
    "cross_legacy": frozenset(),
}
"""The entity types each intent's walk keeps (``None``: all)."""

_STARTS: Mapping[str, tuple[str, ...]] = {
    "relational": ("people",),
    "temporal": ("people", "places", "events", "objects"),
    "spatial": ("places",),
    "entity_focused": ("events", "objects", "other", "places", "people"),
    "general": ("people",),
    "cross_legacy": (),
}
"""The categories of question entities each intent starts from."""


def hop_factor(hop: int) -> float:
    """1.0 for the start entity and one hop, 0.6 for two hops."""
    return HOP_FACTORS[min(max(hop, 0), len(HOP_FACTORS) - 1)]


def graph_relevance(hop: int, weight: float, from_question: bool) -> float:
    """``hop_factor × relationship weight (+ 0.2 from a question entity)``."""
    return hop_factor(hop) * weight + (ENTITY_BONUS if from_question else 0.0)


@dataclass(slots=True)
class Reach:
    """An entity a walk reached: its hop, the weakest relationship weight on the way, the
    last relation crossed, whether the walk started at a question entity."""

    entity: Entity
    hop: int
    weight: float
    from_question: bool
    relation: Relation | None = None

    @property
    def score(self) -> float:
        """The graph relevance of the passages found through this entity."""
        return graph_relevance(self.hop, self.weight, self.from_question)


@dataclass(slots=True)
class GraphHit:
    """A passage found by the graph: its graph relevance and how it was found."""

    chunk_id: str
    score: float
    how: str
    scope: str
    shared_via: str | None = None


@dataclass(slots=True)
class Traversal:
    """What one traversal found: hits by chunk id, entities reached, relations crossed."""

    hits: dict[str, GraphHit] = field(default_factory=dict)
    reached: dict[str, Reach] = field(default_factory=dict)
    relations: list[Relation] = field(default_factory=list)

    def add(self, hit: GraphHit) -> None:
        """Keep the better of two hits of one passage."""
        old = self.hits.get(hit.chunk_id)
        if old is None or hit.score > old.score:
            self.hits[hit.chunk_id] = hit


async def scope_subject(store: Store, scope: str) -> Entity | None:
    """The scope's most mentioned person, or ``None`` when it has no person."""
    people = await store.list_entities(scope, entity_type=PERSON, order="mentions", limit=1)
    return people[0] if people else None


async def walk(
    store: Store,
    starts: Sequence[Reach],
    persona: Persona,
    wanted: frozenset[str] | None,
    hops: int,
) -> tuple[dict[str, Reach], list[Relation]]:
    """Breadth-first from ``starts``: the entities reached (best reach each, the starts
    included) and the relations crossed."""
    reached = {r.entity.id: r for r in starts}
    frontier = list(reached)
    crossed: list[Relation] = []
    for hop in range(1, hops + 1):
        if not frontier:
            break
        relations = await store.relations_touching(frontier)
        best: dict[str, Reach] = {}
        for relation in relations:
            if hop == 1 and relation.source_id in reached and relation.target_id in reached:
                crossed.append(relation)  # between two start entities
            for near, far in (
                (relation.source_id, relation.target_id),
                (relation.target_id, relation.source_id),
            ):
                origin = reached.get(near)
                if origin is None or origin.hop != hop - 1 or far in reached:
                    continue
                weight = min(origin.weight, persona.weight(category_of(relation.type)))
                score = graph_relevance(hop, weight, origin.from_question)
                if far not in best or score > best[far].score:
                    best[far] = Reach(origin.entity, hop, weight, origin.from_question, relation)
        entities = {e.id: e for e in await store.get_entities(list(best))}
        kept = [
            Reach(entities[i], r.hop, r.weight, r.from_question, r.relation)
            for i, r in best.items()
            if i in entities and (wanted is None or entities[i].type in wanted)
        ]
        kept.sort(key=lambda r: (-r.score, r.entity.name))
        kept = kept[: persona.max_graph_results]
        for reach in kept:
            reached[reach.entity.id] = reach
            if reach.relation is not None:
                crossed.append(reach.relation)
        frontier = [r.entity.id for r in kept]
    return reached, crossed


def _how(intent: str, reach: Reach) -> str:
    if reach.relation is None:
        return f"{intent.replace('_', '-')} traversal ({reach.entity.name})"
    category = category_of(reach.relation.type)
    hops = f"{reach.hop} hop{'s' if reach.hop > 1 else ''}"
    return f"{intent.replace('_', '-')} traversal ({category}: {reach.relation.type}, {hops})"


async def _starts(
    store: Store, scope: str, route: IntentRoute, subject: Entity | None
) -> list[Reach]:
    ids = route.ids(*_STARTS[route.intent])
    if route.intent == "temporal" and route.period is not None:
        ids += await _period_entities(store, scope, route.period)
    if ids:
        entities = await store.get_entities(list(dict.fromkeys(ids)))
        return [Reach(e, 0, 1.0, True) for e in entities]
    return [Reach(subject, 0, 1.0, False)] if subject is not None else []


async def _period_entities(store: Store, scope: str, period: tuple[int, int]) -> list[str]:
    """The time entities whose names fall in ``period``."""
    times = await store.list_entities(scope, entity_type=TIME, limit=MAX_TIME_ENTITIES)
    out: list[str] = []
    for entity in times:
        named = question_period(entity.name)
        if named is not None and named[0] <= period[1] and named[1] >= period[0]:
            out.append(entity.id)
    return out


async def traverse(
    store: Store,
    scope: str,
    index: GraphIndex,
    route: IntentRoute,
    persona: Persona,
    subject: Entity | None,
) -> Traversal:
    """The traversal of ``route.intent`` in ``scope`` (see the module docstring)."""
    out = Traversal()
    wanted = _WANTED[route.intent]
    if wanted is not None and not wanted:
        return out
    starts = await _starts(store, scope, route, subject)
    hops = 1 if route.intent == "general" else persona.max_hops
    reached, crossed = await walk(store, starts, persona, wanted, hops)
    out.reached, out.relations = reached, crossed
    direct = route.intent not in ("general", "relational")
    shown = [r for r in reached.values() if r.hop > 0 or (direct and r.from_question)]
    rows = index.mentions_of([r.entity.id for r in shown])
    per_entity: dict[str, list[tuple[int, str]]] = {}
    for entity_id, chunk_id, count in rows:
        per_entity.setdefault(entity_id, []).append((-count, chunk_id))
    for reach in shown:
        for _, chunk_id in sorted(per_entity.get(reach.entity.id, []))[:PASSAGES_PER_ENTITY]:
            out.add(GraphHit(chunk_id, reach.score, _how(route.intent, reach), scope))
    evidence = await store.get_relations([r.id for r in crossed])
    by_id = {r.id: r for r in evidence}
    for reach in shown:
        relation = by_id.get(reach.relation.id) if reach.relation is not None else None
        for item in relation.evidence if relation is not None else ():
            out.add(GraphHit(item.chunk_id, reach.score, _how(route.intent, reach), scope))
    for relation in evidence:
        start = reached.get(relation.source_id)
        end = reached.get(relation.target_id)
        if start is None or end is None or start.hop or end.hop:
            continue
        weight = persona.weight(category_of(relation.type))
        link = Reach(end.entity, 1, weight, start.from_question and end.from_question, relation)
        for item in relation.evidence:
            out.add(GraphHit(item.chunk_id, link.score, _how(route.intent, link), scope))
    return out


async def linked_hits(
    store: Store,
    linked_scopes: Sequence[str],
    vector: Vector | None,
    route: IntentRoute,
    limit: int,
) -> list[GraphHit]:
    """The passages of linked scopes closest in meaning to the question (score: their
    similarity, + 0.2 when they name an entity of the question), each marked as shared
    through the link to its scope."""
    if vector is None:
        return []
    names = [n.casefold() for n in route.names() if len(n) > 2]
    hits: list[GraphHit] = []
    for linked in linked_scopes:
        found = await store.search_chunks_vector(linked, vector, limit)
        chunks = {c.id: c for c in await store.get_chunks([f.id for f in found])}
        for scored in found:
            chunk = chunks.get(scored.id)
            text = chunk.text.casefold() if chunk is not None else ""
            bonus = ENTITY_BONUS if any(n in text for n in names) else 0.0
            how = "cross-scope traversal" + (" (names a question entity)" if bonus else "")
            hits.append(GraphHit(scored.id, scored.score + bonus, how, linked, linked))
    hits.sort(key=lambda h: -h.score)
    return hits[:limit]
