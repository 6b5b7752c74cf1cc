"""Hand edits of an entity (rename, retype)."""

from __future__ import annotations

from loregraph.models import Entity, name_key, utcnow
from loregraph.store.postgres.cleanup import bump_graph_version, recompute
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.reads import get_entities


async def update_entity(
    conn: Conn, entity_id: str, name: str | None, kind: str | None
) -> Entity | None:
    """Rename and/or retype an entity (``None`` for an unknown id); aliases, keys and the
    text vector follow (a negative count makes :func:`recompute` rewrite them all)."""
    cursor = await conn.execute(
        "UPDATE entities SET name = coalesce(%s, name), name_key = coalesce(%s, name_key), "
        "type = coalesce(%s, type), mention_count = -1 WHERE id = %s RETURNING pk, scope",
        (name, None if name is None else name_key(name), kind, entity_id),
    )
    row = await cursor.fetchone()
    if row is None:
        return None
    pk, scope = row
    await recompute(conn, {pk}, set(), utcnow())
    await bump_graph_version(conn, scope)
    return (await get_entities(conn, [entity_id]))[0]
