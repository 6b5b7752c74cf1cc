"""Hand edits of an entity (rename, retype)."""

from __future__ import annotations

import sqlite3

from loregraph.models import Entity, name_key, utcnow
from loregraph.store.rows import iso
from loregraph.store.sqlite.db import transaction
from loregraph.store.sqlite.fts import index_entities, unindex_entities
from loregraph.store.sqlite.reads import get_entities
from loregraph.store.sqlite.rows import json_list
from loregraph.store.sqlite.versions import alias_fields, bump_graph_version


def update_entity(
    conn: sqlite3.Connection, entity_id: str, name: str | None, kind: str | None
) -> Entity | None:
    """Rename and/or retype an entity (``None`` for an unknown id); aliases, search keys and
    the text index follow the new name."""
    with transaction(conn):
        row = conn.execute("SELECT pk, scope FROM entities WHERE id = ?", (entity_id,)).fetchone()
        if row is None:
            return None
        pk, scope = row
        pks = json_list([pk])
        unindex_entities(conn, pks)
        if name is not None:
            aliases = dict(
                conn.execute(
                    "SELECT alias_key, min(alias) FROM entity_aliases WHERE entity = ? "
                    "GROUP BY alias_key",
                    (pk,),
                ).fetchall()
            )
            aliases_json, search_keys = alias_fields(name_key(name), aliases)
            conn.execute(
                "UPDATE entities SET name = ?, name_key = ?, aliases = ?, search_keys = ? "
                "WHERE pk = ?",
                (name, name_key(name), aliases_json, search_keys, pk),
            )
        if kind is not None:
            conn.execute("UPDATE entities SET type = ? WHERE pk = ?", (kind, pk))
        conn.execute("UPDATE entities SET updated_at = ? WHERE pk = ?", (iso(utcnow()), pk))
        index_entities(conn, pks)
        bump_graph_version(conn, scope)
    return get_entities(conn, [entity_id])[0]
