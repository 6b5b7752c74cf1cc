"""The API key part of the store contract (a base of :class:`~loregraph.store.base.Store`),
written once over the ledger (:mod:`.ledger`).

The HTTP server's keys are kept by the hash of their secret, never the secret, and belong
to no scope (a key names the scopes it opens: :class:`~loregraph.access.ApiKey`).
"""

from __future__ import annotations

from datetime import datetime

from loregraph.access import ApiKey
from loregraph.errors import InputError
from loregraph.store.ledger import API_KEY, Ledger, LedgerQuery, key_of, key_row


class KeyStore(Ledger):
    """What every store keeps of the HTTP server's API keys."""

    async def add_api_key(self, key: ApiKey) -> None:
        """Store a new key. Raises :class:`~loregraph.errors.InputError` when a key of the
        same name (revoked or not) exists, and writes nothing."""
        if not await self.ledger_put(key_row(key), replace=False):
            raise InputError(
                f"a key called {key.name!r} exists already (revoked keys keep their names)"
            )

    async def api_key_by_hash(self, key_hash: str) -> ApiKey | None:
        """The key whose secret hashes to ``key_hash`` (revoked ones included)."""
        return next((k for k in await self.list_api_keys() if k.key_hash == key_hash), None)

    async def list_api_keys(self) -> list[ApiKey]:
        """Every key, revoked ones included, oldest first."""
        keys = [key_of(row) for row in await self.ledger_rows(LedgerQuery(API_KEY))]
        return sorted(keys, key=lambda k: k.created_at)

    async def revoke_api_key(self, name: str, at: datetime) -> bool:
        """Revoke the key called ``name`` from ``at`` on; ``False`` when there is no such
        key. Revoking a revoked key keeps its first revocation time (and returns ``True``)."""
        key = next((k for k in await self.list_api_keys() if k.name == name), None)
        if key is None:
            return False
        if key.revoked_at is None:
            key.revoked_at = at
            await self.ledger_put(key_row(key))
        return True
