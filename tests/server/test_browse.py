"""Browsing and graph queries over HTTP: the CLI's JSON shapes, 404 for unknown names,
422 for bad parameters, the neighbourhood drawn, the export."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from loregraph.store.base import SCHEMA_VERSION

from .conftest import Client, Keys, problem


async def test_entities_entity_documents_and_stats(client: Client, keys: Keys) -> None:
    async with client(keys.reader) as http:
        names = [e["name"] for e in (await http.get("/entities", params={"limit": 50})).json()]
        assert {"Count Dracula", "Mina Harker", "Jonathan Harker"} <= set(names)
        person = (await http.get("/entities", params={"type": "Person", "order": "name"})).json()
        assert [e["name"] for e in person] == sorted(e["name"] for e in person)
        view = (await http.get("/entity", params={"name": "mina harker"})).json()
        assert view["name"] == "Mina Harker"
        assert any(r["type"] == "IS_WIFE_OF" for r in view["relations"])
        assert all(r["type"] != "CO_OCCURS_WITH" for r in view["relations"])
        both = await http.get("/entity", params={"name": "Mina Harker", "co_occurrence": True})
        assert len(both.json()["relations"]) >= len(view["relations"])
        docs = (await http.get("/documents")).json()
        assert {d["title"] for d in docs} >= {"Harker notes"}
        stats = (await http.get("/stats")).json()
        assert stats["documents"] == 2 and stats["schema_version"] == SCHEMA_VERSION


async def test_unknown_names_are_404_problems(client: Client, keys: Keys) -> None:
    async with client(keys.reader) as http:
        body = problem(await http.get("/entity", params={"name": "Zzyzx Qwv"}), 404, "not-found")
        assert "Zzyzx Qwv" in body["detail"]
        problem(await http.get("/relations", params={"name": "Zzyzx Qwv"}), 404, "not-found")
        params = {"source": "Mina Harker", "target": "Zzyzx Qwv"}
        problem(await http.get("/path", params=params), 404, "not-found")
        problem(await http.get("/jobs/nope"), 404, "not-found")
        problem(await http.get("/no-such-route"), 404, "not-found")
        problem(await http.get("/entities", params={"scope": "empty"}), 403, "forbidden")


async def test_relations_neighbors_and_path(client: Client, keys: Keys) -> None:
    async with client(keys.reader) as http:
        rels = await http.get("/relations", params={"name": "Mina Harker", "direction": "out"})
        assert rels.json()["entity"] == "Mina Harker"
        assert {r["direction"] for r in rels.json()["relations"]} == {"out"}
        typed = {"name": "Mina Harker", "type": ["IS_WIFE_OF"]}
        [link] = (await http.get("/relations", params=typed)).json()["relations"]
        assert link["other"] == "Jonathan Harker"
        around = await http.get("/neighbors", params={"name": "Count Dracula", "hops": 2})
        assert around.json()["centre"] == "Count Dracula"
        assert {e["distance"] for e in around.json()["entities"]} == {0, 1, 2}
        drawn = await http.get("/neighbors", params={"name": "Count Dracula", "format": "mermaid"})
        assert drawn.text.startswith("graph") and "Count Dracula" in drawn.text
        xml = await http.get("/neighbors", params={"name": "Count Dracula", "format": "graphml"})
        assert xml.headers["content-type"].startswith("application/xml") and "<graphml" in xml.text
        params = {"source": "Mina Harker", "target": "Count Dracula"}
        [first, *_] = (await http.get("/path", params=params)).json()
        assert first["entities"][0] == "Mina Harker" and first["entities"][-1] == "Count Dracula"


async def test_as_of_and_bad_parameters(client: Client, keys: Keys) -> None:
    past = (datetime.now(UTC) - timedelta(days=3650)).isoformat()
    future = (datetime.now(UTC) + timedelta(days=30)).isoformat()
    async with client(keys.reader) as http:
        old = await http.get("/relations", params={"name": "Mina Harker", "as_of": past})
        assert old.status_code == 200
        later = await http.get("/neighbors", params={"name": "Mina Harker", "as_of": future})
        assert later.status_code == 200  # a later as_of is allowed: planned memories
        for params in ({"name": "Mina Harker", "hops": 7}, {"name": "", "hops": 1}):
            problem(await http.get("/neighbors", params=params), 422, "invalid-request")
        bad_time = {"name": "Mina Harker", "as_of": "yesterday-ish"}
        problem(await http.get("/relations", params=bad_time), 422, "invalid-request")
        same = {"source": "Mina Harker", "target": "Mina Harker"}
        problem(await http.get("/path", params=same), 422, "invalid-input")


async def test_export(client: Client, keys: Keys) -> None:
    async with client(keys.reader) as http:
        response = await http.get("/export")
        assert response.headers["content-disposition"] == 'attachment; filename="default.json"'
        graph = json.loads(response.content)
        assert {"Count Dracula", "Mina Harker"} <= {e["name"] for e in graph["entities"]}
        xml = await http.get("/export", params={"format": "graphml"})
        assert xml.text.startswith("<?xml")
    async with client(keys.admin) as http:
        problem(await http.get("/export", params={"scope": "empty"}), 404, "empty-scope")
