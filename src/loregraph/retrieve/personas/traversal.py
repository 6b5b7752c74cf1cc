"""The graph traversal of each persona intent, and the graph relevance of what it finds.

Every traversal walks the graph from start entities, at most ``persona.max_hops`` hops (one
store call per hop), keeping at each hop the ``max_graph_results`` best entities of the
types its intent wants. A hit (a passage the graph found) scores the **graph relevance**::

    hop_factor(hop) × relationship_weight + 0.2 when the walk started at a question entity

with ``hop_factor`` 1.0 for one hop (and for the start entity itself) and 0.6 for two, and
the persona's weight of the relationship category (:mod:`.categories`) of the weakest
relation on the way. By intent:

* ``relational``: from the person named (else the scope's subject), the people reached
  (the first hop only along relations whose type has a relationship word of the question,
  "mother" → ``IS_MOTHER_OF``, when some has): their passages and the evidence of the
  relations crossed. With two or more people named, only what joins them: the evidence of
  the relations between them and the passages naming two of them;
* ``temporal``: the passages of the entities named (else of the subject) and of the events,
  places, times and people around them, with the time entities of the period asked about;
  the caller keeps them to that period;
* ``spatial``: the stories at the places named and the evidence of what is linked to them;
* ``entity_focused``: the stories about the events or things named, and the evidence of
  their relations;
* ``general``: the one-hop neighbourhood of the subject (the person named, whose own
  stories count too, else the scope's most mentioned person);
* ``cross_legacy``: no walk here: the linked scopes are searched (:func:`linked_hits`).

A start entity gives up to ``max_graph_results`` of its passages, a reached one
:data:`PASSAGES_PER_ENTITY` (most mentions first). The scope's *subject* is its most
mentioned person: the person a collection of stories is about.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from loregraph.models import Entity, Relation, Vector
from loregraph.retrieve.graph.graphindex import GraphIndex
from loregraph.retrieve.personas.library import Persona
from loregraph.retrieve.results.categories import OTHER, category_of
from loregraph.retrieve.results.intents import IntentRoute, question_period
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


def naming(relations: Sequence[Relation], words: Sequence[str]) -> list[Relation]:
    """The relations whose type has one of ``words`` ("mother" → ``IS_MOTHER_OF``); all of
    them when none has (or no word is given)."""
    wanted = set(words)
    named = [r for r in relations if wanted & set(r.type.casefold().split("_"))]
    return named or list(relations)


async def walk(
    store: Store,
    starts: Sequence[Reach],
    persona: Persona,
    wanted: frozenset[str] | None,
    hops: int,
    words: Sequence[str] = (),
) -> tuple[dict[str, Reach], list[Relation]]:
    """Breadth-first from ``starts``: the entities reached (best reach each, the starts
    included) and the relations crossed. The first hop follows only the relations whose
    type has one of ``words`` when some have (:func:`naming`)."""
    reached = {r.entity.id: r for r in starts}
    frontier = list(reached)
    crossed: list[Relation] = []
    for hop in range(1, hops + 1):
        if not frontier:
            break
        relations = await store.relations_touching(frontier)
        if hop == 1:
            relations = naming(relations, words)
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
    people = [s for s in starts if s.from_question and s.entity.type == PERSON]
    pair = route.intent == "relational" and len(people) >= 2
    hops = 1 if route.intent == "general" or pair else persona.max_hops
    words = route.relation_words if route.intent == "relational" else ()
    reached, crossed = await walk(store, starts, persona, wanted, hops, words)
    out.reached, out.relations = reached, crossed
    own = [r for r in reached.values() if r.hop == 0 and _reads_own(route.intent, r)]
    _mention_hits(out, index, own, persona.max_graph_results, route.intent, scope)
    if not pair and route.intent in NEIGHBOUR_STORIES:
        near = [r for r in reached.values() if r.hop > 0]
        _mention_hits(out, index, near, PASSAGES_PER_ENTITY, route.intent, scope)
    evidence = await store.get_relations([r.id for r in crossed])
    by_id = {r.id: r for r in evidence}
    # the full relations (a hop's may lack times and evidence), for the relationship map
    out.relations = [by_id.get(r.id, r) for r in crossed]
    if not pair:
        for reach in reached.values():
            relation = by_id.get(reach.relation.id) if reach.relation is not None else None
            for item in relation.evidence if relation is not None else ():
                out.add(GraphHit(item.chunk_id, reach.score, _how(route.intent, reach), scope))
    for relation in evidence:
        start, end = reached.get(relation.source_id), reached.get(relation.target_id)
        if start is None or end is None or start.hop or end.hop:
            continue
        weight = persona.weight(category_of(relation.type))
        link = Reach(end.entity, 1, weight, start.from_question and end.from_question, relation)
        for item in relation.evidence:
            out.add(GraphHit(item.chunk_id, link.score, _how(route.intent, link), scope))
    if pair:
        _together(out, index, people, persona, route.intent, scope)
    return out


NEIGHBOUR_STORIES = frozenset(("relational", "temporal", "general"))
"""The intents whose hits include the stories of the entities reached (the others read
the stories of what the question names, and the evidence of its relations)."""


def _reads_own(intent: str, reach: Reach) -> bool:
    """Whether the stories of a start entity are hits: a temporal question reads the
    subject's stories of the period; a place, a thing or a person named is read itself."""
    if intent == "temporal":
        return True
    return intent != "relational" and reach.from_question


def _mention_hits(
    out: Traversal,
    index: GraphIndex,
    reaches: Sequence[Reach],
    per_entity: int,
    intent: str,
    scope: str,
) -> None:
    """The passages mentioning each entity (most mentions first) as hits."""
    chunks: dict[str, list[tuple[int, str]]] = {}
    for entity_id, chunk_id, count in index.mentions_of([r.entity.id for r in reaches]):
        chunks.setdefault(entity_id, []).append((-count, chunk_id))
    for reach in reaches:
        for _, chunk_id in sorted(chunks.get(reach.entity.id, []))[:per_entity]:
            out.add(GraphHit(chunk_id, reach.score, _how(intent, reach), scope))


def _together(
    out: Traversal,
    index: GraphIndex,
    people: Sequence[Reach],
    persona: Persona,
    intent: str,
    scope: str,
) -> None:
    """The passages naming two or more of the people a question names, scored as one hop
    by their strongest relation (the persona's ``other`` weight when they have none)."""
    ids = {p.entity.id for p in people}
    named: dict[str, set[str]] = {}
    for entity_id, chunk_id, _ in index.mentions_of(list(ids)):
        named.setdefault(chunk_id, set()).add(entity_id)
    weights = [
        persona.weight(category_of(r.type))
        for r in out.relations
        if r.source_id in ids and r.target_id in ids
    ]
    weight = max(weights, default=persona.weight(OTHER))
    names = " and ".join(p.entity.name for p in people[:2])
    for chunk_id, who in named.items():
        if len(who) >= 2:
            hit = GraphHit(
                chunk_id,
                graph_relevance(1, weight, True),
                f"{intent} traversal ({names} together)",
                scope,
            )
            out.add(hit)


async def linked_hits(
    store: Store,
    scope: str,
    linked_scopes: Sequence[str],
    vector: Vector | None,
    route: IntentRoute,
    limit: int,
) -> list[GraphHit]:
    """The passages of linked scopes closest in meaning to the question (score: their
    similarity, + 0.2 when they name an entity of the question), each marked as shared
    through the link to its scope. ``store`` is the store as the linked scopes may be read:
    by the principal asking, or, for the operator, by one who reads only what the links
    from ``scope`` share (the caller's choice)."""
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
