"""The JSON memory file backend: a whole store in one human-readable JSON file."""

from loregraph.store.jsonfile.store import JsonFileStore

__all__ = ["JsonFileStore"]
