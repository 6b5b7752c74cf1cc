"""One JSON form for what the engine returns, used by the command line's ``--json``, the
HTTP server and the MCP tools alike.

A result class is a dataclass that derives from :class:`Record`: its ``to_dict()`` gives
each field by name, in the order the class declares them, converted by :func:`plain`
(times in ISO 8601, enums as their names, tuples and sets as lists, nested records as
dicts). A field's metadata adjusts it: :data:`HIDDEN` leaves it out (a secret, a prompt),
:func:`named` renames it, :func:`rounded` rounds a number, :data:`AS_TEXT` writes its
``str()``. A name starting with ``_`` is never written.

A class whose JSON is not its fields (a summary, a computed view) writes its own
``to_dict()``; :func:`plain` uses it wherever such an object is nested.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from datetime import date, datetime
from enum import Enum
from types import MappingProxyType
from typing import Any

HIDDEN: Mapping[str, Any] = MappingProxyType({"json": False})
"""Field metadata: the field is not written."""
AS_TEXT: Mapping[str, Any] = MappingProxyType({"json_text": True})
"""Field metadata: the field is written as its ``str()``."""


def named(name: str) -> Mapping[str, Any]:
    """Field metadata: the field is written under ``name``."""
    return MappingProxyType({"json_name": name})


def rounded(digits: int) -> Mapping[str, Any]:
    """Field metadata: the number is written rounded to ``digits`` decimals."""
    return MappingProxyType({"json_digits": digits})


def plain(value: Any) -> Any:
    """``value`` in a form ``json.dumps`` takes: an object with ``to_dict()`` by it, any
    other dataclass field by field, a time in ISO 8601, an enum as its ``str()``, a mapping
    as a dict, a tuple, list or set as a list."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if is_dataclass(value) and not isinstance(value, type):
        return record_dict(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return str(value)
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(item) for item in value]
    return value


def record_dict(record: Any) -> dict[str, Any]:
    """The fields of the dataclass instance ``record`` as JSON (see the module docstring)."""
    out: dict[str, Any] = {}
    for spec in fields(record):
        meta = spec.metadata
        if spec.name.startswith("_") or meta.get("json") is False:
            continue
        value = getattr(record, spec.name)
        if meta.get("json_text"):
            value = str(value)
        elif (digits := meta.get("json_digits")) is not None and value is not None:
            value = round(value, digits)
        out[meta.get("json_name", spec.name)] = plain(value)
    return out


class Record:
    """A result whose JSON form is its fields (derive a dataclass from it)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """This result as JSON: each field by name, times in ISO 8601, enums by name."""
        return record_dict(self)
