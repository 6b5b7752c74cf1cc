"""Hand edits of an entity (rename, retype)."""

from __future__ import annotations

from loregraph.models import Entity, name_key, utcnow
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.reads import get_entities
from loregraph.store.cypher.state import CypherWriteState
from loregraph.store.planning import alias_list
from loregraph.store.planstate import entity_states
from loregraph.store.rows import iso

_KEY = "{scope: $scope, kind: $kind, merge_id: $merge_id}"


def _sets(node: str, fields: tuple[str, ...]) -> str:
    return ", ".join(f"{node}.{name} = ${name}" for name in fields)


async def update_entity(
    conn: Connection, entity_id: str, name: str | None, kind: str | None
) -> Entity | None:
    """Rename and/or retype an entity (``None`` for an unknown id); aliases and the name and
    alias keys follow the new name."""
    found = (await entity_states(CypherWriteState(conn), [entity_id], "")).get(entity_id)
    if found is None:
        return None
    key = found.key if name is None else name_key(name)
    surfaces, alias_keys = alias_list(key, found.aliases)
    keys = [{"key": key, "canonical": 1}] + [{"key": k, "canonical": 0} for k in alias_keys]
    params = {
        "id": entity_id,
        "name": name,
        "key": key,
        "type": kind,
        "aliases": surfaces,
        "alias_text": " ".join(surfaces),
        "now": iso(utcnow()),
        "keys": keys,
    }
    await conn.write("MATCH (k:LgKey {entity_id: $id}) DELETE k", params)
    await conn.write(
        "MATCH (e:LgEntity {id: $id}) SET e.name = coalesce($name, e.name), e.name_key = $key, "
        "e.type = coalesce($type, e.type), e.aliases = $aliases, e.alias_text = $alias_text, "
        "e.updated_at = $now WITH e UNWIND $keys AS x CREATE (k:LgKey) "
        "SET k.entity_id = e.id, k.scope = e.scope, k.key = x.key, k.canonical = x.canonical "
        "WITH DISTINCT e MERGE (s:LgScope {scope: e.scope}) "
        "SET s.version = coalesce(s.version, 0) + 1",
        params,
    )
    return (await get_entities(conn, [entity_id]))[0]
