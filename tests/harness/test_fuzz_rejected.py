"""Fuzz rejected ingests: a command with one bad input (among good ones, in any position)
fails with an input error and leaves the store exactly as it was.

The store holds a tiny corpus (SQLite, hashing embedder). Each example writes some good new
documents (sometimes more than one ingest batch of them) and one bad input (a binary,
undecodable or wordless file, a record file with one bad record after good ones, a folder
with nothing readable, bad stdin), ingests them all in one call, and compares the store's
stats, documents and full export with the snapshot taken before the first example.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loregraph.errors import LoregraphError
from loregraph.graph import AsyncGraph

from .fuzzing import fuzz, scratch, tally
from .strategies import SIGNATURES
from .tiny import LoopRunner, open_tiny

SCOPE = "default"

WORDS = st.lists(st.sampled_from(["Mina", "wrote", "to", "Van", "Helsing", "from", "Whitby"]))
GOOD_TEXT = WORDS.filter(lambda w: len(w) >= 2).map(" ".join).map(lambda t: f"{t}.")
NO_WORDS = st.text(st.sampled_from(" \t\n.,;:!?-—…*()[]\"'"), max_size=40)
BAD_JSON_LINES = [
    "{not json",
    '"just a string"',
    "[1, 2]",
    '{"title": "no text"}',
    '{"text": 5}',
    '{"text": "ok", "id": [1]}',
    '{"text": "ok", "id": ""}',
    '{"text": "ok", "title": 7}',
    '{"text": "ok", "n": NaN}',
    '{"text": "\\ud800 lone"}',
    '{"text": "nul\\u0000"}',
    '{"text": "deep", "x": ' + "[" * 5000 + "]" * 5000 + "}",
    '{"text": "big", "n": ' + "9" * 5000 + "}",
]


@st.composite
def bad_input(draw: st.DrawFn) -> tuple[str, Any]:
    """One input that must be refused: ``(kind, payload)``."""
    kind = draw(
        st.sampled_from(
            ["binary", "nul", "latin1", "no-words", "records", "dup-ids", "folder", "stdin"]
        )
    )
    if kind == "binary":
        signature = draw(st.sampled_from([s for s in SIGNATURES if s != b"\xef\xbb\xbf"]))
        return kind, signature + draw(st.binary(max_size=40))
    if kind == "nul":
        return kind, draw(GOOD_TEXT).encode() + b"\x00" + draw(st.binary(max_size=10))
    if kind == "latin1":
        return kind, draw(GOOD_TEXT).encode() + b" caf\xe9 " + draw(GOOD_TEXT).encode()
    if kind == "no-words":
        return kind, draw(NO_WORDS).encode()
    if kind == "records":
        good = draw(st.lists(GOOD_TEXT, max_size=3))
        lines = [json.dumps({"text": t}) for t in good]
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(BAD_JSON_LINES)))
        return kind, "\n".join(lines) + "\n"
    if kind == "dup-ids":
        texts = draw(st.lists(GOOD_TEXT, min_size=2, max_size=4))
        rows = [{"id": f"r{i}", "text": t} for i, t in enumerate(texts)]
        rows[-1]["id"] = rows[0]["id"]
        return kind, json.dumps(rows)
    if kind == "folder":
        files = draw(
            st.lists(
                st.tuples(
                    st.sampled_from(["a.txt", "b.md", "c.bin", "d.json", ".e.txt", "f.csv"]),
                    st.one_of(NO_WORDS.map(str.encode), st.binary(max_size=30).map(b"\0".__add__)),
                ),
                max_size=4,
            )
        )
        return kind, files
    stdin = draw(
        st.one_of(
            NO_WORDS.map(str.encode),
            st.just(b"\xff\xfe not utf-8"),
            GOOD_TEXT.map(lambda t: t.encode() + b"\x00"),
            st.just(b"fine words, but the id is blank"),
        )
    )
    return kind, stdin


async def _snapshot(graph: AsyncGraph) -> dict[str, Any]:
    stats = await graph.stats()
    exported = io.BytesIO()
    await graph.export(exported)
    documents = [
        (d.id, d.source, d.content_hash, d.title) for d in await graph.store.list_documents(SCOPE)
    ]
    return {
        "stats": asdict(stats),
        "export": exported.getvalue(),
        "documents": documents,
        "scopes": await graph.store.scopes(),
    }


class Tiny:
    def __init__(self, run: LoopRunner, graph: AsyncGraph) -> None:
        self.run = run
        self.graph = graph
        self.snapshot = run(_snapshot(graph))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tiny]:
    with open_tiny(tmp_path_factory.mktemp("tiny-rejected")) as (run, graph):
        yield Tiny(run, graph)


def _write_bad(where: Path, kind: str, payload: Any) -> tuple[str, bytes | None, str | None]:
    """The bad input as ``(path or "-", stdin bytes, stdin id)``."""
    if kind == "stdin":
        blank_id = payload.startswith(b"fine words")
        return "-", payload, "  " if blank_id else None
    if kind == "folder":
        folder = where / "bad-folder"
        folder.mkdir()
        for name, data in payload:
            (folder / name).write_bytes(data)
        return str(folder), None, None
    if kind in ("records", "dup-ids"):
        path = where / ("bad.jsonl" if kind == "records" else "bad.json")
        path.write_text(payload, encoding="utf-8")
        return str(path), None, None
    path = where / f"bad-{kind}.txt"
    path.write_bytes(payload)
    return str(path), None, None


@fuzz(500)
@given(
    good=st.lists(st.tuples(GOOD_TEXT, st.sampled_from(["txt", "md", "jsonl"])), max_size=3),
    bad=bad_input(),
    position=st.integers(0, 4),
    many=st.booleans(),
)
def test_a_command_with_one_bad_input_writes_nothing(
    tiny: Tiny, good: list[tuple[str, str]], bad: tuple[str, Any], position: int, many: bool
) -> None:
    tally("rejected ingest")
    with scratch() as where:
        paths: list[str] = []
        if many:  # more records than one ingest batch holds (64): some would be written
            lots = where / "many.jsonl"
            rows = (
                json.dumps({"id": f"many-{i}", "text": f"Note {i} from Whitby."}) for i in range(70)
            )
            lots.write_text("\n".join(rows) + "\n", "utf-8")
            paths.append(str(lots))
        for index, (text, kind) in enumerate(good):
            path = where / f"good-{index}.{kind}"
            if kind == "jsonl":
                path.write_text(json.dumps({"id": f"new-{index}", "text": text}) + "\n", "utf-8")
            else:
                path.write_text(text, "utf-8")
            paths.append(str(path))
        bad_path, stdin, stdin_id = _write_bad(where, *bad)
        paths.insert(min(position, len(paths)), bad_path)
        with pytest.raises(LoregraphError) as refused:
            tiny.run(
                tiny.graph.ingest(
                    *paths,
                    stdin=io.TextIOWrapper(io.BytesIO(stdin)) if stdin is not None else None,
                    stdin_id=stdin_id,
                )
            )
        assert str(refused.value).strip()
    assert tiny.run(_snapshot(tiny.graph)) == tiny.snapshot, "a refused ingest changed the store"
