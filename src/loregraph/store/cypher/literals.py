"""FalkorDB query parameters as the ``CYPHER name=value ...`` header the server parses.

FalkorDB takes parameters as Cypher literals in a header before the query text. The
``falkordb`` client can build that header, but it walks every value in Python, one call per
list element: a bundle of thousands of 384-d embeddings spent more time there than the
server spent writing. :func:`params_header` renders the same literals (strings escaped the
same way: backslash, then double quote) and writes float32 vectors with one ``%`` format per
vector, using nine significant digits, enough for every float32 to read back exactly.

Values are what :func:`~loregraph.store.props.plain` accepts, plus NumPy arrays;
anything else is a ``TypeError`` and a non-finite number a ``ValueError``, before anything
is sent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from loregraph.store.cypher.dialect import identifier


def quote(text: str) -> str:
    """A Cypher string literal (the client's escaping: backslash, then double quote)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@lru_cache(maxsize=16)
def _float32_format(size: int) -> str:
    return "[" + ",".join(["%.9g"] * size) + "]"


def _array(value: np.ndarray[Any, Any]) -> str:
    flat = value.reshape(-1)
    if flat.dtype.kind in "iub":
        return literal(flat.tolist())
    if flat.dtype.kind != "f":
        return literal(flat.tolist())
    if not bool(np.isfinite(flat).all()):
        raise ValueError("a non-finite number cannot be stored")
    if flat.dtype.itemsize > 4:
        return "[" + ",".join(map(repr, flat.tolist())) + "]"
    if flat.size == 0:
        return "[]"
    return _float32_format(flat.size) % tuple(flat.tolist())


def literal(value: Any) -> str:
    """``value`` as a Cypher literal for the parameter header."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"a non-finite number cannot be stored: {value!r}")
        return repr(value)
    if isinstance(value, np.ndarray):
        return _array(value)
    if isinstance(value, np.generic):
        return literal(value.item())
    if isinstance(value, Mapping):
        return "{" + ",".join(f"`{_key(k)}`:{literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Sequence):
        return "[" + ",".join(map(literal, value)) + "]"
    raise TypeError(f"cannot pass {type(value).__name__} as a Cypher parameter")


def _key(key: object) -> str:
    """A map key (all of them are names from this package: identifiers)."""
    text = str(key)
    return text if text in _KEYS else _checked_key(text)


_KEYS: set[str] = set()


def _checked_key(text: str) -> str:
    identifier(text)
    if len(_KEYS) < 4096:
        _KEYS.add(text)
    return text


def params_header(params: Mapping[str, Any] | None) -> str:
    """``CYPHER a=1 b="x" `` for ``params`` (empty when there are none)."""
    if not params:
        return ""
    return "CYPHER " + " ".join(f"{identifier(k)}={literal(v)}" for k, v in params.items()) + " "
