"""The Cypher store's ledger (:mod:`loregraph.store.ledger`): one ``(:LgLedger)`` node per
row, its value as JSON text, numbered by the meta node's ``ledger`` counter so that rows
keep the order they were first written; :class:`CypherLedger` is the part of the store that
calls it, one writer at a time.

Graphs written before the ledger kept these records as ``(:LgApiKey)``, ``(:LgGrant)``,
``(:LgScopeLink)``, ``(:LgDecision)`` and ``(:LgAudit)`` nodes; :func:`move_to_ledger`
turns them into ledger rows once, when the store is opened.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.dialect import LEDGER
from loregraph.store.ledger import (
    API_KEY,
    AUDIT,
    DECISION,
    GRANT,
    SCOPE_LINK,
    Ledger,
    LedgerQuery,
    LedgerRow,
    decision_key,
)

_ROW = "{kind: $kind, part: $part, key: $key}"
_COUNT = "MATCH (m:LgMeta {key: 'meta'}) SET m.ledger = coalesce(m.ledger, 0) + 1 WITH m "


def _params(row: LedgerRow) -> dict[str, Any]:
    value = json.dumps(row.value, sort_keys=True)
    return {"kind": row.kind, "part": row.part, "key": row.key, "value": value}


async def put(conn: Connection, row: LedgerRow, replace: bool) -> bool:
    """Create ``row``'s node, or set the value of the node of its kind, part and key
    (keeping its ``seq``) when ``replace``; whether it was written."""
    if replace:
        query = (
            f"{_COUNT}MERGE (r:{LEDGER} {_ROW}) ON CREATE SET r.seq = m.ledger "
            "SET r.value = $value RETURN 1"
        )
    else:
        query = (
            f"OPTIONAL MATCH (r:{LEDGER} {_ROW}) WITH count(r) AS taken WHERE taken = 0 "
            f"MATCH (m:LgMeta {{key: 'meta'}}) SET m.ledger = coalesce(m.ledger, 0) + 1 "
            f"WITH m CREATE (n:{LEDGER} {_ROW}) SET n.value = $value, n.seq = m.ledger "
            "RETURN 1"
        )
    return bool(await conn.write(query, _params(row)))


async def delete(conn: Connection, kind: str, part: str, key: str) -> bool:
    """Delete a row's node; whether there was one."""
    found = await conn.write(
        f"MATCH (r:{LEDGER} {_ROW}) DELETE r RETURN count(*)",
        {"kind": kind, "part": part, "key": key},
    )
    return bool(found and found[0][0])


async def rows(conn: Connection, query: LedgerQuery) -> list[LedgerRow]:
    """The rows ``query`` asks for, by ``seq``."""
    where = "" if query.part is None else " WHERE r.part = $part"
    order = " DESC" if query.newest_first else ""
    tail = "" if query.limit is None else " LIMIT $limit"
    found = await conn.read(
        f"MATCH (r:{LEDGER} {{kind: $kind}}){where} RETURN r.kind, r.part, r.key, r.value "
        f"ORDER BY r.seq{order}{tail}",
        {"kind": query.kind, "part": query.part, "limit": query.limit},
    )
    return [LedgerRow(k, p, key, json.loads(value)) for k, p, key, value in found]


def _old_row(label: str, props: dict[str, Any], n: int) -> LedgerRow:
    """The ledger row of an older graph's record node."""
    if label == "LgApiKey":
        roles = json.loads(props["roles"]) if isinstance(props["roles"], str) else props["roles"]
        value = {f: props.get(f) for f in ("name", "key_hash", "created_at", "revoked_at")}
        return LedgerRow(API_KEY, "", props["name"], value | {"roles": roles})
    if label == "LgGrant":
        value = {f: props[f] for f in ("principal", "scope", "role")}
        return LedgerRow(GRANT, props["principal"], props["scope"], value)
    if label == "LgScopeLink":
        documents = json.loads(props.get("documents") or "[]")
        value = {f: props[f] for f in ("scope", "linked", "share")} | {"documents": documents}
        return LedgerRow(SCOPE_LINK, props["scope"], props["linked"], value)
    if label == "LgDecision":
        fields = ("scope", "kind", "merge_id", "entity_id", "surface", "rule", "score")
        value = {f: props[f] for f in fields} | {
            f: props.get(f) for f in ("document_id", "principal", "created_at")
        }
        key = decision_key(props["kind"], props["merge_id"])
        return LedgerRow(DECISION, props["scope"], key, value)
    entry = ("at", "principal", "action", "subject", "detail", "scope")
    return LedgerRow(AUDIT, props["scope"], f"log-{n}", {f: props.get(f, "") for f in entry})


_OLD_LABELS = {
    "LgApiKey": "n.created_at, n.name",
    "LgGrant": "n.principal, n.scope",
    "LgScopeLink": "n.scope, n.linked",
    "LgDecision": "n.created_at, n.kind, n.merge_id",
    "LgAudit": "n.ord",
}


async def move_to_ledger(conn: Connection) -> None:
    """Turn an older graph's key, grant, link, decision and audit nodes into ledger rows
    (each node deleted once its row is written; nothing to do on a newer graph)."""
    for label, order in _OLD_LABELS.items():
        found = await conn.read(f"MATCH (n:{label}) RETURN properties(n) ORDER BY {order}")
        for n, (props,) in enumerate(found):
            await put(conn, _old_row(label, props, n), replace=False)
        if found:
            await conn.write(f"MATCH (n:{label}) DELETE n")


class CypherLedger(Ledger):
    """The ledger primitives of :class:`~loregraph.store.cypher.CypherStore`."""

    _lock: asyncio.Lock

    if TYPE_CHECKING:

        def _conn(self) -> Connection: ...

    async def ledger_put(self, row: LedgerRow, *, replace: bool = True) -> bool:
        conn = self._conn()
        async with self._lock:
            return await put(conn, row, replace)

    async def ledger_delete(self, kind: str, part: str, key: str) -> bool:
        conn = self._conn()
        async with self._lock:
            return await delete(conn, kind, part, key)

    async def ledger_rows(self, query: LedgerQuery) -> list[LedgerRow]:
        return await rows(self._conn(), query)
