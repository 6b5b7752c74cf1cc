"""A list announced near the end of a chunk is shown whole in a context, from a real store."""

from __future__ import annotations

from pathlib import Path

from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.pipeline import IngestPipeline
from loregraph.ingest.types import ExtractionResult, SourceDocument, TextChunk
from loregraph.retrieve.formats import format_context
from loregraph.retrieve.pipeline import Retriever
from loregraph.settings import PRESETS, Settings
from loregraph.store.sqlite import SqliteStore

STAGES = [
    ("Connection", "the client opens a session with the server over a socket."),
    ("Parsing", "the parser checks the syntax of the statement and builds a tree."),
    ("Rewriting", "the rewriter expands views into the tables they are defined on."),
    ("Planning", "the planner weighs every path and keeps the cheapest plan."),
    ("Execution", "the executor runs the plan and hands back the rows it produced."),
    ("Cleanup", "the server releases the memory and the locks the statement held."),
]
DETAIL = " It is described in a section of its own, with examples and the settings involved."


class _NoEntities:
    name = "none"

    async def extract(self, document: SourceDocument, chunks: list[TextChunk]) -> ExtractionResult:
        return ExtractionResult()


def _page() -> str:
    prose = "A server program accepts connections from many clients at the same time. " * 9
    items = "\n".join(f"{n}. {name}: {text}{DETAIL}" for n, (name, text) in enumerate(STAGES, 1))
    lead = "Every statement a client sends passes through the following stages in turn:"
    return f"# The Path of a Statement\n\n{prose}\n\n{lead}\n\n{items}\n\nThat is the whole path.\n"


async def test_a_context_shows_every_item_of_a_list_cut_by_the_chunk_end(tmp_path: Path) -> None:
    embedder = HashingEmbedder(dim=256)
    async with SqliteStore(tmp_path / "kg.db") as store:
        pipeline = IngestPipeline(store, _NoEntities(), embedder, Settings())
        page = SourceDocument("Internals", _page(), "/manual/path.md")
        other = SourceDocument("Clients", "A client sends one statement at a time.", "/c.md")
        assert (await pipeline.ingest([page, other])).ok
        retriever = Retriever(store, embedder, PRESETS["hybrid"])
        result = await retriever.retrieve("Through which stages does a statement pass?", "default")
        first = next(p for p in result.passages if "following stages" in p.text)
        assert "Cleanup" not in first.text  # the chunk ends inside the list
        assert "6. Cleanup" in first.following
        for budget in (300, 2000):
            context = format_context(result, "markdown", budget=budget)
            for n, (name, _) in enumerate(STAGES, 1):
                assert f"{n}. {name}:" in context, (budget, name)
        json_context = format_context(result, "json", budget=2000)
        assert '"following"' not in json_context  # the chunk is the passage
