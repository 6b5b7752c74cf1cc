"""``--json`` prints each model's one shape (its ``to_dict()``); where the LLM cache goes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli_runs import as_json, run
from loregraph.cli.app import main
from loregraph.cli.runner import Context, settings_for
from loregraph.location import SERVER_LLM_CACHE

ENTITY_KEYS = {"id", "name", "type", "mentions", "aliases", "description"}
RELATION_KEYS = {"source", "type", "target", "weight", "confidence", "evidence"}
HIT_KEYS = {"kind", "id", "title", "score", "relevance", "relevant", "extra"}
STATS_KEYS = {
    "documents",
    "chunks",
    "entities",
    "relations",
    "mentions",
    "schema_version",
    "relation_types",
    "entity_types",
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("json")
    (root / "note.txt").write_text(
        "Mina Harker wrote to Lucy Westenra from Exeter. Lucy Westenra lived in Whitby "
        "with her mother. Arthur Holmwood proposed to Lucy Westenra in London.",
        encoding="utf-8",
    )
    (root / "other.txt").write_text(
        "Jonathan Harker travelled to Transylvania to meet Count Dracula.", encoding="utf-8"
    )
    db = root / "kg.db"
    report = as_json(db, "ingest", str(root / "note.txt"), str(root / "other.txt"))
    assert report["ingested"] == 2 and len(report["document_ids"]) == 2
    yield db


def test_entities_and_entity(store: Path) -> None:
    listed = as_json(store, "entities")
    assert listed and all(set(item) == ENTITY_KEYS for item in listed)
    lucy = as_json(store, "entity", "Lucy Westenra", "--co-occurrence")
    assert set(lucy) == ENTITY_KEYS | {"relations"}
    assert lucy["name"] == "Lucy Westenra" and lucy["mentions"] >= 3
    assert lucy["relations"] and all(set(r) == RELATION_KEYS for r in lucy["relations"])
    ends = {name for r in lucy["relations"] for name in (r["source"], r["target"])}
    assert "Lucy Westenra" in ends and "Mina Harker" in ends  # names, not ids
    assert all(len(r["evidence"]) <= 3 for r in lucy["relations"])


def test_documents_stats_scopes(store: Path) -> None:
    docs = as_json(store, "documents")
    fields = {"id", "title", "source", "chars", "status", "visibility", "owner"}
    assert [set(d) for d in docs] == [fields] * 2
    assert {d["status"] for d in docs} == {"done"}
    stats = as_json(store, "stats")
    assert set(stats) == STATS_KEYS and stats["documents"] == 2
    assert as_json(store, "scopes") == {"default": stats}


@pytest.mark.parametrize("kind", ["--documents", "--entities", "--relations"])
def test_search_hits(store: Path, kind: str) -> None:
    found = as_json(store, "search", "Who proposed to Lucy Westenra?", kind)
    assert set(found) == {"relevant", "relevance", "threshold", "hits"} and found["relevant"]
    hits = found["hits"]
    assert hits and all(set(hit) == HIT_KEYS for hit in hits)


def test_ask(store: Path) -> None:
    answer = as_json(store, "ask", "Who proposed to Lucy Westenra?")
    assert set(answer) == {"question", "answer", "found", "llm", "citations"}
    assert answer["llm"] is False and answer["citations"]
    assert set(answer["citations"][0]) == {
        "index",
        "document_id",
        "document_title",
        "chunk_id",
        "seq",
        "start",
        "end",
        "quote",
        "section",
    }


def test_delete_report(store: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    assert CliRunner().invoke(main, ["copy", str(store), str(copy)]).exit_code == 0
    doc = next(d for d in as_json(copy, "documents") if d["title"] == "other")
    report = as_json(copy, "delete", doc["id"])
    assert report["document_id"] == doc["id"] and report["chunks"] == 1
    assert set(report) == {
        "document_id",
        "chunks",
        "mentions",
        "entities_removed",
        "relations_removed",
        "relations_weakened",
    }
    assert [d["title"] for d in as_json(copy, "documents")] == ["note"]


def test_a_missing_sqlite_url_is_an_empty_store(tmp_path: Path) -> None:
    result = run(f"sqlite://{tmp_path}/none.db", "stats")
    assert result.exit_code == 4
    assert "no database at sqlite://" in result.output and "ingest documents first" in result.output
    assert not (tmp_path / "none.db").exists()


@pytest.mark.parametrize(
    ("db", "expected"),
    [
        ("kg.db", Path("kg.db.llm-cache.sqlite")),
        ("sqlite://data/kg.db", Path("data/kg.db.llm-cache.sqlite")),
        ("postgresql://kg@localhost/graph", SERVER_LLM_CACHE),
        (":memory:", None),
    ],
)
def test_llm_cache_follows_the_location(
    monkeypatch: pytest.MonkeyPatch, db: str, expected: Path | None
) -> None:
    monkeypatch.delenv("LOREGRAPH_LLM_CACHE_PATH", raising=False)
    llm = {"provider": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1"}
    settings = settings_for(Context(db=db, scope=None, preset=None, llm=llm))
    assert settings.llm.cache_path == (str(expected) if expected else None)
    off = settings_for(Context(db=db, scope=None, preset=None, llm={**llm, "cache": False}))
    assert off.llm.cache_path is None
