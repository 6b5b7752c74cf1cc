"""Random worlds and readers for the visibility property test (``contract_visibility``).

A world is two scopes of small documents with random visibilities and owners, whose
documents share entities (by name) and relations. A case is a principal with a random role
in each scope, random links between the scopes and a random query. Its reference is the
graph built from the readable documents alone: their original bundles written, oldest
first, into an empty in-memory SQLite store.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from loregraph.access import Principal, Role, ScopeLink
from loregraph.models import DocumentBundle, Entity, name_key
from loregraph.store.sqlite import SqliteStore
from loregraph.store.visible.rules import readable_documents

from .builders import Book, blend
from .scenarios import day

SCOPES = ("family-a", "family-b")
PEOPLE = ("Ada", "Bea", "Cal", "Dov", "Eve", "Fay", "Gus", "Hal")
LONG = {"Ada": "Ada Byron", "Bea": "Beatrix Holm", "Cal": "Calvin Ro", "Dov": "Dov Aris"}
TYPES = {name: ("person" if i % 3 else "place") for i, name in enumerate(PEOPLE)}
WORDS = ("lake", "garden", "letter", "summer", "wedding", "harbour", "school", "orchard")
RELATIONS = ("knows", "parent_of", "lives_near", "wrote_to")
VISIBILITIES = ("public", "private", "personal")
PRINCIPALS = ("ann", "bob", "cy", "dee")
ROLES = (None, Role.READER, Role.WRITER, Role.ADMIN)


@dataclass
class World:
    """The bundles of a world, oldest first, and what a reader may read of them."""

    bundles: list[DocumentBundle] = field(default_factory=list)
    shared: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)
    """Per scope, the few document lists its selective links share (few, so that readers
    repeat and their reference stores are built once)."""

    def documents(self, scope: str) -> list[str]:
        return [b.document.id for b in self.bundles if b.document.scope == scope]

    def readable(self, principal: Principal, links: Sequence[ScopeLink]) -> frozenset[str]:
        """Every readable document id, over both scopes."""
        found: set[str] = set()
        for scope in SCOPES:
            docs = [b.document for b in self.bundles if b.document.scope == scope]
            found |= readable_documents(principal, scope, docs, links)
        return frozenset(found)


def make_world(rng: random.Random, documents: int = 10) -> World:
    """A random world of ``documents`` documents per scope."""
    world = World()
    for scope in SCOPES:
        for i in range(documents):
            world.bundles.append(_document(rng, scope, i, len(world.bundles)))
        docs = world.documents(scope)
        _end_some_facts(rng, [b for b in world.bundles if b.document.scope == scope])
        world.shared[scope] = [
            tuple(sorted(rng.sample(docs, rng.randint(1, len(docs))))) for _ in range(3)
        ]
    return world


def _end_some_facts(rng: random.Random, bundles: list[DocumentBundle]) -> None:
    """Let some documents end a fact only one earlier document states (a fact stated again
    later would be open in a reader's graph that lacks the earlier document)."""
    said = Counter(r.id for b in bundles for r in b.relations)
    for n, bundle in enumerate(bundles):
        earlier = [r for b in bundles[:n] for r in b.relations if said[r.id] == 1]
        if earlier and rng.random() < 0.3:
            ended = rng.choice(earlier)
            when = bundle.document.created_at
            bundle.invalidations.append(
                replace(
                    ended,
                    invalid_at=when,
                    expired_at=when,
                    invalidated_by=bundle.document.id,
                    evidence=[],
                )
            )
            said[ended.id] += 1  # ended once


def _document(rng: random.Random, scope: str, i: int, order: int) -> DocumentBundle:
    book = Book(f"{scope}-d{i}", scope=scope, title=f"{rng.choice(WORDS)} story {i}")
    book.created_at = day(order + 1)
    names = rng.sample(PEOPLE, rng.randint(1, 4))
    chunks = []
    for c in range(rng.randint(1, 2)):
        words = " ".join(rng.sample(WORDS, 3))
        said = [n for n in names if rng.random() < 0.7] or names[:1]
        text = f"{' and '.join(said)} by the {words} ({scope} {i}.{c})."
        chunks.append(book.chunk(text, blend(rng.randrange(8), rng.randrange(8), 0.7)))
    for name in names:
        surface = LONG[name] if name in LONG and rng.random() < 0.3 else name
        entity = book.entity(
            name,
            TYPES[name],
            description=rng.choice(["", f"{surface} of {book.doc_id}", f"{name} again"]),
            salience=round(rng.random(), 3),
            entity_id=Entity.make_id(scope, name),
            vector=blend(PEOPLE.index(name), 0, 0.9),
        )
        entity.name = surface
        entity.confidence = round(0.5 + rng.random() / 2, 3)
        for chunk in chunks:
            if rng.random() < 0.8:
                book.mention(entity, chunk, surface, rng.randint(1, 3))
    listed = [w.entity for w in book.entities]
    for _ in range(rng.randint(0, 3)):
        if len(listed) < 2:
            break
        a, b = rng.sample(listed, 2)
        chunk = rng.choice(chunks) if rng.random() < 0.9 else None
        book.relate(
            a,
            rng.choice(RELATIONS),
            b,
            chunk=chunk,
            sentence=f"{a.name} and {b.name} in {book.doc_id}",
            fact=f"{a.name} and {b.name} in {book.doc_id}",
            confidence=round(0.4 + rng.random() / 2, 3),
            evidence=rng.randint(1, 2),
        )
    bundle = book.bundle()
    bundle.document.visibility = rng.choice(VISIBILITIES)
    bundle.document.owner = rng.choice(PRINCIPALS)
    return bundle


def random_reader(rng: random.Random, world: World) -> tuple[Principal, list[ScopeLink]]:
    """A principal with a random role per scope, and random links between the scopes."""
    roles = {scope: role for scope in SCOPES if (role := rng.choice(ROLES)) is not None}
    links: list[ScopeLink] = []
    for scope, other in ((SCOPES[0], SCOPES[1]), (SCOPES[1], SCOPES[0])):
        pick = rng.random()
        if pick < 0.25:
            links.append(ScopeLink(scope, other, "all"))
        elif pick < 0.5:
            links.append(ScopeLink(scope, other, "selective", rng.choice(world.shared[other])))
    return Principal(rng.choice(PRINCIPALS), roles), links


async def reference_store(world: World, readable: frozenset[str]) -> SqliteStore:
    """The graph built from the readable documents alone (an open in-memory store)."""
    store = SqliteStore(":memory:")
    await store.open()
    for bundle in world.bundles:
        if bundle.document.id in readable:
            await store.write_document(_fresh(bundle))
    return store


def _fresh(bundle: DocumentBundle) -> DocumentBundle:
    """A copy of ``bundle`` a store may keep (stores may change what they are given)."""
    return DocumentBundle(
        replace(bundle.document),
        [replace(c) for c in bundle.chunks],
        [
            replace(w, entity=replace(w.entity, aliases=list(w.entity.aliases)))
            for w in bundle.entities
        ],
        [replace(m) for m in bundle.mentions],
        [replace(r, evidence=list(r.evidence)) for r in bundle.relations],
        invalidations=[replace(r) for r in bundle.invalidations],
    )


def name_keys(entity: Entity) -> set[str]:
    """The keys of an entity's name and aliases (what a reader learns it is called)."""
    return {name_key(entity.name), *(name_key(a) for a in entity.aliases)}
