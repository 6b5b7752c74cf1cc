"""The SurrealDB store: an embedded engine (``mem://``, ``surrealkv://PATH``) or a server.

Writes are planned in Python from a few reads (:mod:`loregraph.store.plan` over
:mod:`.state`, as for the Cypher store) and carried out by one transaction
(:mod:`.apply`), planned again when another writer committed in between; writes from one
store object are serialised by a lock. Expansion and PageRank run on the in-memory graph
index like every backend's; one hop of a path search is one traversal query.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

from loregraph.errors import StoreError
from loregraph.store.base import Store
from loregraph.store.ledger import LedgerQuery, LedgerRow
from loregraph.store.plan import WritePlan
from loregraph.store.planned import EntityEdit, PlannedWrites
from loregraph.store.provenance import RelationSource
from loregraph.store.surreal import graph
from loregraph.store.surreal.apply import transaction
from loregraph.store.surreal.compact import rewrite
from loregraph.store.surreal.connection import CONFLICT, SurrealConnection, SurrealTarget
from loregraph.store.surreal.graph import SurrealGraph
from loregraph.store.surreal.reads import SurrealReads
from loregraph.store.surreal.schema import SchemaState, ensure_schema, ensure_vector_index
from loregraph.store.surreal.search import SurrealSearch
from loregraph.store.surreal.state import SurrealWriteState
from loregraph.store.swap import recover

_LEDGER_WHERE = "kind = $kind AND part = $part AND key = $key"


class SurrealStore(
    PlannedWrites,
    SurrealReads,
    SurrealGraph,
    SurrealSearch,
    Store,
):
    """A store in a SurrealDB database.

    >>> store = SurrealStore("surrealkv://kg.surreal")  # doctest: +SKIP
    >>> async with store: ...                           # doctest: +SKIP
    """

    target: SurrealTarget

    def __init__(self, url: str) -> None:
        self.target = SurrealTarget.parse(url)
        self.connection = SurrealConnection(self.target)
        self._schema: SchemaState | None = None
        self._lock = asyncio.Lock()
        self._removed = False
        """Whether something was removed since opening (a ``surrealkv`` store is then
        rewritten when it closes: :mod:`.compact`)."""

    # ----------------------------------------------------------------- lifecycle
    async def open(self) -> None:
        """Open (finishing first a rewrite of a ``surrealkv`` store that stopped part-way)."""
        if self._schema is None and self.target.scheme == "surrealkv":
            recover(Path(self.target.path))
        await super().open()

    async def _ensure_schema(self) -> SchemaState:
        return await ensure_schema(self.connection, self.target.redacted())

    async def close(self) -> None:
        """Close; a ``surrealkv`` store that removed anything is first rewritten so that
        nothing removed stays in its files (:mod:`.compact`)."""
        schema, self._schema = self._schema, None
        removed, self._removed = self._removed, False
        if schema is not None and removed and self.target.scheme == "surrealkv":
            await rewrite(self.connection, schema.dims)
        await self.connection.close()

    # ----------------------------------------------------------------- writes
    def _reads(self) -> SurrealWriteState:
        return SurrealWriteState(self._conn())

    async def _apply(self, plan: WritePlan) -> bool:
        """Run the plan's transaction; ``False`` when another writer got in first."""
        schema = self._state()
        for table, dim in plan.dims.items():
            await ensure_vector_index(self.connection, schema, table, dim)
        self._removed |= plan.replace or bool(plan.dead_entities or plan.dead_relations)
        try:
            await self.connection.run(*transaction(plan))
        except StoreError as exc:
            if CONFLICT in str(exc):
                return False
            raise
        return True

    async def _end(self, relation_id: str, invalid_at: str, by: str | None) -> bool:
        return await graph.invalidate_relation(self._conn(), relation_id, invalid_at, by)

    async def _apply_edit(self, edit: EntityEdit) -> None:
        self._removed = True  # the old name stays in the engine's files until a rewrite
        await graph.apply_edit(self._conn(), edit)

    # ----------------------------------------------------------------- ledger
    async def ledger_put(self, row: LedgerRow, *, replace: bool = True) -> bool:
        params = {"kind": row.kind, "part": row.part, "key": row.key}
        params["value"] = json.dumps(row.value, sort_keys=True)
        when_found = "UPDATE $found SET value = $value; true" if replace else "false"
        async with self._lock:
            result = await self._conn().run(
                "BEGIN TRANSACTION; "
                f"LET $found = (SELECT VALUE id FROM ledger WHERE {_LEDGER_WHERE}); "
                f"LET $done = IF array::len($found) > 0 {{ {when_found} }} ELSE {{ "
                "UPDATE meta:meta SET ledger += 1; CREATE ledger SET kind = $kind, part = $part, "
                "key = $key, value = $value, seq = (SELECT VALUE ledger FROM meta:meta)[0]; "
                "true }; RETURN $done; COMMIT TRANSACTION;",
                params,
            )
        return bool(result[-2])  # the last result is the COMMIT's

    async def ledger_delete(self, kind: str, part: str, key: str) -> bool:
        self._removed = True
        async with self._lock:
            gone = await self._conn().rows(
                f"DELETE ledger WHERE {_LEDGER_WHERE} RETURN BEFORE",
                {"kind": kind, "part": part, "key": key},
            )
        return bool(gone)

    async def ledger_rows(self, query: LedgerQuery) -> list[LedgerRow]:
        where = "" if query.part is None else " AND part = $part"
        order = " DESC" if query.newest_first else ""
        tail = "" if query.limit is None else f" LIMIT {max(0, int(query.limit))}"
        found = await self._conn().rows(
            f"SELECT kind, part, key, value, seq FROM ledger WHERE kind = $kind{where} "
            f"ORDER BY seq{order}{tail}",
            {"kind": query.kind, "part": query.part},
        )
        return [LedgerRow(r["kind"], r["part"], r["key"], json.loads(r["value"])) for r in found]

    async def relation_sources(
        self, relation_ids: Sequence[str]
    ) -> dict[str, list[RelationSource]]:
        return await self._reads().relation_sources(list(relation_ids))
