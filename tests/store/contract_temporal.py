"""Store contract, through the engine: a fact that a later memory contradicts stops holding
at that memory's time, and queries see what is true now or at ``as_of``, on every backend."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.errors import NotFoundError
from loregraph.ingest.facts import supersede
from loregraph.store.base import Store

from .scenarios import ContractBase
from .temporal_sequence import PEOPLE, Model, probe_times, returns, sequence

EXPRESS = "The API server depends on Express."
HONO = "The API server now depends on Hono instead of Express."
BACK = "The API server now depends on Express instead of Hono."
QUESTION = "What does the API server depend on?"

JAN = datetime(2026, 1, 15, tzinfo=UTC)
MID = datetime(2026, 1, 31, tzinfo=UTC)
FEB = datetime(2026, 2, 10, tzinfo=UTC)
LATE_FEB = datetime(2026, 2, 20, tzinfo=UTC)
MAR = datetime(2026, 3, 5, tzinfo=UTC)
APR = datetime(2026, 4, 1, tzinfo=UTC)


class TemporalContract(ContractBase):
    """Relations with world time (``valid_at``/``invalid_at``) on the backend."""

    async def test_a_new_dependency_ends_the_old_one(self, store: Store) -> None:
        graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))
        await graph.memories.remember(EXPRESS, at=JAN)
        await graph.memories.remember(HONO, at=FEB)

        async def targets(as_of: datetime | None) -> dict[str, tuple[object, object]]:
            found = await graph.explore.relations("API server", type="DEPENDS_ON", as_of=as_of)
            return {
                link.to_dict()["other"]: (link.relation.valid_at, link.relation.invalid_at)
                for link in found.links
            }

        assert await targets(None) == {"Hono": (FEB, None)}
        assert await targets(MID) == {"Express": (JAN, FEB)}
        hops = await graph.explore.neighbors("API server", type="DEPENDS_ON", as_of=MID)
        assert {e["name"] for e in hops.to_dict()["entities"]} == {"API server", "Express"}

    async def test_the_scenario_asked_now_as_of_and_as_history(self, store: Store) -> None:
        graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))
        await graph.memories.remember(EXPRESS, at=JAN)
        hono = await graph.memories.remember(HONO, at=FEB)
        now = await graph.ask(QUESTION)
        assert [c.quote for c in now.citations] == [HONO]
        then = await graph.ask(QUESTION, as_of=MID)
        assert [c.quote for c in then.citations] == [EXPRESS]
        timeline = (await graph.explore.history("API server")).to_dict()["facts"]
        assert [(f["target"], f["current"]) for f in timeline] == [
            ("Express", False),
            ("Hono", True),
        ]
        assert timeline[0]["invalidated_by"]["id"] == hono.id
        await graph.memories.forget(hono.id)
        again = await graph.explore.history("API server")
        assert [(f.target, f.current) for f in again.facts] == [("Express", True)]

    async def test_a_dependency_that_comes_back_holds_again(self, store: Store) -> None:
        graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))
        await graph.memories.remember(EXPRESS, at=JAN)
        after_first = await relation_rows(store)
        second = await graph.memories.remember(HONO, at=FEB)
        after_second = await relation_rows(store)
        third = await graph.memories.remember(BACK, at=MAR)

        async def targets(as_of: datetime | None) -> dict[str, tuple[object, object]]:
            found = await graph.explore.relations("API server", type="DEPENDS_ON", as_of=as_of)
            return {
                link.other_name: (link.relation.valid_at, link.relation.invalid_at)
                for link in found.links
            }

        assert await targets(None) == {"Express": (MAR, None)}
        assert await targets(MID) == {"Express": (JAN, FEB)}
        assert await targets(LATE_FEB) == {"Hono": (FEB, MAR)}
        assert await targets(APR) == {"Express": (MAR, None)}
        spans = [
            (f["target"], f["valid_at"], f["invalid_at"], (f["invalidated_by"] or {}).get("id"))
            for f in (await graph.explore.history("API server", type="DEPENDS_ON")).to_dict()[
                "facts"
            ]
        ]
        assert spans == [
            ("Express", JAN.isoformat(), FEB.isoformat(), second.id),
            ("Hono", FEB.isoformat(), MAR.isoformat(), third.id),
            ("Express", MAR.isoformat(), None, None),
        ]
        assert [c.quote for c in (await graph.ask(QUESTION)).citations] == [BACK]
        assert [c.quote for c in (await graph.ask(QUESTION, as_of=LATE_FEB)).citations] == [HONO]
        await graph.memories.forget(third.id)
        assert await relation_rows(store) == after_second
        await graph.memories.forget(second.id)
        assert await relation_rows(store) == after_first
        facts = (await graph.explore.history("API server", type="DEPENDS_ON")).facts
        assert [(f.target, f.current) for f in facts] == [("Express", True)]

    async def test_a_fact_said_again_is_one_current_fact(self, store: Store) -> None:
        graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))
        near = "Alice Moreau lives in Lisbon, near the river."
        first = await graph.memories.remember(near, at=JAN)
        again = await graph.memories.remember("Alice Moreau lives in Lisbon.", at=FEB)
        twice = await graph.memories.remember("Alice Moreau lives in Lisbon.", at=FEB)
        assert await lives_in(graph, "Alice Moreau", None) == ["Lisbon"]
        assert await lives_in(graph, "Alice Moreau", MID) == ["Lisbon"]
        facts = (await graph.explore.history("Alice Moreau", type="LIVES_IN")).facts
        assert [(f.target, f.relation.valid_at, f.current) for f in facts] == [
            ("Lisbon", JAN, True)
        ]
        cited = await cited_homes(graph, "Alice Moreau", None)
        assert cited == sorted(["Alice Moreau lives in Lisbon.", near])
        for memory in (again, first):
            await graph.memories.forget(memory.id)
            assert await lives_in(graph, "Alice Moreau", None) == ["Lisbon"]
        assert await lives_in(graph, "Alice Moreau", MID) == []
        await graph.memories.forget(twice.id)
        assert await lives_in(graph, "Alice Moreau", None) == []

    async def test_a_forget_that_fails_changes_nothing(
        self, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))
        await graph.memories.remember(EXPRESS, at=JAN)
        hono = await graph.memories.remember(HONO, at=FEB)
        await graph.memories.remember(BACK, at=MAR)
        before = await relation_rows(store)

        def broken(group: object) -> None:
            raise RuntimeError("the recompute failed")

        monkeypatch.setattr(supersede, "timeline", broken)
        with pytest.raises(RuntimeError):
            await graph.memories.forget(hono.id)
        assert await relation_rows(store) == before
        assert await store.get_document(hono.id) is not None
        monkeypatch.undo()
        await forgotten_hono(graph, hono.id)

    @pytest.mark.parametrize("seed", [12, 2026])
    async def test_a_random_memory_sequence_matches_the_model(
        self, store: Store, seed: int
    ) -> None:
        graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))
        model = Model()
        ids: dict[int, str] = {}
        steps = sequence(seed)
        assert returns(steps) >= 5  # targets that come back are part of what is checked
        for index, step in enumerate(steps):
            if step.fact is not None:
                ids[index] = (await graph.memories.remember(step.fact.text, at=step.fact.at)).id
            elif step.forget is not None:
                await graph.memories.forget(ids[step.forget])
            model.apply(index, step)
            if index % 10 == 9:
                for person in PEOPLE:
                    for at in [None, *probe_times(seed + index)]:
                        found = await lives_in(graph, person, at)
                        assert found == model.city(person, at), (index, person, at)
        for person in PEOPLE:
            for at in [None, *probe_times(seed)[::3]]:
                quoted = await cited_homes(graph, person, at)
                expected = [f"{person} lives in {city}." for city in model.city(person, at)]
                assert quoted == expected, (person, at)


async def lives_in(graph: AsyncGraph, person: str, at: datetime | None) -> list[str]:
    """Where the graph says ``person`` lives at ``at`` (nowhere when it knows no such
    person any more)."""
    try:
        found = await graph.explore.relations(person, direction="out", type="LIVES_IN", as_of=at)
    except NotFoundError:
        return []
    if found.entity.name != person:
        return []
    return sorted(link.other_name for link in found.links)


async def cited_homes(graph: AsyncGraph, person: str, at: datetime | None) -> list[str]:
    """The memories about where ``person`` lives that the answer cites."""
    answer = await graph.ask(f"Where does {person} live?", as_of=at)
    return sorted({c.quote for c in answer.citations if c.quote.startswith(f"{person} lives")})


async def relation_rows(store: Store) -> list[tuple[object, ...]]:
    """Every relation of the default scope with its times, end and evidence, in id order."""
    rows = [
        (
            r.id,
            r.type,
            r.valid_at,
            r.invalid_at,
            r.expired_at,
            r.invalidated_by,
            r.weight,
            sorted(ev.chunk_id for ev in r.evidence),
        )
        async for r in store.iter_relations("default")
    ]
    return sorted(rows, key=lambda row: str(row[0]))


async def targets_now(graph: AsyncGraph) -> dict[str, tuple[object, object]]:
    """The API server's current dependencies, with when each began and ends."""
    found = await graph.explore.relations("API server", type="DEPENDS_ON")
    return {
        link.other_name: (link.relation.valid_at, link.relation.invalid_at) for link in found.links
    }


async def forget_fails_inside_the_delete(
    store: Store, monkeypatch: pytest.MonkeyPatch, backend: object
) -> None:
    """Forget the memory that replaced Express by Hono, after which the first Express
    statement runs on into the one that brought Express back (an end the delete must
    write), while ``backend.end_relations`` (the backend's module applying a delete's ends)
    fails: the delete's transaction, which has already deleted the memory and opened what
    it ended, rolls back."""
    graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))
    await graph.memories.remember(EXPRESS, at=JAN)
    hono = await graph.memories.remember(HONO, at=FEB)
    await graph.memories.remember(BACK, at=MAR)
    before = await relation_rows(store)
    plain = backend.end_relations  # type: ignore[attr-defined]
    calls: list[int] = []

    def broken(*args: object) -> object:
        ends = args[1]
        calls.append(len(ends))  # type: ignore[arg-type]
        if ends:
            raise RuntimeError("the end of a relation could not be written")
        return plain(*args)

    monkeypatch.setattr(backend, "end_relations", broken)
    with pytest.raises(RuntimeError):
        await graph.memories.forget(hono.id)
    assert calls and calls[-1] > 0
    assert await relation_rows(store) == before
    assert await store.get_document(hono.id) is not None
    monkeypatch.undo()
    await forgotten_hono(graph, hono.id)


async def forgotten_hono(graph: AsyncGraph, hono: str) -> None:
    """Forget the Hono memory: Express holds from January on, one span in the history."""
    await graph.memories.forget(hono)
    assert await targets_now(graph) == {"Express": (MAR, None)}
    facts = (await graph.explore.history("API server", type="DEPENDS_ON")).facts
    assert [(f.target, f.relation.valid_at, f.current) for f in facts] == [("Express", JAN, True)]
