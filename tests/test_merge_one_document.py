"""A merge by hand of two entities that live in one document only: processing it again
deletes it first, so the entity kept exists only in what it makes again; the merge must
still join them (it used to leave both, reporting success), and undoing it part them."""

from __future__ import annotations

from pathlib import Path

import loregraph
from loregraph.embed.hashing import HashingEmbedder

TEXT = (
    "Mina Harker wrote in her journal at Whitby. Lucy Westenra walked on the cliffs. "
    "Mina Harker and Lucy Westenra talked of London. Lucy Westenra slept badly that night, "
    "and Mina Harker watched over Lucy Westenra until the morning came."
)


def _names(graph: loregraph.Graph) -> set[str]:
    return {e.name for e in graph.explore.entities(limit=None)}


def test_a_merge_within_one_document_joins_and_its_undo_parts(tmp_path: Path) -> None:
    graph = loregraph.open(tmp_path / "g.db", embedder=HashingEmbedder(dim=64))
    try:
        assert graph.ingest_text(TEXT, title="Whitby", source="whitby").ok
        before = _names(graph)
        assert {"Mina Harker", "Lucy"} <= before
        view = graph.corrections.merge("Mina Harker", "Lucy", by="test")
        merged = _names(graph)
        assert "Lucy" not in merged and "Mina Harker" in merged
        entity = next(e for e in graph.explore.entities(limit=None) if e.name == "Mina Harker")
        assert "Lucy" in entity.aliases
        graph.corrections.unmerge(view.id, by="test")
        assert _names(graph) == before
    finally:
        graph.close()
