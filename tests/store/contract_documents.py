"""Store contract: documents, entities, replacing and deleting."""

from __future__ import annotations

import random

import numpy as np
import pytest

from loregraph.ingest.chunk.blanks import BLANKS, blank_runs, rebuild_text
from loregraph.ingest.chunk.chunker import chunk_text
from loregraph.models import (
    Chunk,
    Document,
    DocumentBundle,
    Entity,
    chunk_id,
    content_hash,
    name_key,
)
from loregraph.settings import ChunkSettings
from loregraph.store.base import SCHEMA_VERSION, Store

from .builders import Book, unit
from .scenarios import (
    ContractBase,
    StoreFactory,
    day,
    derived_state,
    document_chunks,
    random_book,
    shared_pair,
)


class DocumentContract(ContractBase):
    """Documents, entities, replacing and deleting."""

    # ----------------------------------------------------------------- basics
    async def test_empty_store(self, store: Store) -> None:
        stats = await store.stats("default")
        assert (stats.documents, stats.entities, stats.relations, stats.chunks) == (0, 0, 0, 0)
        assert stats.schema_version == SCHEMA_VERSION
        assert await store.scopes() == []
        assert await store.graph_version("default") == 0
        assert await store.search_chunks_text("default", "anything", 5) == []
        assert await store.search_entities_vector("default", unit(0), 5) == []
        assert await store.search_entities_fuzzy("default", "anything", 5) == []
        assert (await store.expand("default", ["nope"])).entities == {}

    async def test_a_document_keeps_what_rebuilds_its_text_exactly(self, store: Store) -> None:
        # the blank runs between chunks are kept (ingest/chunk/blanks.py), whatever they hold
        text = "\r\n\tCHAPTER I\n\n" + "Jonathan went east by train. " * 6
        text += "\n \t\u00a0 \r\n\nCHAPTER II\n\nA castle.  \n\n"
        starts = [i for i in range(len(text)) if text.startswith("CHAPTER", i)]
        pieces = chunk_text(text, ChunkSettings(size=80, overlap=10), starts)
        chunks = [
            Chunk(chunk_id("doc-t", c.seq), "doc-t", c.seq, c.start, c.end, c.text, 3, unit(c.seq))
            for c in pieces
        ]
        document = Document(
            "doc-t", "T", content_hash(text), source="t.txt", char_count=len(text),
            metadata={BLANKS: blank_runs(text, chunks), "author": "Ann"},
        )  # fmt: skip
        assert any("\t" in run for run in document.metadata[BLANKS])
        await store.write_document(DocumentBundle(document, chunks, [], [], []))
        stored = await store.read_bundle("doc-t")
        assert stored is not None
        assert stored.document.metadata == document.metadata
        assert rebuild_text(stored.document, stored.chunks) == text

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
        assert [c.text for c in await document_chunks(store, "doc-1")] == [
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

    async def test_mentions_under_several_surfaces_are_summed(self, store: Store) -> None:
        book = Book("doc")
        chunk = book.chunk("Ann, also called Annie, and Ann again.")
        ann = book.entity("Ann", mentions=[(chunk, 2)])
        book.mention(ann, chunk, "Annie", 1)
        await store.write_document(book.bundle())
        [stored] = await store.get_entities([ann.id])
        assert stored.mention_count == 3 and stored.aliases == ["Annie"]
        arrays = await store.graph_arrays("default")
        assert arrays.mention_count.tolist() == [3.0]
        assert (await store.stats("default")).mentions == 2

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
        assert [c.text for c in await document_chunks(store, "doc-1")] == ["Carol alone."]
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
        assert [c.id for c in await document_chunks(store, "doc-1")] == [ids["c1"], ids["c2"]]
        hits = await store.search_chunks_text("default", "met", 5)
        assert [h.id for h in hits] == [ids["c1"]]

    async def test_state_after_deletes_equals_state_built_from_the_rest(
        self, store_factory: StoreFactory
    ) -> None:
        for seed in range(4):
            rng = random.Random(seed)
            books = [random_book(rng, f"doc-{i}") for i in range(5)]
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
            assert await derived_state(full) == await derived_state(fresh), seed
