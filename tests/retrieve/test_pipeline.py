"""The retrieval pipeline against a real SQLite store: stages, presets, scopes, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from retrieve_corpus import OSRAY, build_bundle

from loregraph.embed.hashing import HashingEmbedder
from loregraph.errors import EmptyStoreError, InputError
from loregraph.models import CO_OCCURS, Entity
from loregraph.retrieve.context.assemble import assemble
from loregraph.retrieve.graph.graphindex import GraphCache
from loregraph.retrieve.pipeline import Retriever
from loregraph.settings import PRESETS
from loregraph.text.tokens import count_tokens

QUESTION = "How did Elena Varga reach Osray?"


def eid(name: str, scope: str = "default") -> str:
    return Entity.make_id(scope, name)


async def test_seeds_expansion_and_passages(store: Any, embedder: HashingEmbedder) -> None:
    result = await Retriever(store, embedder, PRESETS["hybrid"]).retrieve(QUESTION, "default")
    seed_ids = [s.entity.id for s in result.start_entities]
    assert seed_ids[:2] == [eid("Elena Varga"), eid("Osray")]
    assert "exact" in result.start_entities[0].found_by
    entity_ids = [e.entity.id for e in result.entities]
    assert eid("Meridian") in entity_ids  # one hop from both seeds
    assert result.entities[0].is_start
    assert result.passages and all(p.text and p.document_title for p in result.passages)
    assert {d.title for d in result.documents} <= {"The Voyage of the Meridian", "Osray Chronicles"}
    assert result.documents[0].best_chunk_id in {p.chunk_id for p in result.passages}


async def test_every_stage_reports_time_and_count(store: Any, embedder: HashingEmbedder) -> None:
    result = await Retriever(store, embedder).retrieve(QUESTION, "default")
    for name in ("analyze", "embed", "graph", "start", "expand", "passages", "total"):
        assert {"ms", "count"} <= set(result.debug[name]), name
        assert result.debug[name]["ms"] >= 0
    assert result.debug["start"]["count"] == len(result.start_entities)
    assert result.debug["passages"]["count"] == len(result.passages)
    assert result.stages_run() == [
        "analyze",
        "embed",
        "graph",
        "start",
        "expand",
        "passages",
        "time",
        "relevance",
        "total",
    ]


async def test_typed_relation_replaces_co_occurrence(store: Any, embedder: HashingEmbedder) -> None:
    result = await Retriever(store, embedder).retrieve(
        "Did Elena Varga trust Tomas Reyes?", "default"
    )
    pairs = {
        (r.relation.type, frozenset((r.relation.source_id, r.relation.target_id)))
        for r in result.relations
    }
    varga_reyes = frozenset((eid("Elena Varga"), eid("Tomas Reyes")))
    assert ("TRUSTS", varga_reyes) in pairs
    assert (CO_OCCURS, varga_reyes) not in pairs


@pytest.mark.parametrize(
    ("preset", "seed_finders", "expansion", "passage_finders"),
    [
        ("local", ["exact", "fuzzy", "bm25", "vector"], "bfs", ["mentions", "facts"]),
        ("global", ["bm25", "vector"], "bfs", ["mentions", "facts", "bm25", "vector"]),
        (
            "hybrid",
            ["exact", "fuzzy", "bm25", "vector"],
            "bfs",
            ["mentions", "facts", "bm25", "vector"],
        ),
        ("passages", None, None, ["bm25", "vector"]),
        (
            "ppr",
            ["exact", "fuzzy", "bm25", "vector"],
            "ppr",
            ["mentions", "facts", "bm25", "vector", "ppr"],
        ),
    ],
)
async def test_presets_select_stages(
    store: Any,
    embedder: HashingEmbedder,
    preset: str,
    seed_finders: list[str] | None,
    expansion: str | None,
    passage_finders: list[str],
) -> None:
    result = await Retriever(store, embedder, PRESETS[preset]).retrieve(QUESTION, "default")
    assert result.preset == preset
    if seed_finders is None:
        assert result.debug["start"].get("skipped") and result.start_entities == []
        assert result.debug["graph"].get("skipped")  # no graph work at all
    else:
        assert result.debug["start"]["ran"] == seed_finders
    if expansion is None:
        assert result.debug["expand"].get("skipped")
    else:
        assert result.debug["expand"]["mode"] == expansion
    assert result.debug["passages"]["ran"] == passage_finders
    assert result.passages


async def test_global_preset_reaches_one_hop(store: Any, embedder: HashingEmbedder) -> None:
    result = await Retriever(store, embedder, PRESETS["global"]).retrieve(QUESTION, "default")
    assert all(e.hop is None or e.hop <= 1 for e in result.entities)


async def test_per_call_settings_override(store: Any, embedder: HashingEmbedder) -> None:
    retriever = Retriever(store, embedder, PRESETS["hybrid"])
    result = await retriever.retrieve(QUESTION, "default", settings=PRESETS["passages"])
    assert result.preset == "passages" and result.start_entities == []


async def test_empty_scope_raises(store: Any, embedder: HashingEmbedder) -> None:
    with pytest.raises(EmptyStoreError, match="ingest"):
        await Retriever(store, embedder).retrieve(QUESTION, "nobody")


async def test_blank_question_raises(store: Any, embedder: HashingEmbedder) -> None:
    with pytest.raises(InputError):
        await Retriever(store, embedder).retrieve("  ", "default")


async def test_works_without_an_embedder(store: Any) -> None:
    result = await Retriever(store, None).retrieve(QUESTION, "default")
    assert result.debug["embed"]["count"] == 0
    assert "vector" not in result.debug["start"]["ran"]
    assert result.passages


async def test_empty_store_raises(tmp_path: Path, embedder: HashingEmbedder) -> None:
    from loregraph.store.sqlite import SqliteStore

    async with SqliteStore(tmp_path / "empty.db") as empty:
        with pytest.raises(EmptyStoreError):
            await Retriever(empty, embedder).retrieve(QUESTION, "default")


@pytest.mark.parametrize("preset", sorted(PRESETS))
async def test_scopes_are_isolated(store: Any, embedder: HashingEmbedder, preset: str) -> None:
    retriever = Retriever(store, embedder, PRESETS[preset])
    other = await retriever.retrieve("What is the Meridian?", "other")
    assert {p.document_title for p in other.passages} == {"Hotel Meridian"}
    assert all(e.entity.scope == "other" for e in other.entities)
    default = await retriever.retrieve("What is the Meridian?", "default")
    assert "Hotel Meridian" not in {p.document_title for p in default.passages}
    assert all(e.entity.id != eid("Meridian", "other") for e in default.entities)


async def test_graph_index_is_cached_until_the_graph_changes(
    store: Any, embedder: HashingEmbedder
) -> None:
    cache = GraphCache()
    retriever = Retriever(store, embedder, PRESETS["ppr"], graph_cache=cache)
    first = await retriever.retrieve(QUESTION, "default")
    second = await retriever.retrieve("Who is Ines Mora?", "default")
    assert first.debug["graph"]["rebuilt"] is True
    assert second.debug["graph"]["rebuilt"] is False
    await store.write_document(
        build_bundle("default", "Osray Again", "osray2.txt", OSRAY + " Osray grew.", embedder)
    )
    third = await retriever.retrieve(QUESTION, "default")
    assert third.debug["graph"]["rebuilt"] is True
    assert "Osray Again" in {p.document_title for p in third.passages}


async def test_ppr_ranks_the_seeds_neighbourhood(store: Any, embedder: HashingEmbedder) -> None:
    result = await Retriever(store, embedder, PRESETS["ppr"]).retrieve(
        "Who is the sister of Tomas Reyes?", "default"
    )
    names = [e.entity.name for e in result.entities]
    assert names[0] == "Tomas Reyes"
    assert "Ines Mora" in names[:4]
    assert any("Ines Mora is the sister of Tomas Reyes" in p.text for p in result.passages[:3])


async def test_context_from_a_real_result_fits_its_budget(
    store: Any, embedder: HashingEmbedder
) -> None:
    result = await Retriever(store, embedder, PRESETS["hybrid"].replace(token_budget=300)).retrieve(
        QUESTION, "default"
    )
    text = assemble(result).text
    assert count_tokens(text) <= 300
    assert text.startswith("## Knowledge Graph Context")
    assert "- Elena Varga:" in text
