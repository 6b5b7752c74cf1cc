"""The JSON the LLM extractor asks for in its two passes and how replies are checked.

Validators take a parsed reply and return plain records, skipping malformed items (and
counting them) as long as the reply as a whole has the right shape; a reply of the wrong
shape raises ``ValueError`` with a message meant for the model (the corrective retry shows
it). When the reply was truncated, its last item is dropped: it may be half-written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from loregraph.llm.parse import ParsedJSON

MAX_NAME_CHARS = 120
MAX_TEXT_CHARS = 400


def _list_schema(key: str, fields: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A JSON object holding one list, ``key``, of objects with ``fields`` (name → JSON
    type, or a whole property schema)."""
    properties = {
        name: {"type": kind} if isinstance(kind, str) else kind for name, kind in fields.items()
    }
    item = {"type": "object", "properties": properties, "required": required}
    return {
        "type": "object",
        "properties": {key: {"type": "array", "items": item}},
        "required": [key],
    }


ENTITY_SCHEMA = _list_schema(
    "entities",
    {
        "name": "string",
        "type": "string",
        "description": "string",
        "aliases": {"type": "array", "items": {"type": "string"}},
        "salience": "number",
        "mentions": "integer",
        "confidence": "number",
    },
    ["name", "type", "description", "salience", "mentions"],
)

RELATION_SCHEMA = _list_schema(
    "relationships",
    {
        "source": "string",
        "target": "string",
        "type": "string",
        "fact": "string",
        "evidence": "string",
        "confidence": "number",
    },
    ["source", "target", "type"],
)


@dataclass(slots=True)
class RawEntity:
    """An entity as the model listed it for one mega-batch."""

    name: str
    type: str
    description: str = ""
    aliases: list[str] = field(default_factory=list)
    salience: float = 3.0
    mentions: int = 1
    confidence: float = 1.0


@dataclass(slots=True)
class RawRelation:
    """A relationship as the model listed it for one mega-batch."""

    source: str
    target: str
    type: str
    fact: str = ""
    evidence: str = ""
    confidence: float = 1.0


@dataclass(slots=True)
class Items:
    """Validated items of one reply and how many were skipped as malformed."""

    entities: list[RawEntity] = field(default_factory=list)
    relations: list[RawRelation] = field(default_factory=list)
    malformed: int = 0


def _text(value: Any, limit: int) -> str:
    if value is None or isinstance(value, dict | list):
        return ""
    return " ".join(str(value).split())[:limit]


def _number(value: Any, default: float, low: float, high: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    if number != number:  # NaN
        return default
    return max(low, min(high, number))


def _confidence(value: Any) -> float:
    """0..1; a percentage (85) is read as 0.85; missing means the model did not doubt."""
    number = _number(value, 1.0, 0.0, 100.0)
    return number / 100.0 if number > 1.0 else number


def _items(parsed: ParsedJSON, key: str) -> list[Any]:
    value = parsed.value
    if isinstance(value, dict):
        items = value.get(key)
        if items is None and len(value) == 1:
            items = next(iter(value.values()))
    else:
        items = value
    if not isinstance(items, list):
        raise ValueError(f'expected a JSON object {{"{key}": [...]}} with a list of {key}')
    if parsed.truncated and items:
        items = items[:-1]
    return items


def rel_type(raw: str) -> str:
    """A relationship type in UPPER_SNAKE_CASE (``"lives in"`` → ``LIVES_IN``)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", raw.strip())
    return re.sub(r"[^A-Za-z0-9]+", "_", spaced).strip("_").upper()


def validate_entities(parsed: ParsedJSON) -> Items:
    """The entities of an entity-pass reply."""
    out = Items()
    items = _items(parsed, "entities")
    for item in items:
        name = _text(item.get("name"), MAX_NAME_CHARS) if isinstance(item, dict) else ""
        if not name:
            out.malformed += 1
            continue
        aliases_raw = item.get("aliases") or []
        aliases = (
            [_text(a, MAX_NAME_CHARS) for a in aliases_raw if isinstance(a, str)]
            if isinstance(aliases_raw, list)
            else []
        )
        out.entities.append(
            RawEntity(
                name=name,
                type=_text(item.get("type"), 60) or "Concept",
                description=_text(item.get("description"), MAX_TEXT_CHARS),
                aliases=[a for a in aliases if a and a != name],
                salience=_number(item.get("salience"), 3.0, 1.0, 5.0),
                mentions=int(_number(item.get("mentions"), 1.0, 1.0, 1e6)),
                confidence=_confidence(item.get("confidence")),
            )
        )
    if items and not out.entities:
        raise ValueError('every entity lacked a "name"; each item needs name, type, description')
    return out


def validate_relations(parsed: ParsedJSON) -> Items:
    """The relationships of a relationship-pass reply."""
    out = Items()
    items = _items(parsed, "relationships")
    for item in items:
        if not isinstance(item, dict):
            out.malformed += 1
            continue
        source = _text(item.get("source"), MAX_NAME_CHARS)
        target = _text(item.get("target"), MAX_NAME_CHARS)
        kind = rel_type(_text(item.get("type") or item.get("relationship"), 80))
        if not source or not target or not kind:
            out.malformed += 1
            continue
        out.relations.append(
            RawRelation(
                source=source,
                target=target,
                type=kind,
                fact=_text(item.get("fact") or item.get("description"), MAX_TEXT_CHARS),
                evidence=_text(item.get("evidence") or item.get("quote"), MAX_TEXT_CHARS),
                confidence=_confidence(item.get("confidence")),
            )
        )
    if items and not out.relations:
        raise ValueError(
            'every relationship lacked "source", "target" or "type"; each item needs all three'
        )
    return out
