"""A list announced near the end of a chunk is shown whole in a context, from a real store."""

from __future__ import annotations

from pathlib import Path

from retrieve_corpus import retrieve_from_chunks

from loregraph.ingest.types import SourceDocument
from loregraph.retrieve.context.assemble import assemble

STAGES = [
    ("Connection", "the client opens a session with the server over a socket."),
    ("Parsing", "the parser checks the syntax of the statement and builds a tree."),
    ("Rewriting", "the rewriter expands views into the tables they are defined on."),
    ("Planning", "the planner weighs every path and keeps the cheapest plan."),
    ("Execution", "the executor runs the plan and hands back the rows it produced."),
    ("Cleanup", "the server releases the memory and the locks the statement held."),
]
DETAIL = " It is described in a section of its own, with examples and the settings involved."


def _page() -> str:
    prose = "A server program accepts connections from many clients at the same time. " * 9
    items = "\n".join(f"{n}. {name}: {text}{DETAIL}" for n, (name, text) in enumerate(STAGES, 1))
    lead = "Every statement a client sends passes through the following stages in turn:"
    return f"# The Path of a Statement\n\n{prose}\n\n{lead}\n\n{items}\n\nThat is the whole path.\n"


async def test_a_context_shows_every_item_of_a_list_cut_by_the_chunk_end(tmp_path: Path) -> None:
    page = SourceDocument("Internals", _page(), "/manual/path.md")
    other = SourceDocument("Clients", "A client sends one statement at a time.", "/c.md")
    question = "Through which stages does a statement pass?"
    result = await retrieve_from_chunks(tmp_path / "kg.db", [page, other], question)
    first = next(p for p in result.passages if "following stages" in p.text)
    assert "Cleanup" not in first.text  # the chunk ends inside the list
    assert "6. Cleanup" in first.following
    for budget in (300, 2000):
        context = assemble(result, "markdown", budget=budget).text
        for n, (name, _) in enumerate(STAGES, 1):
            assert f"{n}. {name}:" in context, (budget, name)
    json_context = assemble(result, "json", budget=2000).text
    assert '"following"' not in json_context  # the chunk is the passage
