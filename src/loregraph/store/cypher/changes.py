"""Hand edits of an entity (rename, retype), worked out by :mod:`loregraph.store.planned`."""

from __future__ import annotations

from loregraph.store.cypher.connection import Connection
from loregraph.store.planned import EntityEdit


async def apply_edit(conn: Connection, edit: EntityEdit) -> None:
    """Set the entity's new fields and replace its name and alias key nodes."""
    changes = edit.changes
    params = {
        "id": edit.entity_id,
        "name": changes.get("name"),
        "key": changes["name_key"],
        "type": changes.get("type"),
        "aliases": changes["aliases"],
        "alias_text": changes["alias_text"],
        "now": changes["updated_at"],
        "keys": [{"key": key, "canonical": canonical} for key, canonical in edit.keys],
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
