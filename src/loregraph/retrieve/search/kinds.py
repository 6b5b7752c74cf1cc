"""Retrieval limited to memories or to documents.

The text and vector searches filter in the store (``kind=``), so they fill their limit from
the chosen kind. The graph's passage rankings (mentions, relation evidence, PageRank,
pages) and the relations shown are kept to the chunks of that kind here: through the
in-memory graph index, which knows each chunk's document and each document's kind, or, for
chunks it does not know, by reading them and their documents from the store. The entities
shown are those the kept relations join, and the start entities, without descriptions (a
description may come from the other kind).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

from loregraph.models import DocKind
from loregraph.retrieve.graph.graphindex import GraphIndex
from loregraph.retrieve.results.result import RankedEntity, RankedRelation
from loregraph.store.base import Store


async def chunks_of_kind(
    store: Store, index: GraphIndex | None, kind: DocKind, chunk_ids: Iterable[str]
) -> set[str]:
    """Those of ``chunk_ids`` whose document is of ``kind``."""
    wanted = list(dict.fromkeys(chunk_ids))
    known = index.chunk_kinds(wanted) if index is not None else {}
    unknown = [c for c in wanted if c not in known]
    if unknown:
        chunks = await store.get_chunks(unknown)
        kinds: dict[str, str] = {}
        for document_id in {c.document_id for c in chunks}:
            document = await store.get_document(document_id)
            if document is not None:
                kinds[document_id] = str(document.kind)
        known.update((c.id, kinds[c.document_id]) for c in chunks if c.document_id in kinds)
    return {chunk_id for chunk_id, of in known.items() if of == str(kind)}


async def keep_kind(
    store: Store,
    index: GraphIndex | None,
    kind: DocKind,
    rankings: Mapping[str, Sequence[str]],
) -> dict[str, list[str]]:
    """Each ranking with only the chunks of ``kind``, order kept."""
    allowed = await chunks_of_kind(
        store, index, kind, (c for ranking in rankings.values() for c in ranking)
    )
    return {name: [c for c in ranking if c in allowed] for name, ranking in rankings.items()}


async def relations_of_kind(
    store: Store, index: GraphIndex | None, kind: DocKind, relations: Sequence[RankedRelation]
) -> list[RankedRelation]:
    """The relations with evidence from a chunk of ``kind``, with that evidence loaded."""
    missing = [r.relation.id for r in relations if not r.relation.evidence]
    loaded = {r.id: r for r in await store.get_relations(missing)} if missing else {}
    full = [
        dataclasses.replace(r, relation=loaded[r.relation.id]) if r.relation.id in loaded else r
        for r in relations
    ]
    allowed = await chunks_of_kind(
        store, index, kind, (e.chunk_id for r in full for e in r.relation.evidence)
    )
    return [r for r in full if any(e.chunk_id in allowed for e in r.relation.evidence)]


def entities_of_kind(
    entities: Sequence[RankedEntity], relations: Sequence[RankedRelation]
) -> list[RankedEntity]:
    """The start entities and the ends of the kept ``relations``, without descriptions."""
    ends = {r.relation.source_id for r in relations} | {r.relation.target_id for r in relations}
    return [
        dataclasses.replace(e, entity=dataclasses.replace(e.entity, description=""))
        for e in entities
        if e.hop == 0 or e.entity.id in ends
    ]
