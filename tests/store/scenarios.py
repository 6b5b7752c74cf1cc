"""Scenarios shared by the contract tests: small hand-built graphs and the contract's base."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest

from loregraph.models import CO_OCCURS, Chunk, DocStatus, Entity
from loregraph.store.base import Store

from .builders import Book, unit

StoreFactory = Callable[[], Awaitable[Store]]
"""Returns a new, opened, empty store on each call (the fixture closes them at teardown)."""


class OpenedStores:
    """A backend's ``store_factory``: each :meth:`make` opens a new store, ``new(n)`` for
    the ``n``-th (from 0), and :meth:`close` closes them all at teardown."""

    def __init__(self, new: Callable[[int], Store]) -> None:
        self.new = new
        self.stores: list[Store] = []

    async def make(self) -> Store:
        """A new, opened, empty store."""
        store = self.new(len(self.stores))
        await store.open()
        self.stores.append(store)
        return store

    async def close(self) -> None:
        """Close every store made."""
        for store in self.stores:
            await store.close()


class ContractBase:
    """Gives every contract test a fresh ``store`` from the backend's ``store_factory``."""

    @pytest.fixture
    async def store(self, store_factory: StoreFactory) -> Store:
        return await store_factory()


async def document_chunks(store: Store, document_id: str) -> list[Chunk]:
    """A document's chunks in order, as :meth:`Store.read_bundle` gives them back."""
    bundle = await store.read_bundle(document_id)
    return [] if bundle is None else bundle.chunks


def day(n: int) -> datetime:
    """A fixed point in time ``n`` days after 2020-01-01 (UTC)."""
    return datetime(2020, 1, 1, tzinfo=UTC) + timedelta(days=n)


async def shared_pair(
    store: Store, *, letters_status: DocStatus = DocStatus.PENDING
) -> dict[str, str]:
    """Two documents sharing an entity and a relation; returns the ids of interest.

    ``letters_status`` is the status the second document ("doc-2", "Letters") is written with.
    """
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
    letters = two.bundle()
    letters.document.status = letters_status
    await store.write_document(one.bundle())
    await store.write_document(letters)
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


def random_book(rng: random.Random, doc_id: str) -> Book:
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


async def derived_state(store: Store) -> tuple[object, ...]:
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
