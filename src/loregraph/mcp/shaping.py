"""What a tool call hands back, shaped for an agent: arguments refused in one line each,
and results cut to a size an agent's context can take.

:func:`refusal` turns pydantic's validation error into ``argument: problem`` lines
(no error codes, no links). :func:`capped` cuts a result whose JSON is longer than the
server's cap: long texts first (each keeps its beginning), then the tail of the longest
lists, and ends the result with a ``cut`` note saying what was cut and how to get the rest.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

RESULT_CHARS = 40_000
"""The default cap on a tool result: characters of its JSON (about 10,000 tokens)."""
LEAST_CHARS = 1_000
"""The smallest cap a server accepts."""
TEXT_SHARE = 10
"""A cut text keeps this share (1/n) of the cap."""


def refusal(error: ValidationError) -> str:
    """One line per refused argument: its name, what is wrong, and the value given."""
    lines = []
    for problem in error.errors(include_url=False):
        where = ".".join(str(part) for part in problem["loc"]) or "arguments"
        message = str(problem["msg"])
        if problem["type"] == "missing":
            lines.append(f"{where}: this argument is required")
            continue
        given = problem.get("input")
        shown = f" (got {json.dumps(given, default=str)[:80]})" if given is not None else ""
        lines.append(f"{where}: {message[:1].lower()}{message[1:]}{shown}")
    return "; ".join(lines)


def as_text(result: Any) -> str:
    """``result`` as the JSON text a tool call carries."""
    return json.dumps(result, ensure_ascii=False, indent=2)


def size(result: Any) -> int:
    """The length of ``result`` as the JSON text the agent reads."""
    return len(as_text(result))


def capped(result: dict[str, Any], limit: int) -> dict[str, Any]:
    """``result`` when its JSON fits ``limit`` characters; else a copy with long texts
    shortened and the longest lists' tails left out, ending with a ``cut`` note."""
    if size(result) <= limit:
        return result
    cuts: list[str] = []
    keep = max(limit // TEXT_SHARE, 100)
    shortened = _shorten(result, keep, "", cuts)
    assert isinstance(shortened, dict)
    kept_lists = _drop_tails(shortened, limit, cuts)
    note = "this result was cut to fit the server's cap of {:,} characters: {}.".format(
        limit, "; ".join(cuts)
    )
    hint = _hint(cuts, kept_lists)
    return {**shortened, "cut": f"{note} {hint}"}


def _shorten(value: Any, keep: int, path: str, cuts: list[str]) -> Any:
    """``value`` with each string longer than ``keep`` shortened to it (recorded in ``cuts``)."""
    if isinstance(value, str) and len(value) > keep:
        cuts.append(f"{path or 'the text'} keeps its first {keep:,} of {len(value):,} characters")
        return value[:keep] + "…"
    if isinstance(value, dict):
        return {k: _shorten(v, keep, _join(path, k), cuts) for k, v in value.items()}
    if isinstance(value, list):
        return [_shorten(v, keep, f"{path}[{i}]", cuts) for i, v in enumerate(value)]
    return value


def _drop_tails(result: dict[str, Any], limit: int, cuts: list[str]) -> bool:
    """Leave out the last items of the result's longest top-level lists until it fits
    ``limit`` (with room for the note); whether any item was left out."""
    room = limit - 600
    dropped = False
    lists = sorted(
        (k for k, v in result.items() if isinstance(v, list) and v),
        key=lambda k: -size(result[k]),
    )
    for key in lists:
        items: list[Any] = result[key]
        total = len(items)
        while len(items) > 1 and size(result) > room:
            del items[-max(1, len(items) // 4) :]
        if len(items) == 1 and size(result) > room:
            items.clear()
        if len(items) < total:
            cuts.append(f"{key} keeps {len(items)} of {total} items")
            dropped = True
    return dropped


def _hint(cuts: list[str], kept_lists: bool) -> str:
    """How to get what was cut."""
    hints = []
    if kept_lists:
        hints.append("ask again with a smaller limit (or budget) or a narrower query")
    if any("characters" in cut for cut in cuts):
        hints.append(
            "a shortened text is stored whole: read it by the id next to it (a passage "
            "by its chunk_id) or ask about the part you need"
        )
    return ("To get the rest, " + "; ".join(hints) + ".") if hints else ""


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
