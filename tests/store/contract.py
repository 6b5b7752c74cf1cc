"""The backend-agnostic store contract: every backend's test module subclasses
:class:`StoreContract` and provides one fixture, ``store_factory``: an async callable that
returns a new, opened, empty store on each call (and closes them all at teardown).

The assertions are what the rest of loregraph relies on, whatever the backend. Beyond
the docstrings of :class:`~loregraph.store.base.Store`, they pin down:

* ``set_document_status`` and ``invalidate_relation`` raise ``NotFoundError`` for an unknown
  id; ``delete_document`` of an unknown id returns an all-zero report and changes nothing;
* an inconsistent bundle (a reference to an unknown entity or chunk, an entity of another
  scope) raises ``ValueError`` and leaves the store exactly as it was;
* a bundle entity with a new id but an existing name key is written onto the existing
  entity; aliases never repeat the canonical name's key;
* after any sequence of writes and deletes, every derived value (mention counts, aliases,
  descriptions, relation weights and confidences) equals what a store built from the
  remaining documents alone holds.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from loregraph.errors import NotFoundError
from loregraph.models import CO_OCCURS, DocStatus, Entity, name_key
from loregraph.store.base import SCHEMA_VERSION, Store

from .builders import Book, blend, unit

StoreFactory = Callable[[], Awaitable[Store]]


def day(n: int) -> datetime:
    """A fixed point in time ``n`` days after 2020-01-01 (UTC)."""
    return datetime(2020, 1, 1, tzinfo=UTC) + timedelta(days=n)


async def shared_pair(store: Store) -> dict[str, str]:
    """Two documents sharing an entity and a relation; returns the ids of interest."""
    one = Book("doc-1", title="Harbour logs")
    c1 = one.chunk("Alice Morgan met Bob Stone at the harbour.", unit(0))
    c2 = one.chunk("Alice sailed to Harbor City with Carol Reyes.", unit(1))
    alice = one.entity("Alice Morgan", description="A sailor.", mentions=[(c1, 1)], vector=unit(0))
    one.mention(alice, c2, "Alice", 2)
    bob = one.entity("Bob Stone", mentions=[(c1, 1)], vector=unit(1))
    carol = one.entity("Carol Reyes", mentions=[(c2, 1)], vector=unit(2))
    city = one.entity("Harbor City", "place", mentions=[(c2, 1)], vector=unit(3))
    one.relate(alice, "MET", bob, chunk=c1, fact="Alice Morgan met Bob Stone.")
    one.relate(alice, "TRAVELLED_TO", city, chunk=c2, fact="Alice sailed to Harbor City.")
    one.relate(alice, CO_OCCURS, carol, chunk=c2)
    one.merge(alice, "Alice")
    two = Book("doc-2", title="Letters")
    d1 = two.chunk("Captain Morgan wrote to Bob Stone from the ship.", unit(4))
    alice2 = two.entity(
        "Alice Morgan",
        description="A ship captain who writes letters to her friends.",
        mentions=[(d1, 1)],
        surface="Captain Morgan",
    )
    bob2 = two.entity("Bob Stone", mentions=[(d1, 1)])
    two.relate(alice2, "MET", bob2, chunk=d1, fact="They met again.")
    await store.write_document(one.bundle())
    await store.write_document(two.bundle())
    return {
        "alice": alice.id,
        "bob": bob.id,
        "carol": carol.id,
        "city": city.id,
        "met": one.relations[0].id,
        "travelled": one.relations[1].id,
        "co": one.relations[2].id,
        "c1": c1.id,
        "c2": c2.id,
        "d1": d1.id,
    }


async def star(store: Store, scope: str = "default") -> Book:
    """A hub with five spokes of weights 5..1 and a second ring behind spoke 1."""
    book = Book("star", scope=scope)
    chunk = book.chunk("The hub and its spokes.", unit(0))
    hub = book.entity("Hub", mentions=[(chunk, 1)])
    for i in range(1, 6):
        spoke = book.entity(f"Spoke {i}", mentions=[(chunk, 1)])
        book.relate(hub, "LINKS", spoke, chunk=chunk, evidence=6 - i)
    far = book.entity("Far Point", mentions=[(chunk, 1)])
    book.relate(Entity.make_id(scope, "Spoke 1"), "LINKS", far, chunk=chunk, evidence=3)
    await store.write_document(book.bundle())
    return book


class StoreContract:
    """Contract tests; subclasses provide the ``store_factory`` fixture."""

    @pytest.fixture
    async def store(self, store_factory: StoreFactory) -> Store:
        return await store_factory()

    # ----------------------------------------------------------------- basics
    async def test_empty_store(self, store: Store) -> None:
        stats = await store.stats("default")
        assert (stats.documents, stats.entities, stats.relations, stats.chunks) == (0, 0, 0, 0)
        assert stats.schema_version == SCHEMA_VERSION
        assert await store.schema_version() == SCHEMA_VERSION
        assert await store.scopes() == []
        assert await store.graph_version("default") == 0
        assert await store.search_chunks_text("default", "anything", 5) == []
        assert await store.search_entities_vector("default", unit(0), 5) == []
        assert await store.search_entities_fuzzy("default", "anything", 5) == []
        assert (await store.expand("default", ["nope"])).entities == {}

    async def test_document_roundtrip(self, store: Store) -> None:
        book = Book("doc-1", title="Ship's log", source="logs/ship.txt")
        book.chunk("First chunk.")
        book.chunk("Second chunk.")
        bundle = book.bundle()
        bundle.document.metadata = {"author": "Ann", "tags": ["a", "b"]}
        bundle.document.valid_at = day(3)
        await store.write_document(bundle)
        doc = await store.get_document("doc-1")
        assert doc is not None
        assert (doc.title, doc.source, doc.metadata) == (
            "Ship's log",
            "logs/ship.txt",
            {
                "author": "Ann",
                "tags": ["a", "b"],
            },
        )
        assert doc.valid_at == day(3)
        assert doc.created_at == bundle.document.created_at
        assert [c.text for c in await store.document_chunks("doc-1")] == [
            "First chunk.",
            "Second chunk.",
        ]
        got = await store.get_chunks(["doc-1#c1", "missing", "doc-1#c0"])
        assert [c.id for c in got] == ["doc-1#c1", "doc-1#c0"]
        assert got[0].embedding is None and got[0].start == len("First chunk.") + 1
        found = await store.find_document("default", content_hash=bundle.document.content_hash)
        assert found is not None and found.id == "doc-1"
        found = await store.find_document("default", source="logs/ship.txt")
        assert found is not None and found.id == "doc-1"
        assert await store.find_document("default", source="other.txt") is None
        assert await store.find_document("other", source="logs/ship.txt") is None
        await store.set_document_status("doc-1", DocStatus.DONE)
        doc = await store.get_document("doc-1")
        assert doc is not None and doc.status == DocStatus.DONE
        with pytest.raises(NotFoundError):
            await store.set_document_status("missing", DocStatus.DONE)
        assert await store.scopes() == ["default"]

    async def test_list_documents_oldest_first(self, store: Store) -> None:
        for i in (2, 0, 1):
            book = Book(f"doc-{i}", created_at=day(i))
            book.chunk(f"text {i}")
            await store.write_document(book.bundle())
        docs = await store.list_documents("default")
        assert [d.id for d in docs] == ["doc-0", "doc-1", "doc-2"]
        page = await store.list_documents("default", limit=1, offset=1)
        assert [d.id for d in page] == ["doc-1"]

    # ----------------------------------------------------------------- entities
    async def test_entity_lookup_by_name_and_alias(self, store: Store) -> None:
        ids = await shared_pair(store)
        found = await store.find_entities_by_key(
            "default", [name_key("alice morgan"), "captain morgan", "alice", "nobody"]
        )
        assert {key: e.id for key, e in found.items()} == {
            "alice morgan": ids["alice"],
            "captain morgan": ids["alice"],
            "alice": ids["alice"],
        }
        alice = found["alice"]
        assert alice.name == "Alice Morgan"
        assert sorted(alice.aliases) == ["Alice", "Captain Morgan"]
        assert alice.mention_count == 1 + 2 + 1
        assert alice.description == "A ship captain who writes letters to her friends."
        assert alice.embedding is None
        [bob] = await store.get_entities([ids["bob"]])
        assert bob.aliases == [] and bob.mention_count == 2

    async def test_canonical_name_wins_over_alias(self, store: Store) -> None:
        book = Book("doc")
        chunk = book.chunk("Mina and Wilhelmina Hale.")
        mina = book.entity("Mina", mentions=[(chunk, 1)])
        hale = book.entity("Wilhelmina Hale", mentions=[(chunk, 3)])
        book.mention(hale, chunk, "Mina", 1)
        other = book.entity("Mina Cole", mentions=[(chunk, 1)])
        book.mention(other, chunk, "Cole", 1)
        quiet = book.entity("Cole Quiet")
        book.mention(quiet, chunk, "Cole", 1)
        await store.write_document(book.bundle())
        found = await store.find_entities_by_key("default", ["mina", "cole"])
        assert found["mina"].id == mina.id
        assert found["cole"].id == other.id  # the most-mentioned alias owner

    async def test_entity_upsert_keeps_identity(self, store: Store) -> None:
        one = Book("doc-1")
        c = one.chunk("Alice.")
        alice = one.entity("Alice", "person", salience=2.0, mentions=[(c, 1)], vector=unit(0))
        await store.write_document(one.bundle())
        [before] = await store.get_entities([alice.id])
        two = Book("doc-2")
        d = two.chunk("ALICE!")
        again = two.entity(
            "ALICE", "organization", salience=5.0, entity_id=alice.id, mentions=[(d, 1)]
        )
        assert again.id == alice.id
        await store.write_document(two.bundle())
        [after] = await store.get_entities([alice.id])
        assert (after.name, after.type, after.created_at) == ("Alice", "person", before.created_at)
        assert after.salience == 5.0
        assert after.mention_count == 2
        embeddings = await store.entity_embeddings([alice.id, "missing"])
        assert list(embeddings) == [alice.id]
        np.testing.assert_allclose(embeddings[alice.id], unit(0))

    async def test_new_id_with_known_name_maps_onto_existing_entity(self, store: Store) -> None:
        one = Book("doc-1")
        c = one.chunk("Alice and Bob.")
        alice = one.entity("Alice", mentions=[(c, 1)])
        one.entity("Bob", mentions=[(c, 1)])
        await store.write_document(one.bundle())
        two = Book("doc-2")
        d = two.chunk("The Alice met Bob.")
        stray = two.entity(
            "The Alice", entity_id="ent_stray", mentions=[(d, 1)], surface="Miss Alice"
        )
        bob = two.entity("Bob", mentions=[(d, 1)])
        two.relate(stray, "MET", bob, chunk=d)
        await store.write_document(two.bundle())
        assert await store.get_entities(["ent_stray"]) == []
        [merged] = await store.get_entities([alice.id])
        assert merged.name == "Alice"
        assert merged.mention_count == 2 and merged.aliases == ["Miss Alice"]
        [relation] = await store.entity_relations(alice.id)
        assert (relation.source_id, relation.target_id) == (alice.id, bob.id)
        assert (await store.stats("default")).entities == 2

    async def test_list_entities_orders_and_filters(self, store: Store) -> None:
        await shared_pair(store)
        by_mentions = await store.list_entities("default")
        assert by_mentions[0].name == "Alice Morgan"
        by_name = await store.list_entities("default", order="name")
        assert [e.name for e in by_name] == sorted(e.name for e in by_name)
        by_degree = await store.list_entities("default", order="degree", limit=1)
        assert [e.name for e in by_degree] == ["Alice Morgan"]
        places = await store.list_entities("default", entity_type="place")
        assert [e.name for e in places] == ["Harbor City"]
        page = await store.list_entities("default", order="name", limit=2, offset=1)
        assert [e.name for e in page] == [e.name for e in by_name[1:3]]

    async def test_chunks_mentioning(self, store: Store) -> None:
        ids = await shared_pair(store)
        rows = await store.chunks_mentioning([ids["alice"]])
        assert rows[0] == (ids["alice"], ids["c2"], 2)
        assert sorted(rows[1:]) == sorted(
            [(ids["alice"], ids["c1"], 1), (ids["alice"], ids["d1"], 1)]
        )
        assert len(await store.chunks_mentioning([ids["alice"], ids["bob"]], limit=2)) == 2

    # ----------------------------------------------------------------- replace / delete
    async def test_rewrite_replaces_derived_data(self, store: Store) -> None:
        one = Book("doc-1")
        c = one.chunk("Alice met Bob.")
        alice = one.entity("Alice", mentions=[(c, 1)])
        bob = one.entity("Bob", mentions=[(c, 1)])
        one.relate(alice, "MET", bob, chunk=c)
        await store.write_document(one.bundle())
        version = await store.graph_version("default")
        again = Book("doc-1")
        c2 = again.chunk("Carol alone.")
        carol = again.entity("Carol", mentions=[(c2, 2)])
        await store.write_document(again.bundle())
        assert await store.graph_version("default") != version
        assert await store.get_entities([alice.id, bob.id]) == []
        assert [e.name for e in await store.list_entities("default")] == ["Carol"]
        assert [c.text for c in await store.document_chunks("doc-1")] == ["Carol alone."]
        stats = await store.stats("default")
        assert (stats.documents, stats.chunks, stats.relations, stats.mentions) == (1, 1, 0, 1)
        assert (await store.get_entities([carol.id]))[0].mention_count == 2
        assert await store.search_chunks_text("default", "Alice", 5) == []

    async def test_delete_removes_exactly_what_only_it_supported(self, store: Store) -> None:
        ids = await shared_pair(store)
        [met_before] = await store.get_relations([ids["met"]])
        assert met_before.weight == 2
        report = await store.delete_document("doc-1")
        assert (report.document_id, report.chunks, report.mentions) == ("doc-1", 2, 5)
        assert report.entities_removed == 2  # Carol Reyes, Harbor City
        assert report.relations_removed == 2  # TRAVELLED_TO, CO_OCCURS_WITH
        assert report.relations_weakened == 1  # MET survives with doc-2's evidence
        assert await store.get_document("doc-1") is None
        assert await store.get_entities([ids["carol"], ids["city"]]) == []
        assert await store.get_relations([ids["travelled"], ids["co"]]) == []
        alice, bob = await store.get_entities([ids["alice"], ids["bob"]])
        assert alice.mention_count == 1 and bob.mention_count == 1
        assert alice.aliases == ["Captain Morgan"]
        assert alice.description == "A ship captain who writes letters to her friends."
        [met] = await store.get_relations([ids["met"]])
        assert met.weight == 1
        assert [ev.chunk_id for ev in met.evidence] == [ids["d1"]]
        assert await store.list_merges("default") == []
        assert await store.find_entities_by_key("default", ["alice"]) == {}
        assert await store.search_chunks_text("default", "harbour", 5) == []
        assert await store.get_chunks([ids["c1"]]) == []

    async def test_delete_other_document_recomputes_description(self, store: Store) -> None:
        ids = await shared_pair(store)
        await store.delete_document("doc-2")
        [alice] = await store.get_entities([ids["alice"]])
        assert alice.description == "A sailor."
        assert alice.aliases == ["Alice"]
        assert alice.mention_count == 3

    async def test_deleting_every_document_leaves_nothing(self, store: Store) -> None:
        await shared_pair(store)
        await store.delete_document("doc-2")
        await store.delete_document("doc-1")
        stats = await store.stats("default")
        assert (stats.documents, stats.chunks, stats.entities) == (0, 0, 0)
        assert (stats.relations, stats.mentions) == (0, 0)
        assert stats.entity_types == {} and stats.relation_types == {}
        assert [e async for e in store.iter_entities("default")] == []
        assert [r async for r in store.iter_relations("default")] == []
        assert await store.scopes() == []
        assert await store.search_entities_text("default", "Alice", 5) == []
        assert await store.search_relations_text("default", "met", 5) == []
        assert await store.search_entities_fuzzy("default", "Alice Morgan", 5) == []
        assert await store.search_entities_vector("default", unit(0), 5) == []
        assert await store.search_chunks_vector("default", unit(0), 5) == []

    async def test_delete_unknown_document_is_a_no_op(self, store: Store) -> None:
        await shared_pair(store)
        version = await store.graph_version("default")
        report = await store.delete_document("missing")
        assert (report.chunks, report.entities_removed, report.relations_removed) == (0, 0, 0)
        assert await store.graph_version("default") == version

    async def test_failed_write_leaves_store_unchanged(self, store: Store) -> None:
        ids = await shared_pair(store)
        before = await store.stats("default")
        version = await store.graph_version("default")
        bad = Book("doc-3")
        chunk = bad.chunk("Dora knows a ghost.")
        dora = bad.entity("Dora", mentions=[(chunk, 1)])
        bad.relate("ent_ghost", "KNOWS", dora, chunk=chunk)
        with pytest.raises(ValueError):
            await store.write_document(bad.bundle())
        assert await store.get_document("doc-3") is None
        assert await store.stats("default") == before
        assert await store.graph_version("default") == version
        assert await store.find_entities_by_key("default", ["dora"]) == {}
        # a failed rewrite of an existing document keeps the old version intact
        rewrite = Book("doc-1")
        chunk = rewrite.chunk("Nothing but trouble.")
        rewrite.entity("Eve", mentions=[(chunk, 1)])
        rewrite.relate("ent_ghost", "HAUNTS", Entity.make_id("default", "Eve"), chunk=chunk)
        with pytest.raises(ValueError):
            await store.write_document(rewrite.bundle())
        assert await store.stats("default") == before
        assert [c.id for c in await store.document_chunks("doc-1")] == [ids["c1"], ids["c2"]]
        hits = await store.search_chunks_text("default", "met", 5)
        assert [h.id for h in hits] == [ids["c1"]]

    async def test_state_after_deletes_equals_state_built_from_the_rest(
        self, store_factory: StoreFactory
    ) -> None:
        for seed in range(4):
            rng = random.Random(seed)
            books = [_random_book(rng, f"doc-{i}") for i in range(5)]
            full = await store_factory()
            for book in books:
                await full.write_document(book.bundle())
            gone = rng.sample(range(5), 3)
            for i in gone:
                await full.delete_document(f"doc-{i}")
            fresh = await store_factory()
            for i, book in enumerate(books):
                if i not in gone:
                    await fresh.write_document(book.bundle())
            assert await _derived_state(full) == await _derived_state(fresh), seed

    # ----------------------------------------------------------------- search
    async def test_bm25_ranks_the_obvious_hit_first(self, store: Store) -> None:
        ids = await shared_pair(store)
        chunks = await store.search_chunks_text("default", "captain wrote ship", 5)
        assert chunks[0].id == ids["d1"] and chunks[0].score > 0
        titled = await store.search_chunks_text("default", "letters", 5)
        assert titled[0].id == ids["d1"]  # the document title is indexed with its chunks
        entities = await store.search_entities_text("default", "Harbor City", 5)
        assert entities[0].id == ids["city"]
        by_description = await store.search_entities_text("default", "friends", 5)
        assert [s.id for s in by_description] == [ids["alice"]]
        relations = await store.search_relations_text("default", "sailed harbor", 5)
        assert relations[0].id == ids["travelled"]
        by_type = await store.search_relations_text("default", "travelled", 5)
        assert by_type[0].id == ids["travelled"]
        assert await store.search_chunks_text("default", "?!", 5) == []
        assert len(await store.search_chunks_text("default", "Alice Bob Carol", 1)) == 1

    async def test_fuzzy_search(self, store: Store) -> None:
        book = Book("doc")
        chunk = book.chunk("Van Helsing, Vance Hale and Al met Dr. Seward.")
        helsing = book.entity("Van Helsing", mentions=[(chunk, 1)])
        book.entity("Vance Hale", mentions=[(chunk, 1)])
        al = book.entity("Al", mentions=[(chunk, 1)])
        seward = book.entity("John Seward", "doctor", mentions=[(chunk, 1)])
        book.mention(seward, chunk, "Dr. Seward")
        await store.write_document(book.bundle())
        hits = await store.search_entities_fuzzy("default", "Van Helsin", 3)
        assert hits[0].id == helsing.id and 0.5 < hits[0].score < 1.0
        exact = await store.search_entities_fuzzy("default", "van helsing", 1)
        assert exact[0].id == helsing.id and exact[0].score == pytest.approx(1.0)
        by_alias = await store.search_entities_fuzzy("default", "Dr Seward", 1)
        assert by_alias[0].id == seward.id and by_alias[0].score == pytest.approx(1.0)
        short = await store.search_entities_fuzzy("default", "Al", 1)
        assert short[0].id == al.id
        typed = await store.search_entities_fuzzy("default", "Seward", 5, entity_type="person")
        assert seward.id not in [s.id for s in typed]
        assert all(0 < s.score <= 1 for s in hits)
        assert await store.search_entities_fuzzy("default", "...", 5) == []
        # later writes and deletes are visible at once
        more = Book("doc-2")
        c2 = more.chunk("Abraham van Helsing arrived.")
        more.mention(helsing, c2, "Abraham van Helsing")
        newcomer = more.entity("Quincey Morris", mentions=[(c2, 1)])
        await store.write_document(more.bundle())
        found = await store.search_entities_fuzzy("default", "Abraham van Helsing", 1)
        assert found[0].id == helsing.id and found[0].score == pytest.approx(1.0)
        assert (await store.search_entities_fuzzy("default", "Quincy Moris", 1))[
            0
        ].id == newcomer.id
        await store.delete_document("doc-2")
        gone = await store.search_entities_fuzzy("default", "Quincey Morris", 5)
        assert newcomer.id not in [s.id for s in gone]
        after = await store.search_entities_fuzzy("default", "Abraham van Helsing", 1)
        assert after[0].score < 1.0

    async def test_vector_search(self, store: Store) -> None:
        ids = await shared_pair(store)
        hits = await store.search_entities_vector("default", unit(3), 2)
        assert hits[0].id == ids["city"] and hits[0].score == pytest.approx(1.0)
        assert len(hits) == 2 and hits[1].score < hits[0].score
        near = await store.search_entities_vector("default", blend(1, 2, 0.8), 2)
        assert [s.id for s in near] == [ids["bob"], ids["carol"]]
        typed = await store.search_entities_vector("default", unit(0), 5, entity_type="place")
        assert [s.id for s in typed] == [ids["city"]]
        chunks = await store.search_chunks_vector("default", unit(4), 1)
        assert [s.id for s in chunks] == [ids["d1"]]
        # the index follows writes and deletes
        book = Book("doc-3")
        c = book.chunk("Zed.", unit(5))
        zed = book.entity("Zed", mentions=[(c, 1)], vector=unit(5))
        await store.write_document(book.bundle())
        assert (await store.search_entities_vector("default", unit(5), 1))[0].id == zed.id
        assert (await store.search_chunks_vector("default", unit(5), 1))[0].id == c.id
        await store.delete_document("doc-1")
        left = await store.search_entities_vector("default", unit(3), 10)
        assert ids["city"] not in [s.id for s in left]
        left_chunks = await store.search_chunks_vector("default", unit(0), 10)
        assert ids["c1"] not in [s.id for s in left_chunks]

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
        assert (await store.graph_arrays("b")).entity_ids == [hub_b.id]
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
    async def test_llm_cache_roundtrip(self, store: Store) -> None:
        assert await store.cache_get("k1") is None
        await store.cache_put("k1", "model-a", '{"answer": 1}')
        await store.cache_put("k2", "model-a", "two")
        await store.cache_put("k1", "model-b", "replaced")
        assert await store.cache_get("k1") == "replaced"
        assert await store.cache_get("k2") == "two"
        assert (await store.stats("default")).cached_responses == 2

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


def _random_book(rng: random.Random, doc_id: str) -> Book:
    """A random small document over a shared pool of names, surfaces and relation types."""
    names = ["Ada", "Ben", "Cy", "Dee", "Eli", "Fay"]
    book = Book(doc_id)
    chunks = [book.chunk(f"{doc_id} part {i} " + " ".join(rng.sample(names, 3))) for i in range(3)]
    entities: list[Entity] = []
    for name in rng.sample(names, rng.randint(2, 5)):
        description = rng.choice(["", f"{name} as {doc_id} says", "short"])
        entity = book.entity(name, rng.choice(["person", "place"]), description=description)
        entities.append(entity)
        for chunk in rng.sample(chunks, rng.randint(0, 2)):
            surface = rng.choice([name, name.upper(), f"{name} {doc_id[-1]}", f"Old {name}"])
            book.mention(entity, chunk, surface, rng.randint(1, 3))
    for _ in range(rng.randint(1, 6)):
        source, target = rng.sample(entities, 2)
        book.relate(
            source,
            rng.choice(["KNOWS", "VISITS"]),
            target,
            chunk=rng.choice([*chunks, None]),
            confidence=rng.choice([0.5, 0.9]),
            evidence=rng.randint(1, 2),
        )
    return book


async def _derived_state(store: Store) -> tuple[object, ...]:
    """Everything deletion must recompute exactly, keyed by ids."""
    entities = sorted(
        (e.id, e.mention_count, sorted(e.aliases), e.description)
        for e in [e async for e in store.iter_entities("default")]
    )
    relations = sorted(
        (r.id, r.source_id, r.target_id, r.weight, r.confidence, len(r.evidence))
        for r in [r async for r in store.iter_relations("default")]
    )
    stats = await store.stats("default")
    found = await store.find_entities_by_key("default", ["ada", "old ada", "ben", "old fay"])
    keys = sorted((key, e.id) for key, e in found.items())
    return entities, relations, stats.mentions, stats.chunks, keys
