"""API key records to and from stored rows, the same for every backend.

A backend stores a key's ``name``, ``key_hash``, ``roles`` (JSON text: role names by
scope), ``created_at`` and ``revoked_at``, in the order of :data:`KEY_FIELDS`, keeping the
times as it keeps every time (its :class:`~loregraph.store.rows.Codec`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from loregraph.access import ApiKey, roles_from_json, roles_to_json
from loregraph.errors import InputError
from loregraph.store.rows import Row

KEY_FIELDS = ("name", "key_hash", "roles", "created_at", "revoked_at")
"""The stored fields of a key, in the order a backend selects them."""


def key_values(key: ApiKey, time: Callable[[datetime], Any]) -> tuple[Any, ...]:
    """The stored values of ``key`` (times through the backend's ``time``), in field order."""
    roles = json.dumps(roles_to_json(key.roles), sort_keys=True)
    revoked = None if key.revoked_at is None else time(key.revoked_at)
    return key.name, key.key_hash, roles, time(key.created_at), revoked


def key_from_row(row: Row, read_time: Callable[[Any], datetime]) -> ApiKey:
    """The key a row of :data:`KEY_FIELDS` holds."""
    name, key_hash, roles, created, revoked = row
    return ApiKey(
        name=name,
        key_hash=key_hash,
        roles=roles_from_json(json.loads(roles) if isinstance(roles, str) else roles),
        created_at=read_time(created),
        revoked_at=None if revoked is None else read_time(revoked),
    )


def duplicate_key(name: str) -> InputError:
    """The error for a key name already taken."""
    return InputError(f"a key called {name!r} exists already (revoked keys keep their names)")
