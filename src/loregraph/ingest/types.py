"""Typed inputs and outputs of the ingestion stages.

read → chunk → extract → normalise types → select core entities → resolve → relate →
embed → write. Each stage is a small module; these records are what flows between them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from loregraph.kinds import Visibility
from loregraph.models import DocKind, Document, Entity, Merge


@dataclass(frozen=True, slots=True)
class ClusterRules:
    """Joins clustering must not make: rules switched off (``part-of-name``,
    ``part-of-name-dominant``, ``honorific`` for gendered variants, ``title-reference``) and
    pairs of name keys kept apart (a split a person made). Names of one key are one group
    and are never kept apart."""

    off: frozenset[str] = frozenset()
    apart: frozenset[tuple[str, str]] = frozenset()

    def keeps_apart(self, rule: str, one: set[str], other: set[str]) -> bool:
        """Whether two clusters with these name keys may not be joined by ``rule``."""
        if rule in self.off:
            return True
        return any((a, b) in self.apart or (b, a) in self.apart for a in one for b in other)


class CodeIndex(Protocol):
    """The names of a repository, read before its files
    (:class:`~loregraph.ingest.code.index.RepoIndex`)."""

    def resolve(self, name: str) -> tuple[str, str] | None:
        """The definition ``name`` refers to and how it was found, if any."""
        ...

    def methods_named(self, name: str) -> list[str]:
        """The methods of the repository's classes called ``name``."""
        ...

    def settings_named(self, variable: str) -> list[str]:
        """The settings of the repository's settings files known by the environment
        variable ``variable``."""
        ...


@dataclass(slots=True)
class SourceDocument:
    """A document as read from a file, stdin or a record, before anything is derived.

    ``source`` is its identity: an absolute path, an absolute path and record position
    (``/data/corpus.json#12``), the record's own ``id``, or for text read from stdin its
    ``--id`` or the hash of its text. Re-ingesting the same source with changed text
    replaces it; nothing else does.
    """

    title: str
    text: str
    source: str
    external_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    kind: DocKind = DocKind.DOCUMENT
    former_source: str | None = None
    """The ``source`` loregraph 0.1 gave such a document (a file name and position, or
    ``stdin``): a stored document there with the same text is this one, not a new one."""
    valid_at: datetime | None = None
    """When what the text tells happened (a memory's time), if known."""
    code_index: CodeIndex | None = None
    """The Python names of the repository a source file was read from (set by the folder
    reader; not stored): resolves its calls across files (:mod:`loregraph.ingest.code`)."""
    prepared: tuple[list[TextChunk], ExtractionResult] | None = None
    """Its chunks and graph when whoever read it knew them (a commit read from git,
    :mod:`loregraph.ingest.code.history`): taken instead of chunking and extracting (not
    stored)."""
    cluster_rules: ClusterRules = field(default_factory=lambda: ClusterRules())
    """Joins the clustering of this document's names must not make (set by the pipeline
    from the merge rules switched off and the splits people made)."""
    visibility: Visibility | None = None
    """Who may read it (``public``, ``private``, ``personal``); ``None``: the document's
    it replaces, else ``public``."""
    owner: str | None = None
    """The principal it belongs to (``None`` with no ``visibility``: the document's it
    replaces)."""

    def keeps_access(self, stored: Document) -> bool:
        """Whether ``stored`` (this document as stored) has the visibility and owner asked
        for (always when none is asked for)."""
        if self.visibility is None and self.owner is None:
            return True
        wanted = (self.visibility or stored.visibility, self.owner)
        return wanted == (stored.visibility, stored.owner)

    def inherit_access(self, stored: Document) -> None:
        """Take what is not asked for from ``stored``, the document this one replaces: its
        visibility, and its owner too when no visibility is asked for."""
        if self.visibility is None:
            self.visibility = stored.visibility
            self.owner = self.owner if self.owner is not None else stored.owner

    @property
    def entity_title(self) -> str:
        """The title extraction may turn into an entity: a document's title; none for a
        memory (its title is only a label, never a thing the graph knows about)."""
        return "" if self.kind == DocKind.MEMORY else self.title


@dataclass(slots=True)
class TextChunk:
    """A chunk before it is stored: ``text == document_text[start:end]``."""

    seq: int
    start: int
    end: int
    text: str
    token_count: int = 0


@dataclass(slots=True)
class MegaBatch:
    """Consecutive chunks grouped up to ``mega_batch_chars``, one LLM call each."""

    index: int
    chunk_seqs: list[int]
    text: str


@dataclass(slots=True)
class Occurrence:
    """An entity seen ``count`` times in chunk ``chunk_seq`` as ``surface``."""

    chunk_seq: int
    surface: str
    count: int = 1


@dataclass(slots=True)
class CandidateEntity:
    """An entity as an extractor proposes it, before selection and resolution.

    ``type`` is the extractor's raw type (normalised later); ``salience`` is 1-5 (5 = most
    central); ``mentions`` is the number of times it is mentioned in the document.
    """

    name: str
    type: str
    description: str = ""
    salience: float = 1.0
    mentions: int = 1
    occurrences: list[Occurrence] = field(default_factory=list)
    confidence: float = 1.0
    is_title: bool = False
    exact: bool = False
    """An identifier (a code symbol's qualified name, a file's path): always kept, never
    joined with another name of the document, and matched to a stored entity only by its
    own name."""


@dataclass(slots=True)
class RelationEvidence:
    """Where a relation is stated: the chunk and the sentence, with offsets in the chunk."""

    chunk_seq: int
    sentence: str
    start: int = 0
    end: int = 0


@dataclass(slots=True)
class CandidateRelation:
    """A relation between two candidate entity names, in UPPER_SNAKE_CASE."""

    source: str
    target: str
    type: str
    fact: str = ""
    confidence: float = 1.0
    evidence: list[RelationEvidence] = field(default_factory=list)
    at: datetime | None = None
    """When the fact became true, when whoever read it knows (a commit's time): taken
    instead of a date its sentence gives or its document's time."""


@dataclass(slots=True)
class ExtractionResult:
    """What an extractor found in one document."""

    entities: list[CandidateEntity] = field(default_factory=list)
    relations: list[CandidateRelation] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class Resolution:
    """Each candidate name → its entity (existing or new), and the merges decided."""

    entities: dict[str, Entity] = field(default_factory=dict)
    merges: list[Merge] = field(default_factory=list)
    new_ids: set[str] = field(default_factory=set)
