"""Store contract: the graph query patterns (relations of an entity, neighbourhood, shortest
paths) run on every backend through the store methods they are built on."""

from __future__ import annotations

import random

import pytest

from loregraph.engine.paths import shortest_paths
from loregraph.engine.patterns import neighbourhood, relations_of
from loregraph.errors import InputError
from loregraph.models import Entity
from loregraph.store.base import Store

from .builders import Book
from .scenarios import ContractBase, day


async def project_graph(store: Store, scope: str = "default") -> dict[str, Entity]:
    """A small code-base graph: a server, two libraries in one language, an app calling the
    server, a team owning the app, a tool with no relation, and one expired shortcut."""
    book = Book(f"project-{scope}", scope=scope)
    c = book.chunk("The API server depends on Hono and Zod, written in TypeScript.")
    d = book.chunk("The web app calls the API server. The ops team owns the web app.")
    names = ["API Server", "Hono", "Zod", "TypeScript", "Web App", "Ops Team", "Lint Tool"]
    kinds = ["software", "software", "software", "language", "software", "org", "software"]
    e = {
        n: book.entity(n, k, mentions=[(c if i < 4 else d, 1)])
        for i, (n, k) in enumerate(zip(names, kinds, strict=True))
    }
    book.relate(
        e["API Server"],
        "DEPENDS_ON",
        e["Hono"],
        chunk=c,
        evidence=2,
        sentence="The API server depends on Hono.",
        confidence=0.9,
    )
    book.relate(e["API Server"], "DEPENDS_ON", e["Zod"], chunk=c, sentence="It also uses Zod.")
    book.relate(e["Hono"], "WRITTEN_IN", e["TypeScript"], chunk=c, sentence="Hono is TypeScript.")
    book.relate(e["Zod"], "WRITTEN_IN", e["TypeScript"], chunk=c, sentence="Zod is TypeScript.")
    book.relate(
        e["Web App"],
        "CALLS",
        e["API Server"],
        chunk=d,
        sentence="The web app calls the API server.",
    )
    book.relate(e["Ops Team"], "OWNS", e["Web App"], chunk=d, sentence="The ops team owns it.")
    book.relate(e["Web App"], "USES", e["TypeScript"], chunk=d, expired_at=day(1))
    await store.write_document(book.bundle())
    return e


class PatternContract(ContractBase):
    """Relations of an entity, neighbourhoods and paths, on every backend."""

    async def test_relations_of_an_entity_by_direction_and_type(self, store: Store) -> None:
        e = await project_graph(store)
        both = await relations_of(store, e["API Server"])
        seen = [(link.direction, link.relation.type, link.other_name) for link in both.links]
        assert sorted(seen) == [
            ("in", "CALLS", "Web App"),
            ("out", "DEPENDS_ON", "Hono"),
            ("out", "DEPENDS_ON", "Zod"),
        ]
        assert both.links[0].other_name == "Hono"  # the heaviest first
        assert both.links[0].relation.confidence == pytest.approx(0.9)
        assert both.links[0].to_dict()["evidence"][0] == "The API server depends on Hono."
        out = await relations_of(store, e["API Server"], direction="out")
        assert {link.other_name for link in out.links} == {"Hono", "Zod"}
        into = await relations_of(store, e["API Server"], direction="in")
        assert [(link.direction, link.other_name) for link in into.links] == [("in", "Web App")]
        typed = await relations_of(store, e["TypeScript"], types=["WRITTEN_IN"])
        assert {link.other_name for link in typed.links} == {"Hono", "Zod"}
        assert all(link.direction == "in" for link in typed.links)
        # the expired USES relation is history, not a current relation
        assert {link.relation.type for link in (await relations_of(store, e["Web App"])).links} == {
            "CALLS",
            "OWNS",
        }
        assert (await relations_of(store, e["Lint Tool"])).links == []

    async def test_neighbourhood_by_hops(self, store: Store) -> None:
        e = await project_graph(store)
        one = await neighbourhood(store, "default", e["API Server"], hops=1)
        assert {x.name: one.distance[x.id] for x in one.ordered()} == {
            "API Server": 0,
            "Hono": 1,
            "Zod": 1,
            "Web App": 1,
        }
        assert one.ordered()[0].name == "API Server"
        assert {r.type for r in one.relations} == {"DEPENDS_ON", "CALLS"}
        two = await neighbourhood(store, "default", e["API Server"], hops=2)
        assert {x.name: two.distance[x.id] for x in two.ordered()} == {
            "API Server": 0,
            "Hono": 1,
            "Zod": 1,
            "Web App": 1,
            "TypeScript": 2,
            "Ops Team": 2,
        }
        assert len(two.relations) == 6  # the expired USES is not among them
        typed = await neighbourhood(store, "default", e["API Server"], hops=2, types=["CALLS"])
        assert {x.name for x in typed.ordered()} == {"API Server", "Web App"}
        capped = await neighbourhood(store, "default", e["API Server"], hops=2, limit=2)
        assert len(capped.entities) == 2
        alone = await neighbourhood(store, "default", e["Lint Tool"], hops=3)
        assert list(alone.entities) == [e["Lint Tool"].id] and alone.relations == []

    async def test_shortest_paths_with_types_and_evidence(self, store: Store) -> None:
        e = await project_graph(store)
        found = await shortest_paths(store, "default", e["API Server"], e["TypeScript"], max_hops=3)
        assert [p.text() for p in found] == [
            "API Server -[DEPENDS_ON]-> Hono -[WRITTEN_IN]-> TypeScript",
            "API Server -[DEPENDS_ON]-> Zod -[WRITTEN_IN]-> TypeScript",
        ]
        steps = found[0].to_dict()["steps"]
        assert steps[0]["evidence"] == "The API server depends on Hono."
        assert steps[1] == {
            "source": "Hono",
            "type": "WRITTEN_IN",
            "target": "TypeScript",
            "confidence": 1.0,
            "weight": 1.0,
            "evidence": "Hono is TypeScript.",
        }
        # against the relations' direction, and not through the expired shortcut
        back = await shortest_paths(store, "default", e["TypeScript"], e["Ops Team"], max_hops=4)
        assert [p.length for p in back] == [4, 4]
        assert back[0].text().startswith("TypeScript <-[WRITTEN_IN]- Hono <-[DEPENDS_ON]-")
        assert (
            await shortest_paths(store, "default", e["TypeScript"], e["Ops Team"], max_hops=3) == []
        )
        assert await shortest_paths(store, "default", e["Hono"], e["Lint Tool"], max_hops=6) == []
        one = await shortest_paths(store, "default", e["API Server"], e["TypeScript"], limit=1)
        assert len(one) == 1 and "Hono" in one[0].text()
        typed = await shortest_paths(
            store, "default", e["API Server"], e["TypeScript"], types=["DEPENDS_ON"], max_hops=4
        )
        assert typed == []
        with pytest.raises(InputError):
            await shortest_paths(store, "default", e["Hono"], e["Hono"])
        with pytest.raises(InputError):
            await shortest_paths(store, "default", e["Hono"], e["Zod"], max_hops=0)

    async def test_patterns_stay_in_their_scope(self, store: Store) -> None:
        await project_graph(store, "other")
        e = await project_graph(store)
        two = await neighbourhood(store, "default", e["API Server"], hops=2)
        assert all(x.scope == "default" for x in two.entities.values())
        found = await shortest_paths(store, "default", e["Ops Team"], e["TypeScript"], max_hops=4)
        assert found and all(x.scope == "default" for p in found for x in p.entities)

    async def test_paths_on_a_random_graph_are_every_shortest_path(self, store: Store) -> None:
        rng = random.Random(12)
        book = Book("random")
        c = book.chunk("A random graph.")
        nodes = [book.entity(f"Node {i}", mentions=[(c, 1)]) for i in range(40)]
        pairs = {tuple(rng.sample(range(40), 2)) for _ in range(60)}
        edges: dict[tuple[int, int], str] = {}
        for s, t in sorted(pairs):
            kind = rng.choice(["A", "B"])
            book.relate(nodes[s], kind, nodes[t], chunk=c, evidence=rng.randint(1, 3))
            edges[(s, t)] = kind
        await store.write_document(book.bundle())
        joined = 0
        for _ in range(25):
            start, end = rng.sample(range(40), 2)
            hops = rng.randint(1, 5)
            found = await shortest_paths(
                store, "default", nodes[start], nodes[end], max_hops=hops, limit=500
            )
            assert sorted(p.text() for p in found) == every_shortest_path(edges, start, end, hops)
            joined += bool(found)
        assert joined >= 5  # the pairs are not all unjoined
        near, far = [n.id for n in nodes[:8]], [n.id for n in nodes[5:20]]
        every = await store.relations_touching(near)
        meeting = await store.relations_touching(near, reaching=far)
        assert {r.id for r in meeting} == {
            r.id
            for r in every
            if (r.source_id in near and r.target_id in far)
            or (r.target_id in near and r.source_id in far)
        }
        assert meeting and len(meeting) < len(every)
        assert await store.relations_touching(near, reaching=[]) == []

    async def test_patterns_at_a_world_time(self, store: Store) -> None:
        book = Book("jobs")
        c = book.chunk("Ann worked at Acme from 2020 to 2022, then at Bolt, founded by Cy.")
        ann, acme, bolt, cy = (
            book.entity(n, k, mentions=[(c, 1)])
            for n, k in [("Ann", "person"), ("Acme", "org"), ("Bolt", "org"), ("Cy", "person")]
        )
        book.relate(ann, "WORKS_FOR", acme, chunk=c, valid_at=day(0), invalid_at=day(700))
        book.relate(ann, "WORKS_FOR", bolt, chunk=c, valid_at=day(700))
        book.relate(cy, "FOUNDED", bolt, chunk=c, valid_at=day(300))
        await store.write_document(book.bundle())
        sub = await store.expand("default", [ann.id], depth=2, at=day(100))
        assert set(sub.hops) == {ann.id, acme.id} and len(sub.relations) == 1
        later = await store.expand("default", [ann.id], depth=2, at=day(800))
        assert later.hops == {ann.id: 0, bolt.id: 1, cy.id: 2} and len(later.relations) == 2
        assert len((await store.expand("default", [ann.id], depth=2)).hops) == 4
        then = await relations_of(store, ann, at=day(100))
        assert [link.other_name for link in then.links] == ["Acme"]
        around = await neighbourhood(store, "default", ann, hops=2, at=day(800))
        assert {x.name: around.distance[x.id] for x in around.ordered()} == {
            "Ann": 0,
            "Bolt": 1,
            "Cy": 2,
        }
        now = await shortest_paths(store, "default", ann, cy, at=day(800))
        assert [p.text() for p in now] == ["Ann -[WORKS_FOR]-> Bolt <-[FOUNDED]- Cy"]
        assert await shortest_paths(store, "default", ann, cy, at=day(100)) == []


def every_shortest_path(
    edges: dict[tuple[int, int], str], start: int, end: int, max_hops: int
) -> list[str]:
    """Every shortest path from ``start`` to ``end`` of at most ``max_hops`` relations, as
    :meth:`GraphPath.text` writes it, by brute force (breadth-first over walks)."""
    walks: list[list[tuple[int, str]]] = [[(start, "")]]
    for _ in range(max_hops):
        longer = []
        for walk in walks:
            here = walk[-1][0]
            seen = {node for node, _ in walk}
            for (s, t), kind in edges.items():
                if s == here and t not in seen:
                    longer.append([*walk, (t, f"-[{kind}]->")])
                if t == here and s not in seen:
                    longer.append([*walk, (s, f"<-[{kind}]-")])
        done = [w for w in longer if w[-1][0] == end]
        if done:
            return sorted(
                " ".join([f"Node {start}"] + [f"{arrow} Node {n}" for n, arrow in w[1:]])
                for w in done
            )
        walks = longer
    return []
