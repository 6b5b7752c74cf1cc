"""Store contract: reading documents back as bundles, and copying a store to and from this
backend (:func:`loregraph.copy.copy_store`), against SQLite on the other side.

A copy must hold exactly what the source holds (ids, texts, embeddings, derived counts,
descriptions, aliases, weights, temporal fields, merges), and answer the same questions as a
store of the same backend built by ingesting the same corpus.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from loregraph.access import ApiKey, Grant, Role, ScopeLink
from loregraph.copy import copy_store
from loregraph.embed.hashing import HashingEmbedder
from loregraph.graph import AsyncGraph
from loregraph.models import DocStatus
from loregraph.settings import Settings
from loregraph.settings.resilience import NO_LIMITS
from loregraph.store.base import Store
from loregraph.store.changes import JOIN, SPLIT, AuditEntry, Decision
from loregraph.store.sqlite import SqliteStore

from .builders import Book, unit
from .scenarios import ContractBase, StoreFactory, day, document_chunks, shared_pair

QUESTIONS = (
    "Who did Lothair II marry?",
    "Where was Nicki Minaj born?",
    "Who was the wife of Emperor Lothair I?",
    "Which film did Chaturbhuj Doshi direct?",
)
RECORDS = [
    ("Lothair II", "Lothair II was a king of Lotharingia. He was the son of Emperor Lothair I "
     "and Ermengarde of Tours. Lothair II married Teutberga in 855."),
    ("Ermengarde of Tours", "Ermengarde of Tours was the wife of Emperor Lothair I. She died "
     "on 20 March 851 in Erstein."),
    ("Teutberga", "Teutberga was a queen of Lotharingia by marriage to Lothair II. She was a "
     "daughter of Boso the Elder."),
    ("Phoolwari", "Phoolwari is a 1946 Indian Hindi-language film directed by Chaturbhuj "
     "Doshi."),
    ("Nicki Minaj", "Nicki Minaj is a rapper and singer born in Port of Spain, Trinidad and "
     "Tobago. She moved to Queens, New York City, at age five."),
]  # fmt: skip


async def rich_store(store: Store) -> None:
    """Two scopes exercising every field a copy must carry over."""
    ids = await shared_pair(store, letters_status=DocStatus.FAILED)
    await store.invalidate_relation(ids["travelled"], day(9), by="doc-3")
    timed = Book("doc-3", title="Timeline")
    chunk = timed.chunk("Bob Stone owned the Lighthouse until 1901.", unit(5))
    light = timed.entity("Lighthouse", "place", description="A tower.", mentions=[(chunk, 2)])
    timed.mention(ids["bob"], chunk, "Mr Stone")
    timed.relate(ids["bob"], "OWNED", light, chunk=chunk, valid_at=day(1), invalid_at=day(30))
    timed.relate(ids["alice"], "KNOWS", light, confidence=0.4)  # support without a chunk
    bundle = timed.bundle()
    bundle.document.metadata = {"tags": ["x"], "n": 2}
    bundle.document.valid_at = day(2)
    await store.write_document(bundle)
    # an entity listed by a deleted document, still mentioned by another one
    gone = Book("doc-4")
    gone_chunk = gone.chunk("Dana Cole arrived.")
    dana = gone.entity("Dana Cole", description="A visitor.", mentions=[(gone_chunk, 1)])
    await store.write_document(gone.bundle())
    keeper = Book("doc-5")
    keeper.mention(dana, keeper.chunk("Everyone greeted Dana."), "Dana")
    await store.write_document(keeper.bundle())
    await store.delete_document("doc-4")
    for i in range(2):
        other = Book(f"other-{i}", scope="other")
        part = other.chunk(f"Eve Hart and Finn Lowe, part {i}.", unit(6 + i))
        eve = other.entity("Eve Hart", description=f"Version {i}.", mentions=[(part, 1)])
        finn = other.entity("Finn Lowe", "place", mentions=[(part, i + 1)], surface=f"Finn {i}")
        other.relate(eve, "VISITS", finn, chunk=part, confidence=0.5 + i / 4)
        await store.write_document(other.bundle())
    await add_records(store, ids)


async def add_records(store: Store, ids: dict[str, str]) -> None:
    """What belongs to no document: merge decisions and audit entries in both scopes, and
    two API keys (one revoked)."""
    await store.add_decision(
        Decision(SPLIT, "mrg_1", ids["alice"], "Captain Morgan", principal="ann", created_at=day(3))
    )
    await store.add_decision(
        Decision(JOIN, "mrg_2", ids["bob"], "B. Stone", rule="manual", score=0.8, created_at=day(4))
    )
    await store.add_decision(Decision(SPLIT, "mrg_3", "ent_x", "Finn 0", scope="other"))
    for n, action in enumerate(("merge", "unmerge", "rename")):
        entry = AuditEntry(action, f"subject {n}", f"detail {n}", "ann", at=day(10 + n))
        await store.add_audit(entry)
    await store.add_audit(AuditEntry("forget", "other-0", scope="other", at=day(20)))
    await store.add_api_key(ApiKey("ci", "a" * 64, {"default": Role.READER}, day(1)))
    await store.add_api_key(ApiKey("old", "b" * 64, {"other": Role.ADMIN}, day(1), day(5)))
    await store.add_grant(Grant("ann", "default", Role.OWNER))
    await store.add_grant(Grant("bob", "other", Role.READER))
    await store.add_grant(Grant("ops", "*", Role.ADMIN))
    await store.add_scope_link(ScopeLink("default", "other", "selective", ("doc-3",)))


async def snapshot(store: Store, scope: str, *, chunk_vectors: bool = True) -> dict[str, Any]:
    """Everything a scope holds, comparable across backends (system times of writes aside).

    Chunks are read with ``read_bundle``, the only way to get their embeddings back
    (compared when ``chunk_vectors``).
    """
    documents = await store.list_documents(scope, limit=None)
    chunks = {}
    for doc in documents:
        vector = _vec if chunk_vectors else _no_vector
        chunks[doc.id] = [
            (c.id, c.seq, c.start, c.end, c.text, c.token_count, vector(c.embedding))
            for c in await document_chunks(store, doc.id)
        ]
    entities = sorted(
        (
            e.id, e.name, e.type, e.description, sorted(e.aliases), e.mention_count,
            e.salience, e.confidence, e.created_at, _vec(e.embedding),
        )
        for e in [e async for e in store.iter_entities(scope)]
    )  # fmt: skip
    relations = sorted(
        (
            r.id, r.source_id, r.target_id, r.type, r.fact, r.weight, r.confidence,
            r.valid_at, r.invalid_at, r.created_at, r.expired_at, r.invalidated_by,
            sorted((e.chunk_id, e.sentence, e.start, e.end) for e in r.evidence),
        )
        for r in [r async for r in store.iter_relations(scope)]
    )  # fmt: skip
    merges = sorted(
        (m.entity_id, m.surface, m.rule, m.score, m.document_id, m.created_at)
        for m in await store.list_merges(scope)
    )
    stats = await store.stats(scope)
    decisions = sorted(
        (d.kind, d.merge_id, d.entity_id, d.surface, d.rule, d.score, d.document_id,
         d.principal, d.created_at)
        for d in await store.list_decisions(scope)
    )  # fmt: skip
    audit = [entry.to_dict() for entry in await store.list_audit(scope)]
    return {
        "decisions": decisions,
        "audit": audit,
        "documents": [
            (d.id, d.title, d.source, d.content_hash, d.kind, d.visibility, d.owner, d.metadata,
             d.status, d.char_count, d.created_at, d.valid_at)
            for d in documents
        ],
        "chunks": chunks,
        "entities": entities,
        "relations": relations,
        "merges": merges,
        "counts": (stats.documents, stats.chunks, stats.entities, stats.relations, stats.mentions),
        "types": (stats.entity_types, stats.relation_types),
    }  # fmt: skip


async def readable(store: Store) -> bool:
    """Whether the backend implements :meth:`Store.read_bundle` (copying from it)."""
    try:
        await store.read_bundle("")
    except NotImplementedError:
        return False
    return True


async def require_read_bundle(store: Store) -> None:
    """Skip a test that copies from this backend when it cannot read bundles back."""
    if not await readable(store):
        pytest.skip(f"{type(store).__name__} does not implement read_bundle: cannot copy from it")


def _vec(vector: Any) -> tuple[float, ...] | None:
    return None if vector is None else tuple(np.round(np.asarray(vector, dtype=float), 6))


def _no_vector(vector: Any) -> None:
    return None


async def answers(store: Store) -> list[tuple[list[str], list[str]]]:
    """Ranked document ids and passage ids for each of :data:`QUESTIONS` (with no stage time
    limits: a busy machine must not cut one store's expansion and not the other's)."""
    graph = AsyncGraph(store, embedder=HashingEmbedder(), settings=Settings(resilience=NO_LIMITS))
    found = []
    for question in QUESTIONS:
        result = await graph.retrieve(question)
        found.append(
            ([d.document_id for d in result.documents], [p.chunk_id for p in result.passages])
        )
    return found


async def ingest_records(store: Store) -> None:
    """The five-record corpus, ingested offline (spaCy, hashing embedder)."""
    graph = AsyncGraph(store, embedder=HashingEmbedder())
    for title, text in RECORDS:
        report = await graph.ingest_text(text, title=title, source=f"record:{title}")
        assert report.ok


class CopyContract(ContractBase):
    """``read_bundle`` and copying to and from this backend."""

    @pytest.fixture
    async def sqlite_store(self, tmp_path: Path) -> Any:
        store = SqliteStore(tmp_path / "other-side.db")
        async with store:
            yield store

    async def test_read_bundle_of_unknown_document_is_none(self, store: Store) -> None:
        await require_read_bundle(store)
        assert await store.read_bundle("nope") is None

    async def test_read_bundle_gives_back_what_was_written(self, store: Store) -> None:
        await require_read_bundle(store)
        book = Book("doc-1", title="Log")
        chunk = book.chunk("Alice Morgan met Bob.", unit(0))
        alice = book.entity("Alice Morgan", description="A sailor.", mentions=[(chunk, 2)],
                            surface="Alice", vector=unit(1), salience=0.5)  # fmt: skip
        bob = book.entity("Bob", mentions=[(chunk, 1)])
        book.relate(alice, "MET", bob, chunk=chunk, fact="They met.", valid_at=day(1),
                    confidence=0.7, evidence=2)  # fmt: skip
        book.merge(alice, "Alice")
        await store.write_document(book.bundle())
        bundle = await store.read_bundle("doc-1")
        assert bundle is not None
        assert bundle.document.title == "Log"
        assert [(c.id, c.text) for c in bundle.chunks] == [(chunk.id, chunk.text)]
        assert np.allclose(bundle.chunks[0].embedding, unit(0))  # type: ignore[arg-type]
        written = {w.entity.id: w for w in bundle.entities}
        assert set(written) == {alice.id, bob.id}
        assert written[alice.id].description == "A sailor."
        assert written[alice.id].entity.aliases == ["Alice"]
        assert np.allclose(written[alice.id].entity.embedding, unit(1))  # type: ignore[arg-type]
        assert sorted((m.entity_id, m.surface, m.count) for m in bundle.mentions) == [
            (alice.id, "Alice", 2), (bob.id, "Bob", 1),
        ]  # fmt: skip
        (relation,) = bundle.relations
        assert (relation.fact, relation.valid_at, relation.confidence) == ("They met.", day(1), 0.7)
        assert len(relation.evidence) == 2 and relation.evidence[0].chunk_id == chunk.id
        assert [(m.entity_id, m.surface) for m in bundle.merges] == [(alice.id, "Alice")]

    async def test_copy_from_sqlite_is_identical(self, store: Store, sqlite_store: Store) -> None:
        await rich_store(sqlite_store)
        report = await copy_store(sqlite_store, store)
        assert report.matches and (report.copied, report.skipped) == (6, 0)
        vectors = await readable(store)
        for scope in ("default", "other"):
            expected = await snapshot(sqlite_store, scope, chunk_vectors=vectors)
            assert await snapshot(store, scope, chunk_vectors=vectors) == expected
        assert await store.scopes() == ["default", "other"]
        assert await store.list_api_keys() == []  # credentials only when asked for
        assert await store.list_grants() == [  # those for every scope go with the keys
            Grant("ann", "default", Role.OWNER), Grant("bob", "other", Role.READER)
        ]  # fmt: skip
        assert await store.scope_links() == await sqlite_store.scope_links()
        assert [(s.records.grants, s.records.links) for s in report.scopes] == [(1, 1), (1, 0)]
        again = await copy_store(sqlite_store, store, keys=True)
        assert again.skipped == 6 and again.keys == 3
        assert await store.list_grants() == await sqlite_store.list_grants()
        assert [(s.records.decisions, s.records.audit) for s in again.scopes] == [(0, 0), (0, 0)]
        assert await store.list_api_keys() == await sqlite_store.list_api_keys()
        assert (await copy_store(sqlite_store, store, keys=True)).keys == 0

    async def test_copy_within_the_backend_and_to_sqlite_is_identical(
        self, store: Store, sqlite_store: Store, store_factory: StoreFactory
    ) -> None:
        await require_read_bundle(store)
        await rich_store(store)
        dest = await store_factory()
        report = await copy_store(store, dest, keys=True)
        assert report.matches and (report.copied, report.skipped) == (6, 0)
        assert [(s.records.decisions, s.records.audit) for s in report.scopes] == [(2, 3), (1, 1)]
        assert (await copy_store(store, sqlite_store, keys=True)).matches
        assert await dest.list_grants() == await store.list_grants()
        assert await dest.scope_links() == await store.scope_links()
        keys = await store.list_api_keys()
        assert await dest.list_api_keys() == keys == await sqlite_store.list_api_keys()
        assert [(k.name, k.key_hash, k.active) for k in keys] == [
            ("ci", "a" * 64, True),
            ("old", "b" * 64, False),
        ]
        for scope in ("default", "other"):
            expected = await snapshot(store, scope)
            assert await snapshot(dest, scope) == expected
            assert await snapshot(sqlite_store, scope) == expected
        assert (await copy_store(store, dest)).copied == 0

    async def test_copies_answer_like_native_ingestion(
        self, store: Store, sqlite_store: Store, store_factory: StoreFactory, tmp_path: Path
    ) -> None:
        """Ingest the same corpus natively into this backend and into SQLite; each store's
        copy onto the other backend answers exactly as that backend's native store does."""
        await ingest_records(store)
        await ingest_records(sqlite_store)
        copied_in = await store_factory()
        await copy_store(sqlite_store, copied_in)
        native = await answers(store)
        assert await answers(copied_in) == native
        assert all(documents and passages for documents, passages in native)
        if await readable(store):
            async with SqliteStore(tmp_path / "copied-out.db") as copied_out:
                await copy_store(store, copied_out)
                assert await answers(copied_out) == await answers(sqlite_store)
