"""The LLM contradiction check: the prompt it sends, the replies it reads (repaired or not),
and the facts it ends through the ingest, against the fake server."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.facts.contradict import STAGE, LLMContradictionCheck
from loregraph.ingest.facts.supersede import FactLine
from loregraph.models import Evidence, Relation
from loregraph.store.sqlite import SqliteStore

from .fake_server import Call, FakeLLMServer, Reply

JAN = datetime(2026, 1, 15, tzinfo=UTC)
FEB = datetime(2026, 2, 10, tzinfo=UTC)


def fact(rid: str, target: str, sentence: str) -> FactLine:
    rel = Relation(id=rid, source_id="api", target_id=target, type="USES", valid_at=JAN)
    rel.evidence.append(Evidence(chunk_id="c", sentence=sentence))
    return FactLine(rel, "API server", target.title())


NEW = [fact("n1", "hono", "The API server uses Hono."), fact("n2", "zod", "It uses Zod.")]
CURRENT = [fact("c1", "express", "The API server uses Express."), fact("c2", "ts", "TS.")]


async def test_the_pairs_the_model_names(server: FakeLLMServer, make_client) -> None:
    check = LLMContradictionCheck(make_client())
    server.push('{"contradictions": [{"new": 1, "current": 1}, {"new": 3, "current": 1}]}')
    assert await check(NEW, CURRENT, FEB) == [(0, 0)]  # 3 is no new fact: left out
    request = server.chat_calls()[0]
    assert "1. API server uses Hono since 2026-01-15" in request.last_user
    assert '2. API server uses Ts since 2026-01-15 ("TS.")' in request.last_user
    assert "of 2026-02-10" in request.last_user and "contradicts" in request.system


async def test_a_malformed_reply_is_repaired_or_asked_again(
    server: FakeLLMServer, make_client
) -> None:
    check = LLMContradictionCheck(make_client())
    server.push('Sure! {"contradictions": [{"new": "2", "current": "2"},]}')
    assert await check(NEW, CURRENT, FEB) == [(1, 1)]
    server.push('{"answer": "yes"}', '{"contradictions": []}')
    assert await check(NEW, CURRENT, FEB) == []


async def test_a_failing_model_ends_nothing(server: FakeLLMServer, make_client) -> None:
    client = make_client(max_retries=0)
    check = LLMContradictionCheck(client)
    server.push(Reply(status=400, error="bad request"))
    assert await check(NEW, CURRENT, FEB) == []
    assert client.usage.stage(STAGE).notes.get("contradiction_checks_failed") == 1
    assert await check(NEW, [], FEB) == []  # nothing to check: the model is not asked
    assert len(server.chat_calls()) == 1


def _contradicts_express(call: Call) -> Reply:
    """Names the new fact about Hono and the current one about Express, by their numbers."""
    text = call.last_user
    new_part, current_part = text.split("Current facts", 1)
    new = re.search(r"^(\d+)\. .*hono", new_part, re.MULTILINE | re.IGNORECASE)
    old = re.search(r"^(\d+)\. .*express", current_part, re.MULTILINE | re.IGNORECASE)
    pairs = [{"new": int(new.group(1)), "current": int(old.group(1))}] if new and old else []
    return Reply(content=json.dumps({"contradictions": pairs}))


async def test_the_ingest_ends_what_the_model_finds_contradicted(
    tmp_path: Path, make_client
) -> None:
    with FakeLLMServer(_contradicts_express) as fake:
        client = make_client(srv=fake)
        store = SqliteStore(tmp_path / "c.db")
        graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))
        graph.parts.contradiction_check = lambda: LLMContradictionCheck(client)  # type: ignore[method-assign]
        try:
            await graph.memories.remember("The API server uses Express.", at=JAN)
            hono = await graph.memories.remember("The API server uses Hono.", at=FEB)
            now = await graph.explore.relations("API server", direction="out", type="USES")
            assert [link.other_name for link in now.links] == ["Hono"]
            then = await graph.explore.relations("API server", type="USES", as_of=JAN)
            [express] = then.links
            assert express.other_name == "Express"
            assert (express.relation.invalid_at, express.relation.invalidated_by) == (FEB, hono.id)
            assert len(fake.chat_calls()) == 1  # the first memory had no current fact to check
        finally:
            await graph.close()
