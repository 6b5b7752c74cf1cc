"""Store contract: relations, graph queries, scopes and the rest."""

from __future__ import annotations

from datetime import datetime

import pytest

from loregraph.errors import NotFoundError
from loregraph.models import CO_OCCURS, Entity
from loregraph.store.base import Store

from .builders import Book, unit
from .scenarios import ContractBase, day, shared_pair, star


class GraphContract(ContractBase):
    """Relations, graph queries, scopes and the rest."""

    # ----------------------------------------------------------------- relations
    async def test_relations_with_evidence(self, store: Store) -> None:
        ids = await shared_pair(store)
        rels = await store.get_relations([ids["travelled"], "missing", ids["met"]])
        assert [r.id for r in rels] == [ids["travelled"], ids["met"]]
        assert rels[0].fact == "Alice sailed to Harbor City."
        assert [ev.chunk_id for ev in rels[0].evidence] == [ids["c2"]]
        assert rels[1].weight == 2
        assert rels[1].fact == "Alice Morgan met Bob Stone."  # the first fact is kept
        out = await store.entity_relations(ids["alice"], direction="out")
        assert out[0].id == ids["met"] and len(out) == 3
        assert all(r.evidence for r in out)
        into = await store.entity_relations(ids["bob"], direction="in")
        assert [r.id for r in into] == [ids["met"]]
        assert await store.entity_relations(ids["bob"], direction="out") == []
        typed = await store.entity_relations(ids["alice"], types=["TRAVELLED_TO"])
        assert [r.id for r in typed] == [ids["travelled"]]
        assert len(await store.entity_relations(ids["alice"], limit=1)) == 1
        among = await store.relations_among([ids["alice"], ids["bob"], ids["city"]])
        assert {r.id for r in among} == {ids["met"], ids["travelled"]}
        assert await store.relations_among([ids["bob"], ids["city"]]) == []

    async def test_temporal_filter_and_invalidation(self, store: Store) -> None:
        book = Book("doc")
        c = book.chunk("Ann worked at Acme from 2020 to 2022, then at Bolt.")
        ann = book.entity("Ann", mentions=[(c, 1)])
        acme = book.entity("Acme", "organization", mentions=[(c, 1)])
        bolt = book.entity("Bolt", "organization", mentions=[(c, 1)])
        old = book.relate(ann, "WORKS_AT", acme, chunk=c, valid_at=day(0), invalid_at=day(700))
        new = book.relate(ann, "WORKS_AT", bolt, chunk=c, valid_at=day(700))
        open_ended = book.relate(ann, "KNOWS", bolt, chunk=c)
        await store.write_document(book.bundle())

        async def at(when: datetime) -> set[str]:
            return {r.id for r in await store.entity_relations(ann.id, at=when)}

        assert await at(day(100)) == {old.id, open_ended.id}
        assert await at(day(700)) == {new.id, open_ended.id}
        assert len(await store.entity_relations(ann.id)) == 3
        version = await store.graph_version("default")
        await store.invalidate_relation(new.id, day(800))
        assert await store.graph_version("default") != version
        assert await at(day(750)) == {new.id, open_ended.id}
        assert await at(day(900)) == {open_ended.id}
        [invalidated] = await store.get_relations([new.id])
        assert invalidated.invalid_at == day(800)
        with pytest.raises(NotFoundError):
            await store.invalidate_relation("missing", day(1))

    # ----------------------------------------------------------------- graph
    async def test_expand_depth_and_caps(self, store: Store) -> None:
        book = await star(store)
        hub, far = Entity.make_id("default", "Hub"), Entity.make_id("default", "Far Point")
        spoke = [Entity.make_id("default", f"Spoke {i}") for i in range(1, 6)]
        one = await store.expand("default", [hub], depth=1)
        assert one.hops == {hub: 0, **{s: 1 for s in spoke}}
        assert len(one.relations) == 5 and set(one.entities) == set(one.hops)
        assert one.relations[0].weight == 5
        two = await store.expand("default", [hub], depth=2)
        assert two.hops[far] == 2 and len(two.relations) == 6
        capped = await store.expand("default", [hub], depth=1, per_node=2)
        assert set(capped.hops) == {hub, spoke[0], spoke[1]}
        assert {r.target_id for r in capped.relations} == {spoke[0], spoke[1]}
        small = await store.expand("default", [hub], depth=2, max_entities=3)
        assert set(small.hops) == {hub, spoke[0], spoke[1]}
        heavy = await store.expand("default", [hub], depth=2, min_weight=3)
        assert set(heavy.hops) == {hub, *spoke[:3], far}
        reverse = await store.expand("default", [far], depth=2, per_node=1)
        assert reverse.hops == {far: 0, spoke[0]: 1, hub: 2}
        typed = await store.expand("default", [hub], types=["OTHER"])
        assert typed.hops == {hub: 0} and typed.relations == []
        assert len(book.relations) == 6

    async def test_graph_arrays(self, store: Store) -> None:
        ids = await shared_pair(store)
        arrays = await store.graph_arrays("default")
        assert len(arrays.entity_ids) == 4
        assert arrays.edge_src.shape == arrays.edge_dst.shape == arrays.edge_weight.shape == (3,)
        edges = {
            (arrays.entity_ids[s], arrays.entity_ids[d]): float(w)
            for s, d, w in zip(arrays.edge_src, arrays.edge_dst, arrays.edge_weight, strict=True)
        }
        assert edges[(ids["alice"], ids["bob"])] == 2.0
        assert len(arrays.chunk_ids) == 3 and len(arrays.chunk_document) == 3
        assert arrays.mention_entity.shape == arrays.mention_chunk.shape == (7,)
        mentions = {
            (arrays.entity_ids[e], arrays.chunk_ids[c]): float(n)
            for e, c, n in zip(
                arrays.mention_entity, arrays.mention_chunk, arrays.mention_count, strict=True
            )
        }
        assert mentions[(ids["alice"], ids["c2"])] == 2.0
        empty = await store.graph_arrays("nowhere")
        assert empty.entity_ids == [] and empty.edge_src.shape == (0,)

    async def test_graph_version_changes_on_writes_only(self, store: Store) -> None:
        assert await store.graph_version("default") == 0
        await shared_pair(store)
        after_write = await store.graph_version("default")
        assert after_write != 0
        await store.search_entities_text("default", "Alice", 5)
        await store.expand("default", ["x"])
        assert await store.graph_version("default") == after_write
        await store.delete_document("doc-2")
        assert await store.graph_version("default") not in (0, after_write)
        assert await store.graph_version("elsewhere") == 0

    # ----------------------------------------------------------------- scopes
    async def test_scopes_are_isolated(self, store: Store) -> None:
        await star(store, scope="a")
        book = Book("only-b", scope="b")
        c = book.chunk("The hub of scope b.", unit(0))
        hub_b = book.entity("Hub", mentions=[(c, 1)], vector=unit(0))
        await store.write_document(book.bundle())
        hub_a = Entity.make_id("a", "Hub")
        assert hub_a != hub_b.id
        assert await store.scopes() == ["a", "b"]
        assert set((await store.find_entities_by_key("b", ["hub"])).keys()) == {"hub"}
        assert (await store.find_entities_by_key("b", ["hub"]))["hub"].id == hub_b.id
        assert (await store.find_entities_by_key("b", ["spoke 1"])) == {}
        for hit in await store.search_entities_text("b", "hub spoke", 10):
            assert hit.id == hub_b.id
        assert [h.id for h in await store.search_entities_fuzzy("b", "Spoke 1", 10)] in (
            [],
            [hub_b.id],
        )
        assert await store.search_chunks_text("b", "spokes", 10) == []
        assert [h.id for h in await store.search_entities_vector("b", unit(0), 10)] == [hub_b.id]
        assert (await store.expand("b", [hub_a])).entities == {}
        assert [e.id for e in await store.list_entities("b")] == [hub_b.id]
        assert (await store.stats("b")).relations == 0
        assert (await store.stats("a")).entities == 7
        arrays_b = await store.graph_arrays("b")
        assert arrays_b.entity_ids == [hub_b.id] and arrays_b.chunk_ids == [c.id]
        assert arrays_b.mention_entity.tolist() == [0] and arrays_b.edge_src.shape == (0,)
        before = await store.graph_version("a")
        await store.delete_document("only-b")
        assert await store.graph_version("a") == before
        assert (await store.stats("a")).entities == 7

    async def test_entity_from_another_scope_is_rejected(self, store: Store) -> None:
        await star(store, scope="a")
        book = Book("doc", scope="b")
        c = book.chunk("Crossing scopes.")
        local = book.entity("Local", mentions=[(c, 1)])
        book.relate(local, "LINKS", Entity.make_id("a", "Hub"), chunk=c)
        with pytest.raises(ValueError):
            await store.write_document(book.bundle())
        assert await store.scopes() == ["a"]

    # ----------------------------------------------------------------- misc
    async def test_stats(self, store: Store) -> None:
        await shared_pair(store)
        stats = await store.stats("default")
        assert (stats.documents, stats.chunks, stats.entities) == (2, 3, 4)
        assert (stats.relations, stats.mentions) == (3, 7)
        assert stats.relation_types == {"MET": 1, "TRAVELLED_TO": 1, CO_OCCURS: 1}
        assert stats.entity_types == {"person": 3, "place": 1}

    async def test_merges_are_listed_newest_first(self, store: Store) -> None:
        ids = await shared_pair(store)
        book = Book("doc-3")
        c = book.chunk("Ali again.")
        alice = book.entity("Alice Morgan", mentions=[(c, 1)], surface="Ali")
        book.merge(alice, "Ali", rule="fuzzy", score=0.8)
        await store.write_document(book.bundle())
        merges = await store.list_merges("default")
        assert [(m.surface, m.rule) for m in merges] == [("Ali", "fuzzy"), ("Alice", "exact")]
        assert merges[0].document_id == "doc-3" and merges[0].score == 0.8
        assert [m.surface for m in await store.list_merges("default", ids["bob"])] == []
        assert len(await store.list_merges("default", ids["alice"])) == 2
        assert await store.list_merges("other") == []

    async def test_iterators_page_through_everything(self, store: Store) -> None:
        ids = await shared_pair(store)
        entities = [e async for e in store.iter_entities("default", batch=3)]
        assert sorted(e.id for e in entities) == sorted(
            ids[k] for k in ("alice", "bob", "carol", "city")
        )
        assert all(e.embedding is not None for e in entities)
        relations = [r async for r in store.iter_relations("default", batch=2)]
        assert len(relations) == 3
        met = next(r for r in relations if r.id == ids["met"])
        assert len(met.evidence) == 2
