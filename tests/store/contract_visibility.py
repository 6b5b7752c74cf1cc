"""Store contract: a principal sees exactly the graph built from the documents it may read.

Random worlds (:mod:`.visibility_world`) are written into the backend; each case acts as a
random principal with random roles and scope links, runs a random read through
:class:`~loregraph.store.visible.VisibleStore` and compares it with the same read on the
reference: the readable documents' bundles written alone into an empty store. Nothing may
show that the reference does not hold: no passage, entity, relation, alias or evidence
sentence, and every description, mention count, weight and count must be the reference's.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Awaitable, Callable

from loregraph.access import Principal, ScopeLink
from loregraph.store.base import Store
from loregraph.store.visible import VisibleStore

from .scenarios import ContractBase
from .visibility_checks import CHECKS, Case
from .visibility_world import (
    SCOPES,
    make_world,
    random_reader,
    reference_store,
)

CASES_PER_WORLD = 2000


def visibility_cases(default: int) -> int:
    """How many random cases to run (``LOREGRAPH_VISIBILITY_CASES`` overrides)."""
    return int(os.environ.get("LOREGRAPH_VISIBILITY_CASES", default))


class VisibilityContract(ContractBase):
    """What each principal sees, against the graph its readable documents build."""

    visibility_default_cases = 10_000

    async def test_a_principal_sees_the_graph_its_readable_documents_build(
        self, store_factory: Callable[[], Awaitable[Store]]
    ) -> None:
        total = visibility_cases(self.visibility_default_cases)
        done: Counter[str] = Counter()
        seed = 0
        while sum(done.values()) < total:
            seed += 1
            rng = random.Random(seed)
            world = make_world(rng)
            store = await store_factory()
            for bundle in world.bundles:
                await store.write_document(bundle)
            view = VisibleStore(store)
            count = min(CASES_PER_WORLD, total - sum(done.values()))
            # readers with the same links run together: links are written once per group
            readers = sorted(
                (random_reader(rng, world) for _ in range(count)),
                key=lambda reader: repr(reader[1]),
            )
            references: dict[frozenset[str], Store] = {}
            try:
                for number, (principal, links) in enumerate(readers):
                    if number == 0 or links != readers[number - 1][1]:
                        await _store_links(view, links)
                    readable = world.readable(principal, links)
                    if readable not in references:
                        references[readable] = await reference_store(world, readable)
                    kind = rng.choice(sorted(CHECKS))
                    seen = view.seen_by(principal)
                    case = Case(
                        rng, world, seen, references[readable], readable, rng.choice(SCOPES)
                    )
                    await _check(case, kind, principal, f"world {seed}, case {number}: {links}")
                    done[kind] += 1
            finally:
                for reference in references.values():
                    await reference.close()
        print(f"visibility: {sum(done.values()):,} cases over {seed} worlds: {dict(done)}")


async def _check(case: Case, kind: str, principal: Principal, where: str) -> None:
    try:
        await CHECKS[kind](case)
    except AssertionError as error:
        raise AssertionError(
            f"{where} ({kind}): {principal} reads {sorted(case.readable)}: {error}"
        ) from error


async def _store_links(store: Store, links: list[ScopeLink]) -> None:
    """Make ``links`` the store's only scope links."""
    for link in await store.scope_links():
        await store.remove_scope_link(link.scope, link.linked)
    for link in links:
        await store.add_scope_link(link)
