"""A store written before documents kept their blank runs (`ingest/chunk/blanks.py`): a document
whose text no guess rebuilds cannot be merged, with one message naming the recovery, and
ingesting its file again (not skipped as unchanged) stores the runs and makes it work."""

from __future__ import annotations

from pathlib import Path

import pytest

import loregraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.errors import LoregraphError
from loregraph.ingest.chunk.blanks import BLANKS
from loregraph.settings import ChunkSettings, Settings

PARAGRAPH = (
    "Mina Harker wrote in her journal at Whitby. Lucy Westenra walked on the cliffs. "
    "Mina Harker and Lucy Westenra talked of London until the evening came."
)
TEXT = f"CHAPTER I\n\n{PARAGRAPH}\n \t \n\nCHAPTER II\n\n{PARAGRAPH}\n"


def _open(db: Path) -> loregraph.Graph:
    settings = Settings(chunk=ChunkSettings(size=200, overlap=20))
    return loregraph.open(db, embedder=HashingEmbedder(dim=64), settings=settings)


def _as_an_older_version_stored_it(graph: loregraph.Graph) -> None:
    (doc,) = graph.documents()
    bundle = graph._run(graph.store.read_bundle(doc.id))
    assert bundle is not None and any("\t" in run for run in bundle.document.metadata[BLANKS])
    del bundle.document.metadata[BLANKS]
    graph._run(graph.store.write_document(bundle))


def test_an_older_document_names_the_recovery_and_ingesting_it_again_recovers(
    tmp_path: Path,
) -> None:
    path = tmp_path / "whitby.md"
    path.write_text(TEXT, encoding="utf-8")
    graph = _open(tmp_path / "g.db")
    try:
        assert graph.ingest(str(path)).ok
        _as_an_older_version_stored_it(graph)
        with pytest.raises(LoregraphError) as caught:
            graph.corrections.merge("Mina Harker", "Lucy Westenra", by="test")
        message = str(caught.value)
        assert "\n" not in message
        assert "an earlier loregraph stored it without the blank text" in message
        assert f"ingest its file ({path.resolve()}) again, then retry" in message
        assert "Lucy Westenra" in {
            e.name for e in graph.explore.entities(limit=None)
        }  # nothing changed

        again = graph.ingest(str(path))
        assert again.ok and again.replaced == 1 and again.skipped == 0
        (doc,) = graph.documents()
        assert BLANKS in doc.metadata
        assert graph.ingest(str(path)).skipped == 1  # from now on unchanged again

        graph.corrections.merge("Mina Harker", "Lucy Westenra", by="test")
        assert "Lucy Westenra" not in {e.name for e in graph.explore.entities(limit=None)}
    finally:
        graph.close()
