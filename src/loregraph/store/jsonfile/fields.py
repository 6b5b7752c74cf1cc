"""Reading a JSON memory file's values with their types checked.

A person may edit the file by hand, so every value is checked as it is read, and a wrong one
raises :class:`ShapeError` naming where it is (``entities[3].name``) and what was expected.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from loregraph.models import DEFAULT_SCOPE, aware


class ShapeError(ValueError):
    """A value of the file is missing or of the wrong type; the message says where."""


MISSING = object()


class Fields:
    """The members of one JSON object, read with their types checked.

    >>> Fields({"name": "Ada"}, "entities[0]").text("name")
    'Ada'
    """

    def __init__(self, value: object, where: str) -> None:
        if not isinstance(value, Mapping):
            raise ShapeError(f"{where}: expected an object, found {_kind(value)}")
        self.value: Mapping[str, Any] = value
        self.where = where

    def at(self, key: str) -> str:
        """Where a member is, for a message: ``entities[3].name``."""
        return f"{self.where}.{key}" if self.where else key

    def _get(self, key: str, default: object) -> object:
        found = self.value.get(key, MISSING)
        if found is MISSING or found is None:
            if default is MISSING:
                raise ShapeError(f"{self.at(key)}: missing")
            return default
        return found

    def _wrong(self, key: str, expected: str, found: object) -> ShapeError:
        return ShapeError(f"{self.at(key)}: expected {expected}, found {_kind(found)}")

    def text(self, key: str, default: object = MISSING) -> str:
        """A string member (``default`` when absent or null; required without one)."""
        found = self._get(key, default)
        if not isinstance(found, str):
            raise self._wrong(key, "a string", found)
        return found

    def optional_text(self, key: str) -> str | None:
        """A string member, or ``None`` when absent or null."""
        return None if self.value.get(key) is None else self.text(key)

    def number(self, key: str, default: float) -> float:
        """A number member (``default`` when absent or null)."""
        found = self._get(key, default)
        if isinstance(found, bool) or not isinstance(found, int | float):
            raise self._wrong(key, "a number", found)
        return float(found)

    def integer(self, key: str, default: object = MISSING) -> int:
        """An integer member (``default`` when absent or null; required without one)."""
        found = self._get(key, default)
        if isinstance(found, bool) or not isinstance(found, int):
            raise self._wrong(key, "an integer", found)
        return found

    def moment(self, key: str) -> datetime | None:
        """An ISO 8601 time member (a time without a zone is UTC), or ``None``."""
        found = self.value.get(key)
        if found is None:
            return None
        if not isinstance(found, str):
            raise self._wrong(key, "an ISO 8601 time", found)
        try:
            return aware(datetime.fromisoformat(found))
        except ValueError:
            raise ShapeError(f"{self.at(key)}: {found!r} is not an ISO 8601 time") from None

    def strings(self, key: str) -> list[str]:
        """A list of strings (empty when absent or null)."""
        found = self._get(key, [])
        if not isinstance(found, list) or not all(isinstance(item, str) for item in found):
            raise self._wrong(key, "a list of strings", found)
        return list(found)

    def mapping(self, key: str) -> dict[str, Any]:
        """An object member, as a dict (empty when absent or null)."""
        found = self._get(key, {})
        if not isinstance(found, Mapping):
            raise self._wrong(key, "an object", found)
        return dict(found)

    def items(self, key: str) -> Iterator[Fields]:
        """The objects of a list member (none when absent or null), each as :class:`Fields`."""
        found = self._get(key, [])
        if not isinstance(found, list):
            raise self._wrong(key, "a list", found)
        for index, item in enumerate(found):
            yield Fields(item, f"{self.at(key)}[{index}]")

    def sub(self, key: str) -> Fields:
        """An object member as :class:`Fields` (an empty one when absent or null)."""
        return Fields(self.mapping(key), self.at(key))


def _kind(value: object) -> str:
    """How a JSON value is named in a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, Mapping) else type(value).__name__


def moment_text(moment: datetime | None) -> str | None:
    """A time as the file writes it (ISO 8601), or ``None``."""
    return None if moment is None else moment.isoformat()


def scoped(record: dict[str, Any], scope: str) -> dict[str, Any]:
    """``record`` with its ``scope``, which the file writes only when it is not the default
    scope."""
    if scope != DEFAULT_SCOPE:
        record["scope"] = scope
    return record
