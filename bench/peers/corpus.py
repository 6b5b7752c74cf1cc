"""Corpora, questions and recorded extractions as plain JSON-able records (stdlib only).

Both environments read these files: the main venv writes them, the peers' subprocesses read
them. A corpus file holds the documents and the questions; an extraction file holds, per
document, what loregraph's extractor found (entities with their surfaces and occurrences,
relations with their evidence sentences).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(slots=True)
class CorpusDoc:
    """One document: a stable id, a title and the text."""

    id: str
    title: str
    text: str


@dataclass(slots=True)
class Corpus:
    """A named corpus with its questions.

    ``title_in_text`` says that the title is already part of the text (a book); otherwise
    the peers, which have no title field, are given ``title + "\\n\\n" + text``.
    """

    name: str
    description: str
    docs: list[CorpusDoc]
    questions: list[str]
    title_in_text: bool = False

    def peer_text(self, doc: CorpusDoc) -> str:
        """The text a peer inserts for ``doc`` (title first unless already in the text)."""
        return doc.text if self.title_in_text else f"{doc.title}\n\n{doc.text}"

    def digest(self) -> str:
        """A short hash of the documents (ids, titles, texts), in order."""
        h = hashlib.sha256()
        for doc in self.docs:
            for part in (doc.id, doc.title, doc.text):
                h.update(part.encode("utf-8"))
                h.update(b"\0")
        return h.hexdigest()[:16]

    def characters(self) -> int:
        """Total characters of the documents' texts."""
        return sum(len(d.text) for d in self.docs)


def save_corpus(corpus: Corpus, path: Path) -> None:
    """Write a corpus file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(corpus), ensure_ascii=False), encoding="utf-8")


def load_corpus(path: Path) -> Corpus:
    """Read a corpus file written by :func:`save_corpus`."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    docs = [CorpusDoc(**d) for d in raw.pop("docs")]
    return Corpus(docs=docs, **raw)


@dataclass(slots=True)
class RecordedEntity:
    """An entity as the extractor proposed it, with every surface form it was seen as.

    ``kept`` says whether loregraph's own selection (variant clustering, then the
    document's node selection) keeps it as a node of the graph.
    """

    name: str
    type: str
    description: str = ""
    surfaces: list[str] = field(default_factory=list)
    salience: float = 1.0
    mentions: int = 1
    kept: bool = True


@dataclass(slots=True)
class RecordedRelation:
    """A relation between two recorded entity names; ``weight`` is its evidence count."""

    source: str
    target: str
    type: str
    description: str = ""
    weight: float = 1.0
    sentences: list[str] = field(default_factory=list)


@dataclass(slots=True)
class RecordedDoc:
    """What the extractor found in one document (``raw`` is loregraph's full result)."""

    id: str
    entities: list[RecordedEntity]
    relations: list[RecordedRelation]
    raw: dict[str, Any] = field(default_factory=dict)


def slim_path(path: Path) -> Path:
    """The extraction file without loregraph's full results, next to ``path`` (peers)."""
    return path.with_name(path.stem + ".slim.json")


def save_extractions(docs: list[RecordedDoc], meta: dict[str, Any], path: Path) -> None:
    """Write an extraction file ``{"meta": ..., "documents": [...]}`` and its slim twin."""
    path.parent.mkdir(parents=True, exist_ok=True)
    documents = [asdict(d) for d in docs]
    full = json.dumps({"meta": meta, "documents": documents}, ensure_ascii=False)
    path.write_text(full, encoding="utf-8")
    for doc in documents:
        doc["raw"] = {}
    slim = json.dumps({"meta": meta, "documents": documents}, ensure_ascii=False)
    slim_path(path).write_text(slim, encoding="utf-8")


def load_extractions(path: Path, *, with_raw: bool = True) -> list[RecordedDoc]:
    """Read an extraction file; ``with_raw=False`` drops loregraph's full results."""
    payload = json.loads(path.read_text(encoding="utf-8"))
    out: list[RecordedDoc] = []
    for d in payload["documents"]:
        out.append(
            RecordedDoc(
                id=d["id"],
                entities=[RecordedEntity(**e) for e in d["entities"]],
                relations=[RecordedRelation(**r) for r in d["relations"]],
                raw=d["raw"] if with_raw else {},
            )
        )
    return out


def extraction_meta(path: Path) -> dict[str, Any]:
    """The ``meta`` block of an extraction file."""
    meta: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["meta"]
    return meta
