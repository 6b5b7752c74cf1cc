"""Store contract: an entity's salience and confidence are the highest its listing documents
give, kept per document, so deleting or replacing a document takes its values away."""

from __future__ import annotations

from loregraph.copy import copy_store
from loregraph.models import Entity
from loregraph.store.base import Store

from .builders import Book
from .contract_copy import require_read_bundle
from .scenarios import ContractBase, StoreFactory


def listing(doc_id: str, salience: float, confidence: float, *, with_mention: bool) -> Book:
    """A document listing "Mina Harker" with its own salience and confidence."""
    book = Book(doc_id)
    chunk = book.chunk(f"Mina Harker wrote in {doc_id}.")
    mentions = [(chunk, 1)] if with_mention else []
    entity = book.entity("Mina Harker", salience=salience, mentions=mentions)
    entity.confidence = confidence
    return book


async def scores(store: Store) -> tuple[float, float]:
    [found] = await store.get_entities([Entity.make_id("default", "Mina Harker")])
    return found.salience, found.confidence


async def two_listings(store: Store, high_first: bool) -> None:
    high = listing("doc-high", 5.0, 0.9, with_mention=True)
    low = listing("doc-low", 2.0, 0.4, with_mention=True)
    for book in (high, low) if high_first else (low, high):
        await store.write_document(book.bundle())


class ScoreContract(ContractBase):
    """Salience and confidence per listing document."""

    async def test_deleting_the_highest_listing_lowers_them(self, store: Store) -> None:
        for high_first in (True, False):
            await two_listings(store, high_first)
            assert await scores(store) == (5.0, 0.9)
            await store.delete_document("doc-high")
            assert await scores(store) == (2.0, 0.4)
            await store.delete_document("doc-low")
            assert await store.get_entities([Entity.make_id("default", "Mina Harker")]) == []

    async def test_deleting_a_lower_listing_keeps_them(self, store: Store) -> None:
        await two_listings(store, high_first=False)
        await store.delete_document("doc-low")
        assert await scores(store) == (5.0, 0.9)

    async def test_replacing_a_listing_takes_its_old_values_away(self, store: Store) -> None:
        await two_listings(store, high_first=True)
        await store.write_document(listing("doc-high", 1.0, 0.2, with_mention=True).bundle())
        assert await scores(store) == (2.0, 0.4)
        await store.write_document(listing("doc-high", 3.0, 0.3, with_mention=False).bundle())
        assert await scores(store) == (3.0, 0.4)

    async def test_bundles_carry_each_documents_own_values(
        self, store: Store, store_factory: StoreFactory
    ) -> None:
        await require_read_bundle(store)
        await two_listings(store, high_first=True)
        for doc_id, expected in (("doc-high", (5.0, 0.9)), ("doc-low", (2.0, 0.4))):
            bundle = await store.read_bundle(doc_id)
            assert bundle is not None
            [write] = bundle.entities
            assert (write.entity.salience, write.entity.confidence) == expected
            assert write.salience == expected[0]
        dest = await store_factory()
        assert (await copy_store(store, dest)).matches
        assert await scores(dest) == (5.0, 0.9)
        await dest.delete_document("doc-high")
        assert await scores(dest) == (2.0, 0.4)
