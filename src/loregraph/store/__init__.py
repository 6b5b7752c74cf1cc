"""Stores: the abstract contract and its backends."""

from loregraph.store.base import SCHEMA_VERSION, Store

__all__ = ["SCHEMA_VERSION", "Store"]
