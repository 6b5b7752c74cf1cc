"""Store contract: API keys are stored by hash, listed, found and revoked, on every backend."""

from __future__ import annotations

import pytest

from loregraph.access import ApiKey, Role, hash_key, new_key
from loregraph.errors import InputError
from loregraph.store.base import Store

from .scenarios import ContractBase, day


def _key(name: str, secret: str, **roles: Role) -> ApiKey:
    return ApiKey(name, hash_key(secret), roles=dict(roles), created_at=day(len(name)))


class KeyContract(ContractBase):
    """The HTTP server's keys on the backend."""

    async def test_keys_round_trip_by_hash(self, store: Store) -> None:
        secret = new_key()
        key = _key("ci", secret, default=Role.READER, team=Role.WRITER)
        key.roles["*"] = Role.ADMIN
        await store.add_api_key(key)
        found = await store.api_key_by_hash(hash_key(secret))
        assert found is not None
        assert found.name == "ci" and found.key_hash == hash_key(secret)
        assert found.roles == {"default": Role.READER, "team": Role.WRITER, "*": Role.ADMIN}
        assert found.created_at == key.created_at and found.revoked_at is None
        assert await store.api_key_by_hash(hash_key(new_key())) is None
        assert await store.api_key_by_hash(secret) is None  # the secret itself is no lookup

    async def test_a_name_is_taken_once_and_nothing_is_written(self, store: Store) -> None:
        await store.add_api_key(_key("bot", "one", default=Role.READER))
        with pytest.raises(InputError, match="bot"):
            await store.add_api_key(_key("bot", "two", default=Role.ADMIN))
        [only] = await store.list_api_keys()
        assert only.key_hash == hash_key("one") and only.roles == {"default": Role.READER}
        assert await store.api_key_by_hash(hash_key("two")) is None

    async def test_keys_are_listed_oldest_first_and_revoked_once(self, store: Store) -> None:
        await store.add_api_key(_key("longer-name", "b", default=Role.READER))
        await store.add_api_key(_key("short", "a", default=Role.WRITER))
        assert [k.name for k in await store.list_api_keys()] == ["short", "longer-name"]
        assert await store.revoke_api_key("short", day(40))
        assert await store.revoke_api_key("short", day(50))  # the first time is kept
        assert not await store.revoke_api_key("nobody", day(40))
        found = await store.api_key_by_hash(hash_key("a"))
        assert found is not None and found.revoked_at == day(40) and not found.active
        other = await store.api_key_by_hash(hash_key("b"))
        assert other is not None and other.active
