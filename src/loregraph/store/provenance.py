"""The store contract's provenance part: what each document contributed to an entity or a
relation, so that a reader can be shown the graph built from only the documents it may read
(:mod:`loregraph.store.visible`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from loregraph.models import Evidence


@dataclass(frozen=True, slots=True)
class EntitySource:
    """What one document contributed to one entity.

    ``listed``: the document lists the entity (its ``description``, ``salience`` and
    ``confidence`` are then the document's own; ``None`` when the store does not know them
    per document). ``aliases``: the document's ``(alias key, surface)`` pairs.
    ``surfaces``: the surfaces its chunks mention the entity by, with their counts.
    """

    document_id: str
    listed: bool = False
    description: str = ""
    salience: float | None = None
    confidence: float | None = None
    aliases: tuple[tuple[str, str], ...] = ()
    surfaces: tuple[tuple[str, int], ...] = ()

    @property
    def mentions(self) -> int:
        """How often the document's chunks mention the entity."""
        return sum(count for _, count in self.surfaces)


@dataclass(frozen=True, slots=True)
class RelationSource:
    """One piece of one document's support for a relation (``evidence.chunk_id`` empty:
    support without a chunk)."""

    document_id: str
    evidence: Evidence
    confidence: float = 1.0


class Provenance(ABC):
    """Per-document contributions of entities and relations."""

    @abstractmethod
    async def entity_sources(self, entity_ids: Sequence[str]) -> dict[str, list[EntitySource]]:
        """Entity id → one :class:`EntitySource` per document that lists or mentions it
        (ordered by document id; unknown ids and entities nothing supports are absent)."""

    @abstractmethod
    async def relation_sources(
        self, relation_ids: Sequence[str]
    ) -> dict[str, list[RelationSource]]:
        """Relation id → its evidence, each piece with the document it came from, in the
        order it was written (unknown ids are absent)."""


ListingRow = tuple[str, str, str, float | None, float | None]
"""(entity id, document id, description, salience, confidence) of a listing document."""
AliasRow = tuple[str, str, str, str]
"""(entity id, document id, alias key, surface)."""
MentionRow = tuple[str, str, str, int]
"""(entity id, document id, surface, count), summed over the document's chunks."""


def entity_sources_from_rows(
    listings: Sequence[ListingRow], aliases: Sequence[AliasRow], mentions: Sequence[MentionRow]
) -> dict[str, list[EntitySource]]:
    """Assemble :class:`EntitySource` lists from a backend's three kinds of rows."""
    listed: dict[tuple[str, str], ListingRow] = {(row[0], row[1]): row for row in listings}
    alias_pairs: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for entity_id, document_id, key, surface in aliases:
        alias_pairs.setdefault((entity_id, document_id), []).append((key, surface))
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for entity_id, document_id, surface, count in mentions:
        per = counts.setdefault((entity_id, document_id), {})
        per[surface] = per.get(surface, 0) + int(count)
    result: dict[str, list[EntitySource]] = {}
    for pair in sorted(set(listed) | set(alias_pairs) | set(counts)):
        row = listed.get(pair)
        result.setdefault(pair[0], []).append(
            EntitySource(
                document_id=pair[1],
                listed=row is not None,
                description=row[2] if row else "",
                salience=row[3] if row else None,
                confidence=row[4] if row else None,
                aliases=tuple(sorted(alias_pairs.get(pair, []))),
                surfaces=tuple(sorted(counts.get(pair, {}).items())),
            )
        )
    return result


def relation_sources_from_rows(
    rows: Iterable[Sequence[Any]],
) -> dict[str, list[RelationSource]]:
    """Relation sources from a backend's rows of (relation id, document id, chunk id,
    sentence, start, end, confidence), in written order."""
    result: dict[str, list[RelationSource]] = {}
    for relation_id, document_id, chunk_id, sentence, start, end, confidence in rows:
        evidence = Evidence(chunk_id or "", sentence or "", int(start), int(end))
        result.setdefault(relation_id, []).append(
            RelationSource(document_id, evidence, float(confidence))
        )
    return result
