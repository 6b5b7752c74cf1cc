"""Writer processes for the PostgreSQL concurrency tests (started with ``spawn``)."""

from __future__ import annotations

import asyncio
import random
from itertools import combinations
from threading import Barrier

from loregraph.models import CO_OCCURS
from loregraph.store.postgres import PostgresStore

from .builders import Book, unit

SHARED = ("Alice Morgan", "Bob Stone", "Carol Reyes", "Harbor City", "Demeter")
"""Entities every document of every writer mentions."""


def shared_book(worker: int, index: int, rng: random.Random) -> Book:
    """A document mentioning every shared entity (listed in a random order) and its own one."""
    book = Book(f"w{worker}-d{index}")
    chunk = book.chunk(f"Writer {worker}, document {index}: " + ", ".join(SHARED) + ".")
    names = list(SHARED)
    rng.shuffle(names)
    entities = {
        name: book.entity(name, mentions=[(chunk, 1)], vector=unit(SHARED.index(name)))
        for name in names
    }
    book.entity(f"Own {worker} {index}", "concept", mentions=[(chunk, 2)])
    pairs = list(combinations(SHARED, 2))
    rng.shuffle(pairs)
    for first, second in pairs:
        book.relate(entities[first], CO_OCCURS, entities[second], chunk=chunk)
    return book


def survivors(docs: int, churn: bool) -> list[int]:
    """The document indexes a writer leaves behind."""
    if not churn:
        return list(range(docs))
    return [i for i in range(docs) if i % 2 == 1 or i == docs - 1]


def write_documents(
    url: str, schema: str, worker: int, docs: int, barrier: Barrier, churn: bool = False
) -> None:
    """Open the store when every writer is ready, then write ``docs`` documents; with
    ``churn``, delete each even-numbered document once the next one is written."""
    asyncio.run(_write(url, schema, worker, docs, barrier, churn))


async def _write(
    url: str, schema: str, worker: int, docs: int, barrier: Barrier, churn: bool
) -> None:
    rng = random.Random(worker)
    store = PostgresStore(url, schema=schema, max_connections=1)
    barrier.wait(60)
    async with store:
        for index in range(docs):
            await store.write_document(shared_book(worker, index, rng).bundle())
            if churn and index % 2 == 1:
                await store.delete_document(f"w{worker}-d{index - 1}")
