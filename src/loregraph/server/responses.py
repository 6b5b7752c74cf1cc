"""The shapes the API answers with, as pydantic models: each is the ``to_dict()`` of the
engine's own result (so the HTTP API, the CLI's ``--json`` and the Python API agree).
Results whose ``to_dict()`` is every field by name (a citation, a deletion report, a
scope's counts) are described by their own dataclasses."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from loregraph import Citation

Time = Annotated[str, WithJsonSchema({"type": "string", "format": "date-time"})]
"""A time as the result's ``to_dict()`` writes it (ISO 8601), passed through unchanged so
that every face writes the same text for it."""


class Shape(BaseModel):
    """A response shape; fields the engine adds later pass through."""

    model_config = ConfigDict(extra="allow")


class HowFound(Shape):
    """A source with its score, the retrieval stage that produced it and the rankings or
    finders that proposed it."""

    rank: int
    score: float
    stage: str
    found_by: list[str]


class PassageSourceOut(HowFound):
    """A passage retrieved (``found_by``: ``mentions``, ``bm25``, ``vector``, ``ppr``...)."""

    chunk_id: str
    document_id: str
    document_title: str
    section: str
    seq: int


class EntitySourceOut(HowFound):
    """An entity retrieved (``found_by``: ``start``, ``graph``, ``vector``, ``ppr``;
    ``start_found_by``: the finders of a start entity, one the question is about, where
    the graph walk starts: ``exact``, ``fuzzy``, ``bm25``, ``vector``)."""

    id: str
    name: str
    type: str
    hop: int | None
    start: bool
    start_found_by: list[str] | None = None


class RelationSourceOut(HowFound):
    """A relation retrieved (``found_by``: the expansion that reached it)."""

    id: str
    source: str
    type: str
    target: str


class SourcesOut(Shape):
    """What a retrieval found, each kind in ranked order."""

    passages: list[PassageSourceOut]
    entities: list[EntitySourceOut]
    relations: list[RelationSourceOut]


class DebugOut(Shape):
    """How a question was answered (``debug=true``, administrators only): its intent,
    the sources with their scores and rankings, each stage's milliseconds and figures,
    and the LLM circuit breaker's state (``null`` without a model)."""

    intent: str
    preset: str
    relevant: bool
    analysis: dict[str, Any]
    sources: SourcesOut
    stages: dict[str, dict[str, Any]]
    circuit: Literal["closed", "open", "half_open"] | None


class AnswerOut(Shape):
    """An answer with its citations; ``llm``: whether a model wrote it."""

    question: str
    answer: str
    llm: bool
    citations: list[Citation]
    debug: DebugOut | None = Field(None, description="Only with debug=true.")


class ContextOut(Shape):
    """A token-budgeted context for an LLM prompt."""

    question: str
    format: str
    context: str
    debug: DebugOut | None = Field(None, description="Only with debug=true.")


class SearchHitOut(Shape):
    """One ranked search result, with the share of the query's weighted terms its text
    holds (``relevance``) and whether it is about the query (``relevant``)."""

    kind: str
    id: str
    title: str
    score: float
    relevance: float
    relevant: bool
    extra: dict[str, Any] = Field(default_factory=dict)


class SearchOut(Shape):
    """The hits of a search, never withheld, and whether the best of them, read together,
    are about the query (``relevant``: the coverage ``relevance`` reached ``threshold``)."""

    relevant: bool
    relevance: float
    threshold: float
    hits: list[SearchHitOut]


class EntityOut(Shape):
    """An entity."""

    id: str
    name: str
    type: str
    mentions: int
    aliases: list[str]
    description: str


class RelationOut(Shape):
    """A relation, both ends by name, with up to three evidence sentences."""

    source: str
    type: str
    target: str
    weight: float
    confidence: float
    evidence: list[str]


class EntityViewOut(EntityOut):
    """An entity with its relations."""

    relations: list[RelationOut]


class LinkOut(Shape):
    """A relation seen from one of its ends."""

    direction: Literal["out", "in"]
    type: str
    other: str
    other_type: str | None
    confidence: float
    weight: float
    fact: str
    evidence: list[str]


class EntityRelationsOut(Shape):
    """An entity's relations, heaviest first."""

    entity: str
    type: str
    id: str
    relations: list[LinkOut]


class NeighbourOut(Shape):
    """An entity of a neighbourhood with its hop distance from the centre."""

    name: str
    type: str
    id: str
    distance: int


class EdgeOut(Shape):
    """A relation of a neighbourhood."""

    source: str
    type: str
    target: str
    weight: float
    confidence: float
    fact: str


class NeighbourhoodOut(Shape):
    """The entities within some hops of a centre and the relations joining them."""

    centre: str
    hops: int
    entities: list[NeighbourOut]
    relations: list[EdgeOut]


class StepOut(Shape):
    """One relation of a path, in its own direction, with an evidence sentence."""

    source: str
    type: str
    target: str
    confidence: float
    weight: float
    evidence: str


class PathOut(Shape):
    """A path between two entities."""

    length: int
    entities: list[str]
    steps: list[StepOut]


class EndingOut(Shape):
    """The memory or document that ended a fact: its time and the sentence of the new fact."""

    id: str
    title: str
    kind: str
    at: Time | None
    sentence: str


class FactOut(Shape):
    """One fact of a timeline: when it held in the world (``valid_at`` to ``invalid_at``),
    when the graph learnt it and stopped believing it (``created_at``, ``expired_at``)."""

    source: str
    type: str
    target: str
    current: bool
    valid_at: Time | None
    invalid_at: Time | None
    created_at: Time | None
    expired_at: Time | None
    evidence: list[str]
    invalidated_by: EndingOut | None


class HistoryOut(Shape):
    """The facts about an entity (with ``other`` only, when given) in the order they
    started, current and ended."""

    entity: str
    other: str | None
    facts: list[FactOut]


class MergeOut(Shape):
    """A merge: the name ``surface`` joined the entity ``entity`` by ``rule`` with ``score``,
    caused by ``document`` (its title; empty for a merge by hand) at ``at``. ``id`` is what
    ``POST /merges/{id}/undo`` takes."""

    id: str
    surface: str
    entity: str
    entity_id: str
    rule: str
    score: float
    document_id: str | None
    document: str
    at: Time
    principal: str = Field(description="Who made a merge by hand or undid it (else empty).")
    undone: bool


class AuditEntryOut(Shape):
    """One change to the graph: ``action`` on ``subject``, by ``principal`` at ``at``."""

    at: Time
    principal: str
    action: str
    subject: str
    detail: str
    scope: str


class MemoryOut(Shape):
    """A stored memory."""

    id: str
    text: str
    at: Time
    tags: list[str]
    source: str | None
    metadata: dict[str, Any]
    scope: str
    created_at: Time
    visibility: str = "public"
    owner: str | None = None
    planned: bool = False


class DocumentOut(Shape):
    """A stored document."""

    id: str
    title: str
    source: str
    chars: int
    status: str
    visibility: str = "public"
    owner: str | None = None


class SharedEntityOut(Shape):
    """An entity two documents both mention; ``weight``: its rarity in the scope."""

    id: str
    name: str
    type: str
    weight: float


class SuggestionOut(Shape):
    """A document connected to the one asked about, with what connects them."""

    document_id: str
    title: str
    kind: str
    score: float
    shared: list[SharedEntityOut]
    period: str | None = Field(None, description="The year both documents tell of, if any.")
    reason: str = Field(description='In words: "also about Mina Harker and Whitby".')


class CodeSymbolOut(Shape):
    """A definition of the code context: its place, signature, code and links."""

    name: str
    type: str
    location: str
    signature: str
    code: str
    within: str
    members: list[str]
    callers: list[str]
    callees: list[str]
    found_by: str


class CodeNoteOut(Shape):
    """A document's or memory's passage beside the code."""

    title: str
    kind: str
    text: str
    at: Time | None


class CodeContextOut(Shape):
    """The code context for a question, and the whole as markdown (``text``)."""

    question: str
    symbols: list[CodeSymbolOut]
    notes: list[CodeNoteOut]
    text: str
