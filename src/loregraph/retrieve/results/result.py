"""The records retrieval produces: analysis, seeds, ranked entities/relations/passages."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from loregraph.models import Chunk, Entity, Relation
from loregraph.retrieve.results.provenance import PersonaReport
from loregraph.retrieve.results.terms import Focus
from loregraph.retrieve.results.trace import RetrievalTrace

Intent = Literal["factual", "relationship", "summary", "exploration"]


@dataclass(slots=True)
class QueryAnalysis:
    """What offline analysis found in a question.

    ``candidates`` are entity-like mentions (capitalised phrases, quoted strings, n-grams
    that name a stored entity); ``matched`` maps a candidate to the id of the entity whose
    name or alias it matches exactly; ``keywords`` are the question's content words.
    """

    question: str
    intent: Intent = "factual"
    candidates: list[str] = field(default_factory=list)
    matched: dict[str, str] = field(default_factory=dict)
    keywords: list[str] = field(default_factory=list)
    used_spacy: bool = False


@dataclass(slots=True)
class StartEntity:
    """An entity the question is about, where the graph walk starts (a start entity), with
    the finders that proposed it (``exact``, ``fuzzy``, ``bm25``, ``vector``)."""

    entity: Entity
    score: float
    found_by: list[str] = field(default_factory=list)


@dataclass(slots=True)
class RankedEntity:
    """An entity of the retrieved neighbourhood with its relevance score.

    ``hop`` is the graph distance from the nearest start entity (0 for one, ``None`` when it
    was not reached by breadth-first expansion, e.g. under PageRank).
    """

    entity: Entity
    score: float
    hop: int | None = None
    is_start: bool = False
    found_by: list[str] = field(default_factory=list)


@dataclass(slots=True)
class RankedRelation:
    """A relation between two retrieved entities, with its ends' names for display."""

    relation: Relation
    source_name: str
    target_name: str
    score: float
    replaced_by: str = ""
    """For an ended fact shown as ended: what replaced it (the new fact's other end, or
    the memory or document that ended it); ``""`` otherwise."""


@dataclass(slots=True)
class Passage:
    """A chunk of a document chosen as evidence.

    ``start``/``end`` are character offsets of the chunk in its document; ``found_by``
    names the rankings that proposed it (``mentions``, ``bm25``, ``vector``, ``ppr``);
    ``section`` is the heading path at its start ("CHAPTER IV › JONATHAN HARKER'S
    JOURNAL", see :mod:`loregraph.retrieve.results.sections`), ``""`` when its document has none.
    ``following`` is the document's text right after the chunk (from the next two chunks)
    when the chunk ends inside a list, so a context can show the rest of the list
    (:mod:`loregraph.retrieve.question.focus`); ``""`` otherwise.
    """

    chunk_id: str
    document_id: str
    document_title: str
    seq: int
    start: int
    end: int
    text: str
    score: float
    found_by: list[str] = field(default_factory=list)
    document_source: str = ""
    section: str = ""
    following: str = ""
    document_at: datetime | None = None
    """The world time its memory or document states (a memory's ``at``); ``None``: the
    document states none (timeless)."""
    lines: tuple[int, int] | None = None
    """The first and last line of a source file's passage (``None`` for prose)."""

    @classmethod
    def of_chunk(
        cls,
        chunk: Chunk,
        title: str,
        source: str,
        score: float,
        found_by: list[str],
        section: str = "",
    ) -> Passage:
        """``chunk`` as a passage of the document titled ``title`` (found at ``source``)."""
        return cls(
            chunk_id=chunk.id,
            document_id=chunk.document_id,
            document_title=title,
            seq=chunk.seq,
            start=chunk.start,
            end=chunk.end,
            text=chunk.text,
            score=score,
            found_by=found_by,
            document_source=source,
            section=section,
        )


@dataclass(slots=True)
class RankedDocument:
    """A document ranked by its retrieved passages."""

    document_id: str
    title: str
    source: str
    score: float
    best_chunk_id: str


@dataclass(slots=True)
class RetrievalResult:
    """Everything one retrieval produced, plus its per-query ``trace``.

    ``relevant`` tells whether the best passages are about the question at all (see
    :mod:`loregraph.retrieve.question.relevance`; the score it was decided on is in
    ``debug["relevance"]``). The rankings are kept either way; the engine's ``search``,
    ``context`` and ``ask`` report that nothing relevant was found when it is ``False``.

    ``trace`` (:class:`~loregraph.retrieve.results.trace.RetrievalTrace`) records every stage and
    what found each result; ``debug`` is its plain-dict view.

    ``reserve`` holds the passages ranked after ``passages``, which a context given a
    larger token budget shows too; ``focus`` holds the question's weighted terms, which
    choose the sentences a context shows of each passage (:mod:`loregraph.retrieve.question.focus`).

    ``persona`` is set when the question was asked through a persona
    (:mod:`loregraph.retrieve.personas.lens`): its route, relationship map and passage sources.
    """

    question: str
    scope: str
    preset: str
    analysis: QueryAnalysis
    start_entities: list[StartEntity] = field(default_factory=list)
    entities: list[RankedEntity] = field(default_factory=list)
    relations: list[RankedRelation] = field(default_factory=list)
    passages: list[Passage] = field(default_factory=list)
    documents: list[RankedDocument] = field(default_factory=list)
    token_budget: int = 4000
    trace: RetrievalTrace = field(default_factory=RetrievalTrace)
    relevant: bool = True
    reserve: list[Passage] = field(default_factory=list)
    changes: list[RankedRelation] = field(default_factory=list)
    """The start entities' facts that ended by the query time, each with what replaced it
    (shown as ended in a context only with ``show_ended``; an answer says what changed)."""
    focus: Focus = field(default_factory=Focus)
    persona: PersonaReport | None = None

    @property
    def debug(self) -> dict[str, dict[str, Any]]:
        """Stage name → at least ``{"ms": float, "count": int}``; stages that did not run
        have ``"skipped": True`` (see :meth:`RetrievalTrace.debug`)."""
        return self.trace.debug()

    def stages_run(self) -> list[str]:
        """The names of the stages that ran (not skipped), in pipeline order."""
        return [name for name, info in self.debug.items() if not info.get("skipped")]
