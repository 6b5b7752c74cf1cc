"""One hop from many entities at once (a base of :class:`~loregraph.store.base.Store`).

A path search grows a frontier of entities a hop at a time; a backend that can answer a
hop for the whole frontier in one query (PostgreSQL, FalkorDB/Neo4j)
overrides :meth:`Hops.relations_touching`; the default asks for each entity's
relations.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from loregraph.models import Relation
from loregraph.store.queries import RelationFilter, RelationQuery


class Hops:
    """The relations touching a set of entities."""

    if TYPE_CHECKING:

        async def _entity_relations(self, query: RelationQuery) -> list[Relation]: ...

    async def relations_touching(
        self,
        entity_ids: Sequence[str],
        *,
        types: Sequence[str] | None = None,
        at: datetime | None = None,
        reaching: Sequence[str] | None = None,
    ) -> list[Relation]:
        """The relations with either end among ``entity_ids`` (filtered as
        :meth:`entity_relations`), each once: one hop of a search from many entities at
        once. With ``reaching``, only those whose other end is among ``reaching`` (the last
        hop of a search only needs the relations that meet the other side). Each has at
        least its id, ends, type and weight; a backend may leave out its fact, times and
        evidence (read them with ``get_relations``). A backend answers it in one query
        where it can; this default asks for each entity's relations."""
        live = RelationFilter.of(types, at)
        found: dict[str, Relation] = {}
        for entity_id in dict.fromkeys(entity_ids):
            for relation in await self._entity_relations(
                RelationQuery(entity_id, "both", live, None)
            ):
                found.setdefault(relation.id, relation)
        if reaching is None:
            return list(found.values())
        return reaching_only(list(found.values()), entity_ids, reaching)


def reaching_only(
    relations: Sequence[Relation], entity_ids: Sequence[str], reaching: Sequence[str]
) -> list[Relation]:
    """The relations that join one of ``entity_ids`` to one of ``reaching``."""
    near, far = set(entity_ids), set(reaching)
    return [
        r
        for r in relations
        if (r.source_id in near and r.target_id in far)
        or (r.target_id in near and r.source_id in far)
    ]
