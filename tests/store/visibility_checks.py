"""The reads the visibility property test compares, one function per kind of read."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest

from loregraph.models import Entity, Relation, name_key
from loregraph.store.base import Store
from loregraph.store.visible import VisibleStore

from .builders import blend
from .visibility_world import PEOPLE, SCOPES, WORDS, World

ALL_ORDERS = ("mentions", "degree", "name")


@dataclass
class Case:
    """One random read: the world, the view acting as the principal, the reference store,
    the readable document ids and the scope asked about."""

    rng: random.Random
    world: World
    view: VisibleStore
    reference: Store
    readable: frozenset[str]
    scope: str

    def entity_ids(self) -> list[str]:
        return sorted(
            {
                w.entity.id
                for b in self.world.bundles
                for w in b.entities
                if b.document.scope == self.scope
            }
        )


def _keys(entity: Entity) -> set[str]:
    return {name_key(entity.name), *(name_key(a) for a in entity.aliases)}


def same_entity(shown: Entity, ref: Entity) -> None:
    """``shown`` tells nothing ``ref`` does not, and counts what ``ref`` counts."""
    assert shown.id == ref.id
    assert _keys(shown) <= _keys(ref), f"{shown.id}: names {_keys(shown)} beyond {_keys(ref)}"
    assert shown.description == ref.description, shown.id
    assert shown.mention_count == ref.mention_count, shown.id
    assert shown.salience == pytest.approx(ref.salience), shown.id
    assert shown.confidence == pytest.approx(ref.confidence), shown.id
    assert shown.type == ref.type, shown.id


def same_relations(shown: list[Relation], ref: list[Relation]) -> None:
    """The same relations, with the same weights, confidences and evidence."""

    def summary(r: Relation) -> tuple[object, ...]:
        evidence = sorted((e.chunk_id, e.sentence, e.start, e.end) for e in r.evidence)
        return (
            r.id,
            r.source_id,
            r.target_id,
            r.type,
            r.weight,
            round(r.confidence, 6),
            tuple(evidence),
        )

    assert sorted(map(summary, shown)) == sorted(map(summary, ref))
    said = {r.id: {r.fact, *(e.sentence for e in r.evidence)} for r in ref}
    for relation in shown:  # a fact only an unreadable document stated never shows
        assert relation.fact in said[relation.id] or (
            not relation.evidence and relation.fact == ""
        ), relation.id


async def documents(case: Case) -> None:
    shown = [d.id for d in await case.view.list_documents(case.scope)]
    assert shown == [d.id for d in await case.reference.list_documents(case.scope)]
    for bundle in case.rng.sample(case.world.bundles, 3):
        doc_id = bundle.document.id
        readable = doc_id in case.readable
        assert (await case.view.get_document(doc_id) is not None) == readable, doc_id
        assert (await case.view.read_bundle(doc_id) is not None) == readable, doc_id
    assert set(await case.view.scopes()) == set(await case.reference.scopes())


async def entities(case: Case) -> None:
    ids = case.entity_ids()
    shown = {e.id: e for e in await case.view.get_entities(ids)}
    ref = {e.id: e for e in await case.reference.get_entities(ids)}
    assert shown.keys() == ref.keys()
    for entity_id, entity in shown.items():
        same_entity(entity, ref[entity_id])


async def relations(case: Case) -> None:
    entity_id = case.rng.choice(case.entity_ids())
    direction = case.rng.choice(("out", "in", "both"))
    shown = await case.view.entity_relations(entity_id, direction=direction)
    ref = await case.reference.entity_relations(entity_id, direction=direction)
    same_relations(shown, ref)
    touching = await case.view.relations_touching([entity_id])
    want = await case.reference.relations_touching([entity_id])
    assert {r.id for r in touching} == {r.id for r in want}


async def chunk_search(case: Case) -> None:
    word = case.rng.choice(WORDS + PEOPLE)
    limit = case.rng.randint(1, 8)
    shown = await case.view.search_chunks_text(case.scope, word, limit)
    ref = await case.reference.search_chunks_text(case.scope, word, limit)
    assert len(shown) == len(ref), word
    assert {hit.id for hit in shown} <= _readable_chunks(case), word
    vector = blend(case.rng.randrange(8), case.rng.randrange(8), 0.6)
    shown = await case.view.search_chunks_vector(case.scope, vector, limit)
    ref = await case.reference.search_chunks_vector(case.scope, vector, limit)
    assert [h.score for h in shown] == pytest.approx([h.score for h in ref], abs=1e-4)
    assert {hit.id for hit in shown} <= _readable_chunks(case)
    found = await case.view.get_chunks([c.id for b in case.world.bundles for c in b.chunks])
    assert {c.id for c in found} == {
        c.id for b in case.world.bundles if b.document.id in case.readable for c in b.chunks
    }


def _readable_chunks(case: Case) -> set[str]:
    return {c.id for b in case.world.bundles if b.document.id in case.readable for c in b.chunks}


async def entity_search(case: Case) -> None:
    person = case.rng.choice(PEOPLE)
    query = case.rng.choice([person, person[:2] + "x", person.lower(), f"{person} of"])
    visible = {e.id: e for e in await case.reference.get_entities(case.entity_ids())}
    for hits in (
        await case.view.search_entities_fuzzy(case.scope, query, 5),
        await case.view.search_entities_text(case.scope, query, 5),
        await case.view.search_entities_vector(case.scope, blend(PEOPLE.index(person), 0, 0.9), 5),
    ):
        assert {hit.id for hit in hits} <= visible.keys(), query
    found = await case.view.find_entities_by_key(case.scope, [name_key(person)])
    ref = await case.reference.find_entities_by_key(case.scope, [name_key(person)])
    assert found.keys() <= ref.keys()
    for key, entity in found.items():
        assert entity.id == ref[key].id


async def listing(case: Case) -> None:
    order = case.rng.choice(ALL_ORDERS)
    shown = await case.view.list_entities(case.scope, order=order, limit=None)
    ref = {e.id: e for e in await case.reference.list_entities(case.scope, order=order, limit=None)}
    assert {e.id for e in shown} == ref.keys()
    for entity in shown:
        same_entity(entity, ref[entity.id])
    if order == "mentions":
        assert [e.mention_count for e in shown] == sorted(
            (e.mention_count for e in shown), reverse=True
        )
    got, want = await case.view.stats(case.scope), await case.reference.stats(case.scope)
    assert (got.documents, got.chunks, got.entities, got.relations, got.mentions) == (
        want.documents,
        want.chunks,
        want.entities,
        want.relations,
        want.mentions,
    )
    assert got.relation_types == want.relation_types and got.entity_types == want.entity_types


async def export(case: Case) -> None:
    shown = {e.id: e for e in [e async for e in case.view.iter_entities(case.scope, batch=3)]}
    ref = {e.id: e for e in [e async for e in case.reference.iter_entities(case.scope)]}
    assert shown.keys() == ref.keys()
    for entity_id, entity in shown.items():
        same_entity(entity, ref[entity_id])
    same_relations(
        [r async for r in case.view.iter_relations(case.scope, batch=3)],
        [r async for r in case.reference.iter_relations(case.scope)],
    )


async def graph(case: Case) -> None:
    shown, ref = (
        await case.view.graph_arrays(case.scope),
        await case.reference.graph_arrays(case.scope),
    )
    assert set(shown.entity_ids) == set(ref.entity_ids)
    assert set(shown.chunk_ids) == set(ref.chunk_ids)

    def edges(a: object) -> Counter[tuple[str, str, float]]:
        ids = a.entity_ids  # type: ignore[attr-defined]
        return Counter(
            (ids[s], ids[d], float(w))
            for s, d, w in zip(a.edge_src, a.edge_dst, a.edge_weight, strict=True)  # type: ignore[attr-defined]
        )

    assert edges(shown) == edges(ref)
    seeds = case.rng.sample(case.entity_ids(), 1)
    got = await case.view.expand(case.scope, seeds, depth=2)
    want = await case.reference.expand(case.scope, seeds, depth=2)
    assert got.hops == want.hops
    assert {r.id for r in got.relations} == {r.id for r in want.relations}


CHECKS: dict[str, Callable[[Case], Awaitable[None]]] = {
    "documents": documents,
    "entities": entities,
    "relations": relations,
    "chunk search": chunk_search,
    "entity search": entity_search,
    "listing": listing,
    "export": export,
    "graph": graph,
}

__all__ = ["CHECKS", "SCOPES", "Case"]
