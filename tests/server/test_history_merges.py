"""The graph's past and corrections by hand over HTTP, as on the command line: a fact's
timeline, merges listed and undone, merges by hand, renames, retypes and the audit log;
who may do what; every change audited under its key's name; refused changes change
nothing; a change outlives a request that times out."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from loregraph import AsyncGraph, Corrections
from loregraph.server import Limits, ServerConfig, create_app

from .conftest import Client, Keys, problem

NAVY = (
    "Grace Hopper joined the United States Navy in Washington. "
    "The Navy sent Grace Hopper to Harvard.",
    "Admiral Grace Hopper wrote the first compiler at Harvard.",
)
"""Two texts whose second merges "Admiral Grace Hopper" into Grace Hopper."""
JONES = (
    "Bob Jones lives in Paris. Bob Jones works for Acme Corporation.",
    "Robert Jones met Alice Smith in Berlin. Robert Jones plays chess.",
)
EXPRESS = "The API server depends on Express."
HONO = "The API server now depends on Hono instead of Express."


async def _ingest(graph: AsyncGraph, texts: tuple[str, ...], stem: str) -> None:
    for i, text in enumerate(texts):
        await graph.ingest_text(text, title=f"{stem} {i}", source=f"{stem}-{i}")


async def _state(http: httpx.AsyncClient) -> tuple[Any, ...]:
    """What a refused change must leave alone: counts, entities, merges, audit log."""
    entities = (await http.get("/entities", params={"limit": 1000})).json()
    merges = (await http.get("/merges", params={"undone": True})).json()
    return (
        (await http.get("/stats")).json(),
        sorted((e["name"], e["type"], tuple(e["aliases"]), e["mentions"]) for e in entities),
        merges,
        await graph_audit(http),
    )


KEY_ACTIONS = ("create key", "revoke key")
"""Audited actions of the fixtures' keys, left out where a test looks at its own changes."""


async def graph_audit(http: httpx.AsyncClient) -> Any:
    return [e for e in (await http.get("/audit")).json() if e["action"] not in KEY_ACTIONS]


async def changes(graph: AsyncGraph) -> list[tuple[str, str]]:
    """The audit log's actions and principals, less those of the fixtures' keys."""
    return [
        (e.action, e.principal) for e in await graph.access.audit() if e.action not in KEY_ACTIONS
    ]


async def test_history_is_the_timeline_of_facts(client: Client, keys: Keys) -> None:
    async with client(keys.writer) as http:
        made = [
            (await http.post("/memories", json={"text": text, "at": at})).json()
            for text, at in ((EXPRESS, "2026-01-15"), (HONO, "2026-02-10"))
        ]
        hono = made[1]
    async with client(keys.reader) as http:
        found = (await http.get("/history", params={"name": "API server"})).json()
        assert found["entity"] == "API server" and found["other"] is None
        facts = [(f["target"], f["valid_at"][:10], (f["invalid_at"] or "")[:10], f["current"])
                 for f in found["facts"]]  # fmt: skip
        assert facts == [
            ("Express", "2026-01-15", "2026-02-10", False),
            ("Hono", "2026-02-10", "", True),
        ]
        ended = found["facts"][0]["invalidated_by"]
        assert ended["id"] == hono["id"] and ended["sentence"] == HONO
        assert ended["kind"] == "memory" and ended["at"].startswith("2026-02-10")
        assert found["facts"][0]["evidence"] == [EXPRESS]
        assert found["facts"][1]["invalidated_by"] is None
        between = await http.get("/history", params={"name": "API server", "other": "Hono"})
        assert [f["target"] for f in between.json()["facts"]] == ["Hono"]
        typed = await http.get("/history", params={"name": "API server", "type": "KNOWS"})
        assert typed.json()["facts"] == []
        missing = problem(
            await http.get("/history", params={"name": "Zebulon Quartermaine"}), 404, "not-found"
        )
        assert "Zebulon Quartermaine" in missing["detail"]


async def test_two_undos_of_one_merge_at_once_undo_it_once(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    await _ingest(graph, NAVY, "navy")
    [merged] = await graph.corrections.merges(entity="Grace Hopper")
    async with client(keys.writer) as http:
        answers = await asyncio.gather(*(http.post(f"/merges/{merged.id}/undo") for _ in range(2)))
        assert sorted(a.status_code for a in answers) == [200, 409], [a.text for a in answers]
    assert [action for action, _ in await changes(graph)] == ["unmerge"]
    assert (
        await graph.explore.entity("Admiral Grace Hopper")
    ).entity.name == "Admiral Grace Hopper"


async def test_undo_splits_what_an_ingest_merged(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    await _ingest(graph, NAVY, "navy")
    async with client(keys.reader) as http:
        [merged] = (await http.get("/merges", params={"entity": "Grace Hopper"})).json()
        assert (merged["surface"], merged["entity"], merged["rule"]) == (
            "Admiral Grace Hopper",
            "Grace Hopper",
            "alias",
        )
        assert merged["document"] == "navy 1" and merged["score"] > 0 and not merged["undone"]
        assert merged["at"] and merged["id"] in {
            m["id"] for m in (await http.get("/merges")).json()
        }
        hopper = (await http.get("/entity", params={"name": "Grace Hopper"})).json()
        assert "Admiral Grace Hopper" in hopper["aliases"]
        # a reader may look but not undo; the refusal changes nothing
        problem(await http.post(f"/merges/{merged['id']}/undo"), 403, "forbidden")
        assert (await http.get("/merges", params={"entity": "Grace Hopper"})).json() == [merged]

    async with client(keys.writer) as http:
        undone = await http.post(f"/merges/{merged['id']}/undo")
        assert undone.status_code == 200, undone.text
        assert undone.json() == {**merged, "undone": True, "principal": "writer"}
        assert (await http.get("/merges", params={"entity": "Grace Hopper"})).json() == []
        [listed] = (
            await http.get("/merges", params={"entity": "Grace Hopper", "undone": True})
        ).json()
        assert listed["id"] == merged["id"] and listed["undone"]
        assert listed["principal"] == "writer"
        admiral = (await http.get("/entity", params={"name": "Admiral Grace Hopper"})).json()
        hopper = (await http.get("/entity", params={"name": "Grace Hopper"})).json()
        assert admiral["name"] == "Admiral Grace Hopper" and admiral["id"] != hopper["id"]
        assert "Admiral Grace Hopper" not in hopper["aliases"]

        again = problem(await http.post(f"/merges/{merged['id']}/undo"), 409, "already-done")
        assert again["detail"] == f"merge {merged['id']!r} was already undone"
        unknown = problem(await http.post("/merges/mrg_nothing/undo"), 404, "not-found")
        assert "no merge 'mrg_nothing'" in unknown["detail"]
        problem(await http.get("/merges", params={"entity": "Zebulon Q"}), 404, "not-found")
        problem(await http.get("/audit"), 403, "forbidden")  # a writer does not read the log

    async with client(keys.admin) as http:
        [entry] = await graph_audit(http)
        assert (entry["action"], entry["subject"], entry["principal"]) == (
            "unmerge",
            merged["id"],
            "writer",
        )


async def test_merge_by_hand_rename_and_retype(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    await _ingest(graph, JONES, "jones")
    async with client(keys.writer) as http:
        made = await http.post("/merge", json={"name": "Bob Jones", "other": "Robert Jones"})
        assert made.status_code == 200, made.text
        merge = made.json()
        assert (merge["surface"], merge["entity"], merge["rule"]) == (
            "Robert Jones",
            "Bob Jones",
            "manual",
        )
        assert merge["principal"] == "writer" and merge["document"] == ""
        names = {e["name"] for e in (await http.get("/entities", params={"limit": 100})).json()}
        assert "Bob Jones" in names and "Robert Jones" not in names
        listed = (await http.get("/merges", params={"entity": "Bob Jones"})).json()
        assert merge["id"] in {m["id"] for m in listed}
        assert (await http.post(f"/merges/{merge['id']}/undo")).status_code == 200
        names = {e["name"] for e in (await http.get("/entities", params={"limit": 100})).json()}
        assert {"Bob Jones", "Robert Jones"} <= names

        renamed = await http.post(
            "/rename", json={"name": "Alice Smith", "new_name": "Alice Jones"}
        )
        assert renamed.json()["name"] == "Alice Jones"
        alice = (await http.get("/entity", params={"name": "Alice Jones"})).json()
        assert alice["id"] == renamed.json()["id"]
        retyped = await http.post("/retype", json={"name": "Berlin", "type": "organisation"})
        assert retyped.json()["type"] == "Organization"

    async with client(keys.admin) as http:
        log = await graph_audit(http)
        assert [(e["action"], e["principal"]) for e in log] == [
            ("retype", "writer"),
            ("rename", "writer"),
            ("unmerge", "writer"),
            ("merge", "writer"),
        ]
        assert [e["action"] for e in (await http.get("/audit", params={"limit": 1})).json()] == [
            "retype"
        ]


async def test_refused_changes_name_the_problem_and_change_nothing(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    await _ingest(graph, JONES, "jones")
    async with client(keys.admin) as http:
        before = await _state(http)
        taken = await http.post("/rename", json={"name": "Alice Smith", "new_name": "Bob Jones"})
        assert "merge them" in problem(taken, 422, "invalid-input")["detail"]
        same = await http.post("/merge", json={"name": "Bob Jones", "other": "bob jones"})
        assert "already one entity" in problem(same, 422, "invalid-input")["detail"]
        for path, body in (
            ("/rename", {"name": "Zebulon Quartermaine", "new_name": "X"}),
            ("/retype", {"name": "Zebulon Quartermaine", "type": "Person"}),
            ("/merge", {"name": "Bob Jones", "other": "Zebulon Quartermaine"}),
        ):
            missing = problem(await http.post(path, json=body), 404, "not-found")
            assert "Zebulon Quartermaine" in missing["detail"]
        empty = await http.post("/rename", json={"name": "Bob Jones", "new_name": ""})
        problem(empty, 422, "invalid-request")
        extra = await http.post("/retype", json={"name": "Bob Jones", "type": "X", "as": "y"})
        problem(extra, 422, "invalid-request")
        assert await _state(http) == before


async def test_edits_take_exact_names_and_known_types_naming_the_candidates(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    await _ingest(graph, (*JONES, "Marco Rossi and Priya Shah run the Redis cluster."), "team")
    async with client(keys.admin) as http:
        before = await _state(http)
        guessed = await http.post("/merge", json={"name": "Marco Rossi", "other": "Priya"})
        body = problem(guessed, 404, "not-found")
        assert "did you mean: Priya Shah" in body["detail"]
        assert body["candidates"][0] == "Priya Shah"
        banana = await http.post("/retype", json={"name": "Redis", "type": "Banana"})
        body = problem(banana, 422, "invalid-input")
        assert body["candidates"][:3] == ["Person", "Organization", "Location"]
        assert "Banana" not in body["candidates"]
        assert await _state(http) == before
        made = await http.post("/retype", json={"name": "Redis", "type": "Banana",
                                                "new_type": True})  # fmt: skip
        assert made.status_code == 200 and made.json()["type"] == "Banana"
        merged = await http.post("/merge", json={"name": "marco rossi", "other": "Priya Shah"})
        assert merged.status_code == 200 and merged.json()["surface"] == "Priya Shah"


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/merges/mrg_x/undo", None),
        ("post", "/merge", {"name": "Count Dracula", "other": "Mina Harker"}),
        ("post", "/rename", {"name": "Count Dracula", "new_name": "Dracula"}),
        ("post", "/retype", {"name": "Count Dracula", "type": "Location"}),
    ],
)
async def test_a_reader_may_not_change_the_graph(
    client: Client, keys: Keys, method: str, path: str, body: dict[str, str] | None
) -> None:
    async with client(keys.reader) as http:
        refused = await http.request(method, path, json=body)
        assert "may not write to scope 'default'" in problem(refused, 403, "forbidden")["detail"]
    async with client(keys.other) as http:  # a key of another scope only
        problem(await http.request(method, path, json=body), 403, "forbidden")
    async with client() as http:
        problem(await http.request(method, path, json=body), 401, "unauthorized")
    async with client(keys.admin) as http:
        assert await graph_audit(http) == []


async def test_a_change_outlives_a_request_that_times_out(
    client: Client, keys: Keys, graph: AsyncGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request gets 504; the change it began still ends (and is audited) rather than
    being cut short half way through processing a document again."""
    await _ingest(graph, NAVY, "navy")
    [merged] = await graph.corrections.merges(entity="Grace Hopper")
    release, finished = asyncio.Event(), asyncio.Event()
    unmerge: Callable[..., Awaitable[Any]] = Corrections.unmerge

    async def held(self: Corrections, *args: Any, **kwargs: Any) -> Any:
        try:
            await release.wait()
            return await unmerge(self, *args, **kwargs)  # as the engine acting for the key
        finally:
            finished.set()  # done, or cut short

    monkeypatch.setattr(Corrections, "unmerge", held)
    async with client(keys.writer, limits=Limits(request_timeout=0.2)) as http:
        timed_out = await http.post(f"/merges/{merged.id}/undo")
        problem(timed_out, 504, "timeout")
        release.set()
        await finished.wait()
        [listed] = (
            await http.get("/merges", params={"entity": "Grace Hopper", "undone": True})
        ).json()
        assert listed["undone"]
    assert await changes(graph) == [("unmerge", "writer")]


async def test_the_server_waits_for_a_running_change_before_it_stops(
    keys: Keys, graph: AsyncGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _ingest(graph, NAVY, "navy")
    [merged] = await graph.corrections.merges(entity="Grace Hopper")
    release = asyncio.Event()
    unmerge: Callable[..., Awaitable[Any]] = Corrections.unmerge

    async def held(*args: Any, **kwargs: Any) -> Any:
        await release.wait()
        return await unmerge(*args, **kwargs)

    monkeypatch.setattr(Corrections, "unmerge", held)
    app = create_app(graph, ServerConfig(limits=Limits(request_timeout=0.2)))
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {keys.writer}"}
    async with httpx.AsyncClient(
        transport=transport, base_url="http://localhost", headers=headers
    ) as http:
        running = app.router.lifespan_context(app)
        await running.__aenter__()
        problem(await http.post(f"/merges/{merged.id}/undo"), 504, "timeout")
        stopping = asyncio.ensure_future(running.__aexit__(None, None, None))
        for _ in range(50):
            await asyncio.sleep(0)
        assert not stopping.done()  # still waiting for the change
        release.set()
        await stopping
    assert [
        m.undone for m in await graph.corrections.merges(entity="Grace Hopper", undone=True)
    ] == [True]


async def test_forget_over_http_is_audited_under_the_key(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    [memory] = await graph.memories.all()
    async with client(keys.writer) as http:
        assert (await http.delete(f"/memories/{memory.id}")).is_success
        assert (await http.delete("/documents/notes")).is_success
    assert await changes(graph) == [
        ("delete", "writer"),
        ("forget", "writer"),
    ]
