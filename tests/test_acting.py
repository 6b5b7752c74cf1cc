"""The engine acting for a principal: a view of one engine bound to it, never a principal
read from the surroundings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import loregraph
from loregraph import AsyncGraph, Principal, Role
from loregraph.embed.hashing import HashingEmbedder
from loregraph.errors import InputError, NotAllowedError

SRC = Path(__file__).resolve().parents[1] / "src" / "loregraph"


async def test_a_bound_engine_sees_and_does_what_its_principal_may(tmp_path: Path) -> None:
    graph = AsyncGraph(loregraph.open_store(tmp_path / "kg.db"), embedder=HashingEmbedder(dim=64))
    await graph.open()
    try:
        await graph.ingest_text("Ada Lovelace wrote the notes.", title="Notes", scope="lab")
        await graph.ingest_text(
            "Ada Lovelace hid the key.", title="Diary", scope="lab", visibility="private"
        )
        ann = graph.acting_as(Principal("ann", {"lab": Role.READER}))
        assert ann.principal is not None and graph.principal is None  # the engine is unchanged
        assert {d.title for d in await ann.documents(scope="lab")} == {"Notes"}
        assert {d.title for d in await graph.documents(scope="lab")} == {"Notes", "Diary"}
        with pytest.raises(NotAllowedError, match="'ann' may not remember"):
            await ann.memories.remember("Ann was here.", scope="lab")
        stranger = graph.acting_as(Principal("zed", {}))
        with pytest.raises(NotAllowedError, match="'zed' has no role in scope 'lab'"):
            await stranger.ask("Who wrote the notes?", scope="lab")
    finally:
        await graph.close()


@pytest.mark.parametrize("name", ["", "   "])
async def test_a_blank_principal_is_refused_never_the_operator(tmp_path: Path, name: str) -> None:
    graph = AsyncGraph(loregraph.open_store(tmp_path / "kg.db"), embedder=HashingEmbedder(dim=64))
    with pytest.raises(InputError, match="a principal needs a name"):
        graph.acting_as(Principal(name, {"*": Role.OWNER}))


def test_retrieval_ingest_and_stores_read_no_principal_from_the_surroundings() -> None:
    pattern = re.compile(r"ContextVar|current_principal|acting_as\(")
    found = [
        f"{path.relative_to(SRC)}:{n}"
        for package in ("retrieve", "ingest", "store")
        for path in sorted((SRC / package).rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, found
