"""Grounding: what a model extracted must be in the text it was given.

A weak model names people who are not there, copies names from the prompt's examples or
misspells the ones that are. Every entity the model lists for a mega-batch, and each end of
every relation, is looked up in that batch's text:

1. **exact**: the name or one of its aliases (or the name without a leading title) as whole
   words, case-sensitively;
2. **case**: the same, ignoring case (``JOHN SEWARD`` in a letter's heading): the name is
   kept and the text's spelling is added as an alias, so its mentions are counted;
3. **fuzzy**: a run of as many words in the text whose similarity to the name is at least
   :data:`FUZZY_GROUNDING` (rapidfuzz ``ratio``, case ignored; names of at least
   :data:`MIN_FUZZY_CHARS` characters): the entity takes the text's spelling (``Jonathon
   Harker`` becomes ``Jonathan Harker`` and merges with it).

Anything else is dropped and counted (``entities_ungrounded``, ``relations_ungrounded``).
A reply none of whose entities is in its batch (a small model copying the prompt's example,
``"Entity name"``) is no better than an unusable one: its batch is extracted offline.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import Literal

from rapidfuzz import fuzz, process

from loregraph.ingest.extract.llm_schema import Items, RawEntity
from loregraph.text import names

FUZZY_GROUNDING = 90.0
MIN_FUZZY_CHARS = 5
_WORD = re.compile(r"\w+(?:['’.-]\w+)*")
Match = Literal["exact", "case", "fuzzy"]


def surfaces_of(name: str, aliases: Iterable[str]) -> list[str]:
    """The strings an entity is searched by: name, aliases, name without leading titles."""
    out = [name, *aliases]
    titles, rest = names.split_title(name)
    if titles and " " in rest:  # "Dr. John Seward" → "John Seward", never a bare surname
        out.append(rest)
    cleaned = [" ".join(s.split()) for s in out]
    return list(dict.fromkeys(s for s in cleaned if len(s) >= 2))


@lru_cache(maxsize=4096)
def _pattern(surface: str, ignore_case: bool) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(w) for w in surface.split())
    flags = re.IGNORECASE if ignore_case else 0
    return re.compile(rf"(?<!\w){body}(?:['’]s)?(?!\w)", flags)


class TextGrounder:
    """Finds names in one text (a mega-batch): exactly, ignoring case, or fuzzily."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._spans: list[tuple[int, int]] | None = None
        self._runs: dict[int, list[str]] = {}

    def exact(self, surface: str) -> bool:
        """Whether ``surface`` occurs as whole words, case-sensitively."""
        return bool(surface.strip()) and _pattern(surface, False).search(self.text) is not None

    def ignoring_case(self, surface: str) -> str | None:
        """The text's spelling of ``surface`` when it occurs with other capitals."""
        if not surface.strip():
            return None
        m = _pattern(surface, True).search(self.text)
        return None if m is None else _strip_possessive(m.group(0))

    def fuzzy(self, name: str) -> str | None:
        """The run of words most like ``name`` (score ≥ :data:`FUZZY_GROUNDING`), if any."""
        words = name.split()
        if len(name) < MIN_FUZZY_CHARS or not words:
            return None
        runs = self._word_runs(len(words))
        best = process.extractOne(
            name.casefold(),
            runs,
            scorer=fuzz.ratio,
            processor=str.casefold,
            score_cutoff=FUZZY_GROUNDING,
        )
        return None if best is None else str(best[0])

    def _word_runs(self, size: int) -> list[str]:
        """Every run of ``size`` consecutive words, as written (whitespace normalised)."""
        if size not in self._runs:
            if self._spans is None:
                self._spans = [m.span() for m in _WORD.finditer(self.text)]
            spans, text = self._spans, self.text
            runs = {
                " ".join(text[spans[i][0] : spans[i + size - 1][1]].split())
                for i in range(max(0, len(spans) - size + 1))
            }
            self._runs[size] = sorted(runs)
        return self._runs[size]

    def locate(self, name: str, aliases: list[str] | None = None) -> tuple[Match, str] | None:
        """How ``name`` (or an alias) is found: ``(match, surface in the text)``, else None."""
        surfaces = surfaces_of(name, aliases or [])
        for surface in surfaces:
            if self.exact(surface):
                return "exact", surface
        for surface in surfaces:
            found = self.ignoring_case(surface)
            if found is not None:
                return "case", found
        found = self.fuzzy(name)
        if found is not None:
            return "fuzzy", found
        return None


def _strip_possessive(text: str) -> str:
    return re.sub(r"['’]s$", "", text)


def ground_entity(entity: RawEntity, grounder: TextGrounder) -> tuple[RawEntity, Match] | None:
    """The entity as grounded in the text (module doc), or ``None`` when it is not there."""
    found = grounder.locate(entity.name, entity.aliases)
    if found is None:
        return None
    how, surface = found
    if how == "exact":
        return entity, how
    if how == "case":
        aliases = list(dict.fromkeys([*entity.aliases, surface]))
        return dataclasses.replace(entity, aliases=aliases), how
    aliases = [a for a in entity.aliases if a != surface]
    return dataclasses.replace(entity, name=surface, aliases=aliases), how


def ground_listing(text: str, items: Items, stats: Counter[str]) -> list[RawEntity] | None:
    """The entities of one batch's reply that its ``text`` holds (module doc), counted in
    ``stats``; ``None`` when the reply listed entities and none of them is there."""
    grounder = TextGrounder(text)
    out: list[RawEntity] = []
    stats["entities_malformed"] += items.malformed
    for listed in items.entities:
        stats["entities_listed"] += 1
        grounded = ground_entity(listed, grounder)
        if grounded is None:  # not in the text the model was given
            stats["entities_ungrounded"] += 1
            continue
        entity, how = grounded
        if how == "fuzzy":
            stats["entities_grounded_fuzzy"] += 1
        out.append(entity)
    return None if items.entities and not out else out
