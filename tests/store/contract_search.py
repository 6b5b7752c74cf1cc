"""Store contract: BM25, fuzzy and vector search."""

from __future__ import annotations

import pytest

from loregraph.models import Vector
from loregraph.store.base import Store
from loregraph.store.queries import TextSearch, VectorSearch

from .builders import Book, blend, unit
from .scenarios import ContractBase, shared_pair


class SearchContract(ContractBase):
    """BM25, fuzzy and vector search."""

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
        assert await store.search_chunks_text("default", "?!", 5) == []
        assert len(await store.search_chunks_text("default", "Alice Bob Carol", 1)) == 1

    async def test_text_search_finds_words_of_scripts_without_spaces(self, store: Store) -> None:
        # Chinese and Japanese write no space between words; Arabic attaches the article
        # ("المدينة", "the city") to the word a user types ("مدينة")
        docs = {
            "zh": "北京是中华人民共和国的首都，也是全国的政治和文化中心。我去过西安",
            "ja": "東京は日本の首都です。猫が好きな人が多い。",
            "ar": "القاهرة هي عاصمة مصر وأكبر مدنها، ويعيش في المدينة ملايين الناس.",
            "en": "The captain wrote to the harbour master about the storm.",
        }
        chunk_ids = {}
        for key, text in docs.items():
            book = Book(f"doc-{key}", title=f"Notes {key}")
            chunk_ids[key] = book.chunk(text, unit(0)).id
            await store.write_document(book.bundle())
        other = Book("doc-elsewhere", scope="elsewhere")
        other.chunk("東京の猫", unit(0))
        await store.write_document(other.bundle())

        async def found(query: str) -> list[str]:
            return [hit.id for hit in await store.search_chunks_text("default", query, 10)]

        for query, key in (
            ("文化中心", "zh"),  # a word inside a clause
            ("政治", "zh"),  # two characters
            ("西安", "zh"),  # two characters that end the chunk
            ("猫", "ja"),  # one character
            ("東京", "ja"),
            ("مدينة", "ar"),  # without the attached article
            ("القاهرة", "ar"),
            ("عاصمة", "ar"),
        ):
            assert await found(query) == [chunk_ids[key]], query
        assert set(await found("首都")) == {chunk_ids["zh"], chunk_ids["ja"]}
        assert (await found("日本の首都"))[0] == chunk_ids["ja"]  # shares the most with ja
        assert set(await found("首都 captain")) == {chunk_ids[k] for k in ("zh", "ja", "en")}
        assert await found("captain") == [chunk_ids["en"]]
        assert await found("ロンドン") == []  # "London": in no document
        hits = await store.search_chunks_text("default", "猫", 10)
        assert hits[0].score > 0
        # deleting a document takes it out of the substring search
        await store.delete_document("doc-ja")
        assert await found("猫") == []
        assert await found("首都") == [chunk_ids["zh"]]

    async def test_chunk_searches_keep_to_the_documents_asked(self, store: Store) -> None:
        """A backend that filters chunk searches by document itself gives only chunks of the
        documents asked, up to the limit, in text, substring and vector searches alike."""
        if not store.filters_documents:
            pytest.skip("this backend's chunk searches are filtered by the visibility view")
        chunk_ids: dict[str, list[str]] = {}
        for n in range(12):
            book = Book(f"doc-{n}", title=f"Ship log {n}")
            chunk_ids[book.doc_id] = [
                book.chunk(f"The captain wrote to the harbour {n} {k}. 東京の猫", unit(n)).id
                for k in range(2)
            ]
            await store.write_document(book.bundle())
        kept = frozenset({"doc-3", "doc-10"})
        allowed = {c for d in kept for c in chunk_ids[d]}
        for query in ("captain harbour", "猫", "captain 猫"):
            hits = await store._search_text(TextSearch("chunk", "default", query, 3, None, kept))
            assert len(hits) == 3 and {h.id for h in hits} <= allowed, query
        near = await store._search_vector(
            VectorSearch("chunk", "default", unit(3), 10, documents=kept)
        )
        assert {h.id for h in near} == allowed and near[0].id in chunk_ids["doc-3"]
        none = frozenset[str]()
        assert (
            await store._search_text(TextSearch("chunk", "default", "captain", 5, None, none)) == []
        )
        assert (
            await store._search_vector(VectorSearch("chunk", "default", unit(3), 5, documents=none))
            == []
        )

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

    # ----------------------------------------------------------------- batched lookups
    async def test_fuzzy_search_many_answers_each_query_like_one_search(self, store: Store) -> None:
        ids = await shared_pair(store)
        queries: list[tuple[str, str | None]] = [
            ("Alice Morgan", None),
            ("Bob Ston", "person"),
            ("Harbour City", "place"),
            ("Harbour City", "person"),
            ("...", None),
            ("Captain Morgan", None),
            ("Anything", "no-such-type"),
        ]
        many = await store.search_entities_fuzzy_many("default", queries, 3)
        assert len(many) == len(queries)
        for (name, kind), hits in zip(queries, many, strict=True):
            one = await store.search_entities_fuzzy("default", name, 3, entity_type=kind)
            assert [h.id for h in hits] == [h.id for h in one]
            assert [h.score for h in hits] == pytest.approx([h.score for h in one])
        assert many[0][0].id == ids["alice"] and many[0][0].score == pytest.approx(1.0)
        assert many[2][0].id == ids["city"]
        assert ids["city"] not in [h.id for h in many[3]]
        assert many[4] == [] and many[6] == []
        assert many[5][0].id == ids["alice"]  # through the alias written by doc-2
        assert await store.search_entities_fuzzy_many("default", [], 3) == []
        assert await store.search_entities_fuzzy_many("elsewhere", queries[:2], 3) == [[], []]

    async def test_vector_search_many_answers_each_query_like_one_search(
        self, store: Store
    ) -> None:
        ids = await shared_pair(store)
        queries: list[tuple[Vector, str | None]] = [
            (unit(3), None),
            (blend(1, 2, 0.8), None),
            (unit(0), "place"),
            (unit(0), "no-such-type"),
            (blend(0, 3, 0.5), "person"),
        ]
        many = await store.search_entities_vector_many("default", queries, 2)
        assert len(many) == len(queries)
        for (vector, kind), hits in zip(queries, many, strict=True):
            one = await store.search_entities_vector("default", vector, 2, entity_type=kind)
            assert [h.id for h in hits] == [h.id for h in one]
            assert [h.score for h in hits] == pytest.approx([h.score for h in one], abs=1e-6)
        assert many[0][0].id == ids["city"] and many[0][0].score == pytest.approx(1.0)
        assert [h.id for h in many[1]] == [ids["bob"], ids["carol"]]
        assert [h.id for h in many[2]] == [ids["city"]]
        assert many[3] == []
        assert many[4][0].id == ids["alice"]
        assert await store.search_entities_vector_many("default", [], 2) == []
        # the batched lookup follows writes like the single one
        book = Book("doc-3")
        c = book.chunk("Zed.", unit(5))
        zed = book.entity("Zed", mentions=[(c, 1)], vector=unit(5))
        await store.write_document(book.bundle())
        after = await store.search_entities_vector_many("default", [(unit(5), "person")], 1)
        assert [h.id for h in after[0]] == [zed.id]
