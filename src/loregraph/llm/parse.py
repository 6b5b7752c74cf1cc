"""Tolerant parsing of a model's JSON reply.

Models asked for JSON without a schema-constrained mode wrap it in code fences, add prose
before and after, leave trailing commas, use single quotes (Python literals) or stop
mid-object when they run out of tokens. :func:`parse_json` accepts all of these and says
which repairs it made, so they can be counted and reported.

Decision: the syntax repair (trailing commas, quotes, unterminated strings and brackets,
comments, Python literals) is delegated to ``json-repair`` (PyPI, pure Python, no
dependencies, ~20 ms import), which handled every malformed variant in this package's
tests; this module adds what it does not decide for us: locating the JSON in prose
(``"The {best} answer: {...}"`` otherwise parses the wrong braces), detecting truncation
(so a half-written last item can be dropped), naming the repairs, and rejecting replies
with no JSON at all (json-repair returns ``""`` for those).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from loregraph.errors import DependencyError

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js)?[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
_OBJECT_START = re.compile(r"[{\[]\s*(?:[\"'}\]{\[]|$)")
_TRAILING_COMMA = re.compile(r",\s*[}\]]")
_SINGLE_QUOTED_KEY = re.compile(r"[{,]\s*'[^'\n]*'\s*:")


class JSONParseError(ValueError):
    """A reply that holds no usable JSON; the message says why (shown to the model)."""


@dataclass(slots=True)
class ParsedJSON:
    """A parsed reply; ``repairs`` names what had to be fixed (empty when it was clean)."""

    value: Any
    repairs: list[str] = field(default_factory=list)

    @property
    def repaired(self) -> bool:
        """True when the reply was not valid JSON as sent."""
        return bool(self.repairs)

    @property
    def truncated(self) -> bool:
        """True when the reply stopped mid-JSON (its last list item may be incomplete)."""
        return "truncated" in self.repairs


def _repair_loads(text: str) -> Any:
    try:
        import json_repair
    except ImportError:  # pragma: no cover - depends on the environment
        raise DependencyError(
            "parsing LLM replies needs json-repair: pip install 'loregraph[llm]'"
        ) from None
    return json_repair.loads(text)


def _is_balanced(text: str) -> bool:
    """Whether brackets and double-quoted strings are all closed (single quotes ignored)."""
    depth = 0
    in_string = False
    escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return depth <= 0 and not in_string


def _matching_end(text: str, start: int) -> int | None:
    """Index just after the bracket that closes the one at ``start`` (strings respected)."""
    stack: list[str] = []
    quote = ""
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch == '"':
            quote = ch
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return i + 1
    return None


def parse_json(text: str) -> ParsedJSON:
    """Parse a reply that should be a JSON object (or array), repairing what is needed.

    Raises :class:`JSONParseError` when there is nothing JSON-like in it (empty reply,
    a refusal in prose).
    """
    stripped = text.strip()
    if not stripped:
        raise JSONParseError("the reply was empty; a JSON object was expected")
    try:
        return ParsedJSON(json.loads(stripped))
    except ValueError:
        pass

    repairs: list[str] = []
    body = stripped
    fence = _FENCE.search(body)
    if fence is not None and "```" in body:
        repairs.append("code fence")
        body = fence.group(1).strip()
    match = _OBJECT_START.search(body)
    if match is None:
        raise JSONParseError(
            "the reply held no JSON object; reply with only the JSON object, no prose"
        )
    start = match.start()
    end = _matching_end(body, start)
    prose_after = end is not None and body[end:].strip() != ""
    if start > 0 or prose_after:
        repairs.append("prose around JSON")
    body = body[start:end] if end is not None else body[start:]
    try:
        return ParsedJSON(json.loads(body), repairs)
    except ValueError:
        pass

    if not _is_balanced(body):
        repairs.append("truncated")
    if _TRAILING_COMMA.search(body):
        repairs.append("trailing comma")
    if _SINGLE_QUOTED_KEY.search(body) or body.startswith(("{'", "['")):
        repairs.append("single quotes")
    value = _repair_loads(body)
    if value == "" or value is None or isinstance(value, str | int | float | bool):
        raise JSONParseError("the reply could not be read as JSON; send one valid JSON object")
    if len(repairs) == len([r for r in repairs if r in ("code fence", "prose around JSON")]):
        repairs.append("syntax")
    return ParsedJSON(value, repairs)
