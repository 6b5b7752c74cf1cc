"""Personas: who is asking, read from YAML files.

A persona has a system prompt (given to the model that writes the answer, when one is
configured) and a traversal: how many hops the graph is walked (1 or 2), a weight per
relationship category (:mod:`loregraph.retrieve.results.categories`), how many graph-found passages
are kept, whether linked scopes are read, and the time range its stories come from
(``full``, ``recent``, ``career`` or years such as ``1970-1985``). The biographer, friend,
colleague and family personas ship with the package; a :class:`PersonaLibrary` adds the
``*.yaml`` files of a directory (a file named like a packaged persona replaces it), and a
persona read from any file (:func:`read_persona`) can be passed as it is. A file that
cannot be used raises :class:`~loregraph.errors.ConfigError` naming the file and the field.

The file format::

    name: friend
    description: Personal stories and shared experiences.
    system_prompt: |
      You are an old friend ...
    traversal:
      max_hops: 1
      relationship_weights: {family: 0.5, acquaintance: 1.0, colleague: 0.4, friend: 1.0}
      max_graph_results: 15
      include_cross_legacy: true
      temporal_range: recent
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from loregraph.errors import ConfigError, InputError
from loregraph.retrieve.results.categories import CATEGORIES, OTHER
from loregraph.serial import AS_TEXT, HIDDEN, Record

MAX_HOPS = 2
"""No traversal walks further than two hops."""

DEFAULT_OTHER_WEIGHT = 0.5
"""The weight of a category a persona does not list (and of ``other`` when not listed)."""

NAMED_RANGES = ("full", "recent", "career")
_YEARS = re.compile(r"^\s*(\d{3,4})?\s*-\s*(\d{3,4})?\s*$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_TOP_FIELDS = frozenset(("name", "description", "system_prompt", "traversal"))
_TRAVERSAL_FIELDS = frozenset(
    (
        "max_hops",
        "relationship_weights",
        "max_graph_results",
        "include_cross_legacy",
        "temporal_range",
    )
)


@dataclass(frozen=True, slots=True)
class TemporalRange:
    """A persona's time range: ``full``, ``recent``, ``career`` or ``years``
    (``first``..``last``, either end open)."""

    kind: str = "full"
    first: int | None = None
    last: int | None = None

    def __str__(self) -> str:
        if self.kind != "years":
            return self.kind
        return f"{self.first or ''}-{self.last or ''}"


@dataclass(frozen=True, slots=True)
class Persona(Record):
    """A persona: its system prompt and its traversal settings (see the module docstring)."""

    name: str
    system_prompt: str = field(metadata=HIDDEN)
    max_hops: int = 1
    relationship_weights: Mapping[str, float] = field(default_factory=dict)
    max_graph_results: int = 15
    include_cross_legacy: bool = True
    temporal_range: TemporalRange = field(default_factory=TemporalRange, metadata=AS_TEXT)
    description: str = ""
    source: str = ""

    def weight(self, category: str) -> float:
        """The persona's weight of a relationship category (``other`` for unlisted ones)."""
        weights = self.relationship_weights
        if category in weights:
            return weights[category]
        return weights.get(OTHER, DEFAULT_OTHER_WEIGHT)


def _bad(source: str, name: str, problem: str) -> ConfigError:
    return ConfigError(f"persona file {source}: field {name!r} {problem}")


def _temporal(source: str, raw: object) -> TemporalRange:
    text = str(raw).strip().casefold() if raw is not None else "full"
    if text in NAMED_RANGES:
        return TemporalRange(text)
    match = _YEARS.match(text)
    if match and (match.group(1) or match.group(2)):
        first = int(match.group(1)) if match.group(1) else None
        last = int(match.group(2)) if match.group(2) else None
        if first is None or last is None or first <= last:
            return TemporalRange("years", first, last)
    raise _bad(
        source,
        "traversal.temporal_range",
        f"must be full, recent, career or years such as 1970-1985, got {raw!r}",
    )


def _weights(source: str, raw: object) -> dict[str, float]:
    where = "traversal.relationship_weights"
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise _bad(source, where, "must map relationship categories to weights")
    known = (*CATEGORIES, OTHER)
    out: dict[str, float] = {}
    for key, value in raw.items():
        category = str(key).strip().casefold()
        if category not in known:
            raise _bad(
                source, f"{where}.{key}", f"is not a relationship category ({', '.join(known)})"
            )
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise _bad(source, f"{where}.{key}", f"must be a number from 0 to 1, got {value!r}")
        out[category] = float(value)
    return out


def _int_field(source: str, traversal: Mapping[str, Any], name: str, low: int, high: int) -> int:
    value = traversal.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _bad(
            source, f"traversal.{name}", f"must be a whole number {low}-{high}, got {value!r}"
        )
    return value


def _unknown(source: str, data: Mapping[str, Any], allowed: frozenset[str], prefix: str) -> None:
    for key in data:
        if key not in allowed:
            raise _bad(
                source, f"{prefix}{key}", f"is not a persona field ({', '.join(sorted(allowed))})"
            )


def parse_persona(data: object, source: str, default_name: str = "") -> Persona:
    """A persona from the parsed YAML of one file (``source`` names it in errors)."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"persona file {source}: must be a mapping of persona fields")
    _unknown(source, data, _TOP_FIELDS, "")
    name = str(data.get("name") or default_name).strip()
    if not _NAME.match(name):
        raise _bad(source, "name", f"must be a word (letters, digits, - _ .), got {name!r}")
    prompt = data.get("system_prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise _bad(source, "system_prompt", "must be a non-empty text")
    traversal = data.get("traversal") or {}
    if not isinstance(traversal, Mapping):
        raise _bad(source, "traversal", "must be a mapping of traversal settings")
    _unknown(source, traversal, _TRAVERSAL_FIELDS, "traversal.")
    cross = traversal.get("include_cross_legacy", True)
    if not isinstance(cross, bool):
        raise _bad(
            source, "traversal.include_cross_legacy", f"must be true or false, got {cross!r}"
        )
    return Persona(
        name=name,
        system_prompt=prompt.strip(),
        max_hops=_int_field(source, {"max_hops": 1, **traversal}, "max_hops", 1, MAX_HOPS),
        relationship_weights=_weights(source, traversal.get("relationship_weights")),
        max_graph_results=_int_field(
            source, {"max_graph_results": 15, **traversal}, "max_graph_results", 1, 200
        ),
        include_cross_legacy=cross,
        temporal_range=_temporal(source, traversal.get("temporal_range", "full")),
        description=str(data.get("description") or "").strip(),
        source=source,
    )


def read_persona(path: str | Path) -> Persona:
    """A persona from a YAML file (its name defaults to the file's stem)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"persona file {file}: cannot be read ({exc.strerror})") from None
    return _parse_text(text, str(file), file.stem)


def _parse_text(text: str, source: str, stem: str) -> Persona:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"persona file {source}: not valid YAML{where}") from None
    return parse_persona(data, source, stem)


def packaged_personas() -> dict[str, Persona]:
    """The personas shipped with the package, by name."""
    folder = resources.files("loregraph").joinpath("data", "personas")
    out: dict[str, Persona] = {}
    for item in sorted(folder.iterdir(), key=lambda i: i.name):
        if item.name.endswith(".yaml"):
            stem = item.name.removesuffix(".yaml")
            persona = _parse_text(item.read_text(encoding="utf-8"), f"(packaged) {item.name}", stem)
            out[persona.name] = persona
    return out


class PersonaLibrary:
    """The packaged personas and those of a user directory (``*.yaml``/``*.yml``).

    Args:
        directory: a directory of persona files (``LOREGRAPH_PERSONAS_DIR``); ``None`` for
            the packaged personas only. A missing directory raises ConfigError.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else None
        if self.directory is not None and not self.directory.is_dir():
            raise ConfigError(f"personas directory {str(self.directory)!r} does not exist")
        self._personas: dict[str, Persona] | None = None

    def all(self) -> dict[str, Persona]:
        """Every persona by name, the directory's replacing packaged ones of the same name."""
        if self._personas is None:
            found = packaged_personas()
            if self.directory is not None:
                files = sorted([*self.directory.glob("*.yaml"), *self.directory.glob("*.yml")])
                for file in files:
                    persona = read_persona(file)
                    found[persona.name] = persona
            self._personas = found
        return self._personas

    def get(self, name: str) -> Persona:
        """A persona by name (never a path: a name from a request reads no file).

        Raises :class:`~loregraph.errors.InputError` for an unknown name.
        """
        personas = self.all()
        if name in personas:
            return personas[name]
        raise InputError(f"unknown persona {name!r}; choose one of {', '.join(sorted(personas))}")
