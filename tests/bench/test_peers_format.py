"""The peers benchmark's fake LLM: chunk lookup, selection and each peer's output format.

Runs in the main venv. The last test also feeds the rendered rows to the installed peers'
own parsers (LightRAG's ``_process_extraction_result``, nano-graphrag's record handlers) in
the peers venv, and is skipped when ``.venv-peers`` does not exist.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest
from bench.peers.corpus import Corpus, CorpusDoc, RecordedDoc, RecordedEntity, RecordedRelation
from bench.peers.embedding import DIM, embed_texts
from bench.peers.fake_llm import LightRAGFakeLLM, NanoFakeLLM, question_keywords
from bench.peers.render import (
    ChunkIndex,
    ChunkSelection,
    parse_lightrag,
    parse_nano,
    render_lightrag,
    render_nano,
)

ROOT = Path(__file__).resolve().parents[2]
PEERS_PYTHON = ROOT / ".venv-peers" / "bin" / "python"

FIRST = (
    "Alice Moor lived in Harwick. Alice wrote letters to Bram Cole every week.\n\n"
    "Alice Moor met Bram Cole in Tallin, where he worked for the Tallin Railway."
)
SECOND_PARAGRAPH = FIRST.split("\n\n")[1]
SECOND = "Carla Finch founded the Finch Institute in Oldport. Oldport is a harbour town."


def _corpus() -> Corpus:
    docs = [CorpusDoc("d1", "Letters", FIRST), CorpusDoc("d2", "Finch", SECOND)]
    return Corpus("tiny", "test corpus", docs, ["Who is Bram Cole?"])


def _recorded() -> list[RecordedDoc]:
    first = RecordedDoc(
        "d1",
        [
            RecordedEntity("Alice Moor", "PERSON", "", ["Alice"]),
            RecordedEntity("Bram Cole", "PERSON", "A correspondent <|#|> of Alice."),
            RecordedEntity("Tallin", "GPE", "", kept=False),
            RecordedEntity("Harwick", "GPE"),
        ],
        [
            RecordedRelation(
                "Alice Moor", "Bram Cole", "WROTE_TO", "", 2.0,
                ["Alice wrote letters to Bram Cole every week."],
            ),
            RecordedRelation(
                "Bram Cole", "Tallin", "LIVES_IN", "Bram Cole worked in Tallin.", 1.0,
                ["Alice Moor met Bram Cole in Tallin, where he worked for the Tallin Railway."],
            ),
        ],
    )  # fmt: skip
    second = RecordedDoc(
        "d2",
        [RecordedEntity("Carla Finch", "PERSON"), RecordedEntity("Oldport", "GPE")],
        [RecordedRelation("Carla Finch", "Oldport", "FOUNDED_IN", "", 1.0, [])],
    )
    return [first, second]


def test_chunk_is_traced_to_its_document_and_entities_found_by_surface() -> None:
    index = ChunkIndex(_corpus(), _recorded())
    assert index.locate(FIRST[FIRST.index("\n\n") :]) == 0
    assert index.locate("Letters\n\n" + FIRST) == 0  # the peer text starts with the title
    assert index.locate(SECOND[:40]) == 1
    assert index.locate("text that is in no document at all, anywhere") is None

    selection = index.select("Harwick. Alice wrote letters to Bram Cole every week.")
    assert [e.name for e in selection.entities] == ["Alice Moor", "Bram Cole", "Harwick"]
    assert [(r.source, r.target) for r in selection.relations] == [("Alice Moor", "Bram Cole")]


def test_relation_needs_its_evidence_sentence_in_the_chunk() -> None:
    index = ChunkIndex(_corpus(), _recorded())
    selection = index.select(SECOND_PARAGRAPH)
    assert {e.name for e in selection.entities} == {"Alice Moor", "Bram Cole", "Tallin"}
    assert [r.type for r in selection.relations] == ["LIVES_IN"]  # not WROTE_TO


def test_kept_only_drops_entities_loregraph_does_not_keep_and_their_relations() -> None:
    kept = ChunkIndex(_corpus(), _recorded(), kept_only=True).select(SECOND_PARAGRAPH)
    assert [e.name for e in kept.entities] == ["Alice Moor", "Bram Cole"]
    assert kept.relations == []


def _selection() -> ChunkSelection:
    return ChunkIndex(_corpus(), _recorded()).select(FIRST)


def test_lightrag_rows_round_trip_and_carry_no_stray_delimiters() -> None:
    selection = _selection()
    text = render_lightrag(selection)
    names, pairs = parse_lightrag(text)
    assert names == [e.name for e in selection.entities]
    assert pairs == [(r.source, r.target) for r in selection.relations]
    assert text.endswith("<|COMPLETE|>")
    assert all(len(line.split("<|#|>")) in (4, 5) for line in text.splitlines()[:-1])


def test_nano_records_round_trip() -> None:
    selection = _selection()
    names, pairs = parse_nano(render_nano(selection))
    assert names == [e.name for e in selection.entities]
    assert pairs == [(r.source, r.target) for r in selection.relations]


def test_fake_llms_answer_each_prompt_kind() -> None:
    index = ChunkIndex(_corpus(), _recorded())
    lightrag = LightRAGFakeLLM(index)
    prompt = f"---Task---\n---Input Text---\n```\n{SECOND}\n```\n\n---Output---\n"
    rows = asyncio.run(lightrag(prompt, system_prompt="extract"))
    assert parse_lightrag(rows)[0] == ["Carla Finch", "Oldport"]
    keywords = json.loads(asyncio.run(lightrag("User Query: Who founded the Finch Institute?")))
    assert keywords["low_level_keywords"] == ["Finch Institute"]
    assert "founded" in keywords["high_level_keywords"]
    assert lightrag.calls == {"extract": 1, "keywords": 1}

    nano = NanoFakeLLM(index)
    real = f"-Real Data-\nEntity_types: person\nText: {SECOND}\n{'#' * 22}\nOutput:\n"
    assert parse_nano(asyncio.run(nano(real)))[0] == ["Carla Finch", "Oldport"]
    report = json.loads(asyncio.run(nano("Write a comprehensive report of a community ...")))
    assert {"title", "summary", "rating", "findings"} <= report.keys()


def test_question_keywords_split_names_from_content_words() -> None:
    high, low = question_keywords("Where was the director of Blue Harbor born?")
    assert low == ["Blue Harbor"]
    assert high == ["director", "born"]


def test_shared_embedding_is_deterministic_and_normalised() -> None:
    vectors = embed_texts(["Count Dracula", "count dracula", ""])
    assert vectors.shape == (3, DIM)
    assert np.allclose(vectors[0], vectors[1])
    assert np.isclose(np.linalg.norm(vectors[0]), 1.0)
    assert not vectors[2].any()


_PEER_CHECK = textwrap.dedent(
    """
    import asyncio, json, sys
    from bench.peers.render import render_lightrag, render_nano
    from bench.peers.corpus import RecordedEntity, RecordedRelation
    from bench.peers.render import ChunkSelection
    from lightrag.operate import _process_extraction_result
    from nano_graphrag._op import (
        _handle_single_entity_extraction, _handle_single_relationship_extraction)
    from nano_graphrag._utils import split_string_by_multi_markers
    import re

    data = json.loads(sys.stdin.read())
    sel = ChunkSelection([RecordedEntity(**e) for e in data["entities"]],
                         [RecordedRelation(**r) for r in data["relations"]])
    nodes, edges = asyncio.run(_process_extraction_result(render_lightrag(sel), "c1", 0))
    out = {"lightrag": [sorted(nodes), sorted(map(list, edges))]}
    names, pairs = [], []
    for record in split_string_by_multi_markers(render_nano(sel), ["##", "<|COMPLETE|>"]):
        m = re.search(r"\\((.*)\\)", record)
        attrs = split_string_by_multi_markers(m.group(1), ["<|>"])
        ent = asyncio.run(_handle_single_entity_extraction(attrs, "c1"))
        if ent:
            names.append(ent["entity_name"])
            continue
        rel = asyncio.run(_handle_single_relationship_extraction(attrs, "c1"))
        if rel:
            pairs.append([rel["src_id"], rel["tgt_id"]])
    out["nano"] = [sorted(names), sorted(pairs)]
    print(json.dumps(out))
    """
)


@pytest.mark.skipif(not PEERS_PYTHON.exists(), reason="peers venv (.venv-peers) not installed")
def test_peers_own_parsers_read_the_rendered_rows() -> None:
    selection = _selection()
    payload = json.dumps(
        {
            "entities": [
                {"name": e.name, "type": e.type, "description": e.description}
                for e in selection.entities
            ],
            "relations": [
                {"source": r.source, "target": r.target, "type": r.type, "weight": r.weight}
                for r in selection.relations
            ],
        }
    )
    done = subprocess.run(
        [str(PEERS_PYTHON), "-c", _PEER_CHECK],
        input=payload,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    names = sorted(e.name for e in selection.entities)
    pairs = sorted([r.source, r.target] for r in selection.relations)
    assert result["lightrag"] == [names, pairs]
    assert result["nano"] == [
        sorted(f'"{n.upper()}"' for n in names),
        sorted([f'"{s.upper()}"', f'"{t.upper()}"'] for s, t in pairs),
    ]
