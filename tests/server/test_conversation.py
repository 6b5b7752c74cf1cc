"""The ``conversation`` field of the question routes: a conversation's follow-up questions
resolve the names it already used from the engine's cache, and the debug report shows the
graph layer's state."""

from __future__ import annotations

from loregraph import AsyncGraph

from .conftest import Client, Keys, problem


async def test_a_conversation_reuses_the_names_it_resolved(
    graph: AsyncGraph, client: Client, keys: Keys
) -> None:
    async with client(keys.admin) as http:
        first = {"question": "Where did Count Dracula live?", "conversation": "chat-1"}
        assert (await http.post("/ask/json", json=first)).is_success
        before = graph.graph_status().names
        follow = {"question": "Whom did Count Dracula meet?", "conversation": "chat-1"}
        response = await http.post("/context", params={"debug": "true"}, json=follow)
        assert response.is_success
        after = graph.graph_status().names
        assert after.hits > before.hits  # "count dracula" was known to the conversation
        graph_state = response.json()["debug"]["graph"]
        assert graph_state["circuit"] == "closed" and not graph_state["fallback"]
        assert graph_state["caches"]["names"]["hits"] == after.hits
        stream = await http.post("/ask", json={**follow, "conversation": "chat-1"})
        assert stream.is_success
        assert graph.graph_status().names.hits > after.hits
        too_long = {"question": "Where?", "conversation": "c" * 201}
        problem(await http.post("/ask/json", json=too_long), 422, "invalid-request")
