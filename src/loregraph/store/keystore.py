"""The API key part of the store contract (a base of :class:`~loregraph.store.base.Store`).

The HTTP server's keys are kept by the hash of their secret, never the secret, and belong
to no scope (a key names the scopes it opens: :class:`~loregraph.access.ApiKey`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime

from loregraph.access import ApiKey


class KeyStore(ABC):
    """What every store keeps of the HTTP server's API keys."""

    @abstractmethod
    async def add_api_key(self, key: ApiKey) -> None:
        """Store a new key. Raises :class:`~loregraph.errors.InputError` when a key of the
        same name (revoked or not) exists, and writes nothing."""

    @abstractmethod
    async def api_key_by_hash(self, key_hash: str) -> ApiKey | None:
        """The key whose secret hashes to ``key_hash`` (revoked ones included)."""

    @abstractmethod
    async def list_api_keys(self) -> list[ApiKey]:
        """Every key, revoked ones included, oldest first."""

    @abstractmethod
    async def revoke_api_key(self, name: str, at: datetime) -> bool:
        """Revoke the key called ``name`` from ``at`` on; ``False`` when there is no such
        key. Revoking a revoked key keeps its first revocation time (and returns ``True``)."""
