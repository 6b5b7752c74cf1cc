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

from loregraph.access import acting_as
from loregraph.store.base import Store
from loregraph.store.visible import VisibleStore

from .scenarios import ContractBase
from .visibility_checks import CHECKS, Case
from .visibility_world import (
    SCOPES,
    Link,
    World,
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
            references: dict[frozenset[str], Store] = {}
            try:
                for number in range(min(CASES_PER_WORLD, total - sum(done.values()))):
                    kind = await self._one_case(rng, world, view, references, seed, number)
                    done[kind] += 1
            finally:
                for reference in references.values():
                    await reference.close()
        print(f"visibility: {sum(done.values()):,} cases over {seed} worlds: {dict(done)}")

    async def _one_case(
        self,
        rng: random.Random,
        world: World,
        view: VisibleStore,
        references: dict[frozenset[str], Store],
        seed: int,
        number: int,
    ) -> str:
        principal, links = random_reader(rng, world)
        readable = world.readable(principal, links)
        if readable not in references:
            references[readable] = await reference_store(world, readable)

        async def stored_links() -> list[Link]:
            return links

        view.readers.links = stored_links  # type: ignore[method-assign]
        kind = rng.choice(sorted(CHECKS))
        case = Case(rng, world, view, references[readable], readable, rng.choice(SCOPES))
        with acting_as(principal):
            try:
                await CHECKS[kind](case)
            except AssertionError as error:
                raise AssertionError(
                    f"world {seed}, case {number} ({kind}): {principal} with links {links} "
                    f"reads {sorted(readable)}: {error}"
                ) from error
        return kind
