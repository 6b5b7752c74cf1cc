"""The data model shared by every stage and every backend.

Every record carries its *scope* (a tenant / agent / user partition) and its provenance,
so that a document can be deleted exactly, access can be filtered exactly and every answer
can cite its sources. Records are plain dataclasses; embeddings are ``numpy.float32``
vectors (L2-normalised) or ``None`` when not computed yet.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from loregraph.kinds import DocKind as DocKind
from loregraph.kinds import DocStatus as DocStatus
from loregraph.kinds import Visibility as Visibility

Vector = npt.NDArray[np.float32]

DEFAULT_SCOPE = "default"


def utcnow() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


@overload
def aware(moment: datetime) -> datetime: ...
@overload
def aware(moment: None) -> None: ...
def aware(moment: datetime | None) -> datetime | None:
    """``moment`` with a time zone: a naive time is taken as UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def stable_id(prefix: str, *parts: str) -> str:
    """A deterministic id: the same parts always give the same id (stable re-ingestion)."""
    digest = hashlib.blake2b("\x1f".join(parts).encode("utf-8"), digest_size=12).hexdigest()
    return f"{prefix}_{digest}"


def chunk_id(document_id: str, seq: int) -> str:
    """The id of chunk ``seq`` of a document."""
    return stable_id("chk", document_id, str(seq))


def content_hash(text: str) -> str:
    """The sha256 of a document's text, used for idempotent ingestion."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_KEY_STRIP = re.compile(r"[^\w\s]", re.UNICODE)
_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=131_072)
def name_key(name: str) -> str:
    """Normalise an entity name for exact matching (memoised: ingest asks for it often):
    case-folded, accents removed, punctuation dropped, whitespace collapsed, a leading
    English article removed (``"The Demeter"`` and ``"demeter"`` give the same key)."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = _KEY_STRIP.sub(" ", text.casefold())
    text = _SPACES.sub(" ", text).strip()
    for article in ("the ", "a ", "an "):
        if text.startswith(article) and len(text) > len(article):
            text = text[len(article) :]
            break
    return text


@dataclass(slots=True)
class Document:
    """A source text. Its derived data (chunks, mentions, evidence) is deleted with it."""

    id: str
    title: str
    content_hash: str
    scope: str = DEFAULT_SCOPE
    source: str = ""
    kind: DocKind = DocKind.DOCUMENT
    visibility: Visibility = Visibility.PUBLIC
    owner: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    status: DocStatus = DocStatus.PENDING
    char_count: int = 0
    created_at: datetime = field(default_factory=utcnow)
    valid_at: datetime | None = None

    def __post_init__(self) -> None:
        self.visibility = Visibility.parse(self.visibility)

    def to_dict(self) -> dict[str, Any]:
        """The document as JSON: id, title, source, characters, status, visibility, owner."""
        return {
            "id": self.id,
            "title": self.title,
            "source": self.source,
            "chars": self.char_count,
            "status": str(self.status),
        } | {"visibility": self.visibility, "owner": self.owner}


@dataclass(slots=True)
class Chunk:
    """A window of a document's text; ``start``/``end`` are character offsets into it."""

    id: str
    document_id: str
    seq: int
    start: int
    end: int
    text: str
    token_count: int = 0
    embedding: Vector | None = None


@dataclass(slots=True)
class Entity:
    """A thing the graph knows about, unique per (scope, ``name_key(name)``): ``aliases`` are
    the other surface forms seen for it, ``mention_count`` is derived from its mentions, and
    its id is stable across re-ingestion."""

    id: str
    name: str
    type: str
    scope: str = DEFAULT_SCOPE
    description: str = ""
    aliases: list[str] = field(default_factory=list)
    mention_count: int = 0
    salience: float = 0.0
    confidence: float = 1.0
    embedding: Vector | None = None
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)

    @staticmethod
    def make_id(scope: str, name: str) -> str:
        """The id an entity of this name gets when it is first created in ``scope``."""
        return stable_id("ent", scope, name_key(name))

    def to_dict(self) -> dict[str, Any]:
        """The entity as JSON: id, name, type, mention count, aliases and description."""
        return {
            "id": self.id,
            "name": self.name,
            "type": self.type,
            "mentions": self.mention_count,
            "aliases": self.aliases,
            "description": self.description,
        }


@dataclass(slots=True)
class Mention:
    """An entity seen ``count`` times in a chunk, under the surface form ``surface``."""

    entity_id: str
    chunk_id: str
    surface: str
    count: int = 1


CO_OCCURS = "CO_OCCURS_WITH"
"""The relation type for plain co-occurrence: separate, weaker evidence than a typed relation."""

ABOUT = "ABOUT"
"""The relation type linking a document's title entity to what the document mentions."""


@dataclass(slots=True)
class Evidence:
    """One piece of support for a relation: a chunk and the sentence that states it."""

    chunk_id: str
    sentence: str = ""
    start: int = 0
    end: int = 0


CODE_LINES = "code_lines"
"""Document metadata of a source file: the line each of its chunks starts on, by chunk
number (a passage of it is shown as ``path:first-last``)."""

EVIDENCE_SHOWN = 3
"""Evidence sentences a relation shows in its JSON form."""


@dataclass(slots=True)
class Relation:
    """A typed, directed edge between two entities with its evidence. ``weight``: the
    accumulated strength (evidence count offline), recomputed when a document is deleted.
    ``valid_at`` / ``invalid_at``: world time (when the fact held); ``created_at`` /
    ``expired_at``: system time (when the graph learnt and retired it). ``invalidated_by``:
    the memory or document that ended it (forgetting that one opens it again). ``statement``:
    the one it is the statement of (``ingest/facts/statements.py``), else empty."""

    id: str
    source_id: str
    target_id: str
    type: str
    scope: str = DEFAULT_SCOPE
    fact: str = ""
    weight: float = 1.0
    confidence: float = 1.0
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    created_at: datetime = field(default_factory=utcnow)
    expired_at: datetime | None = None
    evidence: list[Evidence] = field(default_factory=list)
    invalidated_by: str | None = None
    statement: str = ""

    @staticmethod
    def make_id(scope: str, source_id: str, rel_type: str, target_id: str, *said: str) -> str:
        """Unique per (scope, source, type, target), and per statement when ``said``."""
        return stable_id("rel", scope, source_id, rel_type, target_id, *said)

    def to_dict(
        self, names: Mapping[str, str] | None = None, *, evidence: int = EVIDENCE_SHOWN
    ) -> dict[str, Any]:
        """The relation as JSON: its two ends by name (``names`` maps entity ids to names;
        an id it lacks is shown as it is), type, weight, confidence and the sentences of its
        first ``evidence`` pieces of evidence."""
        names = names or {}
        return {
            "source": names.get(self.source_id, self.source_id),
            "type": self.type,
            "target": names.get(self.target_id, self.target_id),
            "weight": self.weight,
            "confidence": self.confidence,
            "evidence": [piece.sentence for piece in self.evidence[:evidence]],
        }


@dataclass(slots=True)
class Merge:
    """A recorded resolution decision: ``surface`` was merged into ``entity_id``."""

    entity_id: str
    surface: str
    rule: str
    score: float = 1.0
    scope: str = DEFAULT_SCOPE
    document_id: str | None = None
    created_at: datetime = field(default_factory=utcnow)

    @property
    def id(self) -> str:
        """A stable id: the same decision in the same document always has the same id."""
        return stable_id("mrg", self.scope, self.document_id or "", self.entity_id, self.surface)


@dataclass(slots=True)
class EntityWrite:
    """An entity as one document contributes to it (new, or merged into an existing one):
    ``description`` is this document's description of it; the stored entity keeps the best
    description among its documents, so deleting a document removes its contribution."""

    entity: Entity
    description: str = ""
    salience: float = 0.0


@dataclass(slots=True)
class DocumentBundle:
    """Everything one document adds to the store, written in one transaction."""

    document: Document
    chunks: list[Chunk]
    entities: list[EntityWrite]
    mentions: list[Mention]
    relations: list[Relation]
    merges: list[Merge] = field(default_factory=list)
    invalidations: list[Relation] = field(default_factory=list)
    """Relations this document ends (their end times and ``invalidated_by`` are set after
    the bundle's relations are written, in the same transaction)."""

    def validate(self) -> None:
        """Raise :class:`ValueError` when the bundle is inconsistent in itself: a chunk of
        another document or listed twice, a mention or evidence citing a chunk not in the
        bundle, a relation or merge in another scope. Every store checks this before writing.
        """
        doc = self.document
        chunk_ids: set[str] = set()
        for chunk in self.chunks:
            if chunk.document_id != doc.id:
                raise ValueError(f"chunk {chunk.id} belongs to {chunk.document_id}, not {doc.id}")
            if chunk.id in chunk_ids:
                raise ValueError(f"chunk {chunk.id} appears twice in document {doc.id}")
            chunk_ids.add(chunk.id)
        for mention in self.mentions:
            if mention.chunk_id not in chunk_ids:
                raise ValueError(f"a mention refers to chunk {mention.chunk_id}, not in {doc.id}")
        for relation in self.relations:
            if relation.scope != doc.scope:
                raise ValueError(
                    f"relation {relation.id} is in scope {relation.scope!r}, "
                    f"its document in {doc.scope!r}"
                )
            for evidence in relation.evidence:
                if evidence.chunk_id and evidence.chunk_id not in chunk_ids:
                    raise ValueError(
                        f"relation {relation.id} cites chunk {evidence.chunk_id}, not in {doc.id}"
                    )
        for merge in self.merges:
            if merge.scope != doc.scope:
                raise ValueError(
                    f"a merge is in scope {merge.scope!r}, its document in {doc.scope!r}"
                )


@dataclass(slots=True)
class DeleteReport:
    """What deleting a document removed."""

    document_id: str
    chunks: int = 0
    mentions: int = 0
    entities_removed: int = 0
    relations_removed: int = 0
    relations_weakened: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON (every count, by field name)."""
        return asdict(self)


@dataclass(slots=True)
class Scored:
    """A ranked hit: an id with its score (higher is better)."""

    id: str
    score: float


@dataclass(slots=True)
class Subgraph:
    """Entities and relations reached by an expansion, with each entity's hop distance."""

    entities: dict[str, Entity] = field(default_factory=dict)
    relations: list[Relation] = field(default_factory=list)
    hops: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class GraphArrays:
    """A compact snapshot of a scope's graph for in-memory algorithms (PageRank, BFS).

    Entities are numbered ``0..n-1`` in ``entity_ids`` order; chunks likewise in
    ``chunk_ids`` order. Edges are (src, dst, weight) index triples; mentions link entity
    index to chunk index with a count.
    """

    entity_ids: list[str]
    edge_src: npt.NDArray[np.int64]
    edge_dst: npt.NDArray[np.int64]
    edge_weight: npt.NDArray[np.float32]
    chunk_ids: list[str]
    chunk_document: list[str]
    mention_entity: npt.NDArray[np.int64]
    mention_chunk: npt.NDArray[np.int64]
    mention_count: npt.NDArray[np.float32]


@dataclass(slots=True)
class StoreStats:
    """Counts of what a scope holds."""

    documents: int = 0
    chunks: int = 0
    entities: int = 0
    relations: int = 0
    mentions: int = 0
    schema_version: int = 0
    relation_types: dict[str, int] = field(default_factory=dict)
    entity_types: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The counts as JSON (every field, by name)."""
        return asdict(self)
