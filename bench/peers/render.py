"""Which recorded entities and relations belong to a peer's chunk, and how each peer wants them.

A peer cuts documents into its own chunks and sends each chunk to its LLM. The fake LLM
finds the chunk's document (:class:`ChunkIndex`), keeps the recorded entities that occur in
the chunk (any surface form) and the recorded relations whose two ends were kept and whose
evidence sentence is in the chunk, then writes them in the peer's own extraction output
format: LightRAG 1.5 rows (``entity<|#|>…``/``relation<|#|>…`` lines ending with
``<|COMPLETE|>``) or nano-graphrag 0.0.8 tuples (``("entity"<|>…)`` records joined by ``##``).
The formats were read from the installed peers' prompt templates and parsers.

Standard library only: the peers' processes import this module.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from bench.peers.corpus import Corpus, RecordedDoc, RecordedEntity, RecordedRelation

LIGHTRAG_TUPLE = "<|#|>"
LIGHTRAG_COMPLETE = "<|COMPLETE|>"
NANO_TUPLE = "<|>"
NANO_RECORD = "##"
NANO_COMPLETE = "<|COMPLETE|>"

KEY_CHARS = 64
"""Characters of a chunk's start used to find its document."""

_WS = re.compile(r"\s+")
_TYPE_BAD = re.compile(r"[^0-9A-Za-z_ ]+")
_FIELD_BAD = re.compile(r"<\||\|>|##|[\x00-\x1f\x7f]")


def normalize_ws(text: str) -> str:
    """``text`` with every run of whitespace collapsed to one space, stripped."""
    return _WS.sub(" ", text).strip()


@dataclass(slots=True)
class ChunkSelection:
    """The recorded entities and relations that belong to one chunk."""

    entities: list[RecordedEntity]
    relations: list[RecordedRelation]


@dataclass(slots=True)
class _DocEntry:
    entities: list[tuple[RecordedEntity, list[str]]]
    relations: list[tuple[RecordedRelation, list[str]]]


class ChunkIndex:
    """Maps a peer's chunk text back to its document and the recorded extraction in it.

    ``kept_only`` leaves out the entities loregraph's own selection drops (and so the
    relations that touch them), for a run where every system builds a graph of the same size.
    """

    def __init__(
        self, corpus: Corpus, recorded: list[RecordedDoc], *, kept_only: bool = False
    ) -> None:
        by_id = {r.id: r for r in recorded}
        self._entries: list[_DocEntry | None] = []
        self._prefix: dict[str, int] = {}
        starts: list[int] = []
        parts: list[str] = []
        pos = 0
        for i, doc in enumerate(corpus.docs):
            text = normalize_ws(corpus.peer_text(doc))
            starts.append(pos)
            parts.append(text)
            pos += len(text) + 1
            self._prefix.setdefault(text[:KEY_CHARS], i)
            rec = by_id.get(doc.id)
            self._entries.append(_entry(rec, kept_only) if rec is not None else None)
        self._starts = starts
        self._all = "\0".join(parts)

    def locate(self, chunk: str) -> int | None:
        """The index of the document ``chunk`` was cut from, or None if none matches."""
        text = normalize_ws(chunk)
        if not text:
            return None
        hit = self._prefix.get(text[:KEY_CHARS])
        if hit is not None:
            return hit
        # A chunk from inside a document: probe a little after its start (a token-based
        # chunker may have cut a multi-byte character at the very start).
        probe = text[8 : 8 + KEY_CHARS] if len(text) > 8 + KEY_CHARS else text
        at = self._all.find(probe)
        if at < 0:
            return None
        return bisect.bisect_right(self._starts, at) - 1

    def select(self, chunk: str) -> ChunkSelection:
        """The recorded entities and relations found in ``chunk``."""
        index = self.locate(chunk)
        entry = self._entries[index] if index is not None else None
        if entry is None:
            return ChunkSelection([], [])
        text = normalize_ws(chunk)
        entities = [e for e, surfaces in entry.entities if any(s in text for s in surfaces)]
        kept = {e.name for e in entities}
        relations = [
            r
            for r, sentences in entry.relations
            if r.source in kept
            and r.target in kept
            and (not sentences or any(s in text for s in sentences))
        ]
        return ChunkSelection(entities, relations)


def _entry(rec: RecordedDoc, kept_only: bool) -> _DocEntry:
    entities = []
    for e in rec.entities:
        if kept_only and not e.kept:
            continue
        surfaces = {normalize_ws(s) for s in [e.name, *e.surfaces]}
        entities.append((e, sorted(s for s in surfaces if s)))
    relations = []
    for r in rec.relations:
        # The start of each evidence sentence: enough to place it, robust to a chunk end.
        starts = {normalize_ws(s)[:40] for s in r.sentences}
        relations.append((r, sorted(s for s in starts if s)))
    return _DocEntry(entities, relations)


# --------------------------------------------------------------------------- fields
def clean_field(text: str) -> str:
    """A field value with no delimiter fragments, control characters or line breaks."""
    return normalize_ws(_FIELD_BAD.sub(" ", text))


def entity_type_label(raw: str) -> str:
    """An entity type both peers accept (letters, digits, ``_``), ``Other`` if none is left."""
    cleaned = normalize_ws(_TYPE_BAD.sub(" ", raw)).replace(" ", "_")
    return cleaned or "Other"


def entity_description(entity: RecordedEntity) -> str:
    """The recorded description, or a plain one from the name and type when it is empty
    (both peers drop an entity whose description is empty)."""
    text = clean_field(entity.description)
    return text or f"{clean_field(entity.name)} ({entity_type_label(entity.type)})"


def relation_keywords(relation: RecordedRelation) -> str:
    """The relation type as LightRAG keywords: ``BORN_IN`` -> ``born in``."""
    return clean_field(relation.type.replace("_", " ").lower()) or "related"


def relation_description(relation: RecordedRelation) -> str:
    """The recorded fact, or ``source TYPE target`` when it is empty."""
    text = clean_field(relation.description)
    if text:
        return text
    source, target = clean_field(relation.source), clean_field(relation.target)
    return f"{source} {relation_keywords(relation)} {target}"


# --------------------------------------------------------------------------- LightRAG
def render_lightrag(selection: ChunkSelection) -> str:
    """The rows LightRAG 1.5's text-mode extraction prompt asks for, then ``<|COMPLETE|>``."""
    d = LIGHTRAG_TUPLE
    rows = [
        f"entity{d}{clean_field(e.name)}{d}{entity_type_label(e.type)}{d}{entity_description(e)}"
        for e in selection.entities
    ]
    rows += [
        f"relation{d}{clean_field(r.source)}{d}{clean_field(r.target)}{d}"
        f"{relation_keywords(r)}{d}{relation_description(r)}"
        for r in selection.relations
    ]
    rows.append(LIGHTRAG_COMPLETE)
    return "\n".join(rows)


def parse_lightrag(text: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Entity names and (source, target) pairs of rows written by :func:`render_lightrag`."""
    names: list[str] = []
    pairs: list[tuple[str, str]] = []
    for line in text.replace(LIGHTRAG_COMPLETE, "\n").splitlines():
        parts = line.strip().split(LIGHTRAG_TUPLE)
        if len(parts) == 4 and parts[0] == "entity":
            names.append(parts[1])
        elif len(parts) == 5 and parts[0] == "relation":
            pairs.append((parts[1], parts[2]))
    return names, pairs


# --------------------------------------------------------------------------- nano-graphrag
def _quoted(text: str) -> str:
    return '"' + text.replace('"', "'") + '"'


def render_nano(selection: ChunkSelection) -> str:
    """The records nano-graphrag 0.0.8's extraction prompt asks for, joined by ``##``."""
    d = NANO_TUPLE
    records = [
        f'("entity"{d}{_quoted(clean_field(e.name))}{d}{_quoted(entity_type_label(e.type))}'
        f"{d}{_quoted(entity_description(e))})"
        for e in selection.entities
    ]
    records += [
        f'("relationship"{d}{_quoted(clean_field(r.source))}{d}{_quoted(clean_field(r.target))}'
        f"{d}{_quoted(relation_description(r))}{d}{max(1, round(r.weight))})"
        for r in selection.relations
    ]
    return NANO_RECORD.join(records) + NANO_COMPLETE


def parse_nano(text: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Entity names and (source, target) pairs of records written by :func:`render_nano`
    (quotes removed, case kept)."""
    names: list[str] = []
    pairs: list[tuple[str, str]] = []
    for record in re.split(f"{re.escape(NANO_RECORD)}|{re.escape(NANO_COMPLETE)}", text):
        match = re.search(r"\((.*)\)", record)
        if match is None:
            continue
        parts = [p.strip() for p in match.group(1).split(NANO_TUPLE)]
        if len(parts) >= 4 and parts[0] == '"entity"':
            names.append(parts[1].strip('"'))
        elif len(parts) >= 5 and parts[0] == '"relationship"':
            pairs.append((parts[1].strip('"'), parts[2].strip('"')))
    return names, pairs
