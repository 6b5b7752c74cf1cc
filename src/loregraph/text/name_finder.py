"""Finding the names of known entities in a text, as whole words, any case.

Each entity is found by its name and by each of its aliases; the longest name that matches
wins ("Mr. Quincey P. Morris" before "Morris"), and a name two entities share belongs to the
one given first. An underscore of markdown emphasis joins no words: "_Demeter_" names the
Demeter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from loregraph.models import Entity

MIN_NAME = 2
"""Names shorter than this many characters are not looked for."""


class NameFinder:
    """The names and aliases of ``entities`` (in order of precedence), found in texts."""

    def __init__(self, entities: Sequence[Entity]) -> None:
        self.owner: dict[str, str] = {}
        for entity in entities:
            for name in (entity.name, *entity.aliases):
                key = " ".join(name.split()).casefold()
                if len(key) >= MIN_NAME:
                    self.owner.setdefault(key, entity.id)
        body = "|".join(re.escape(k) for k in sorted(self.owner, key=len, reverse=True))
        self.pattern = (
            re.compile(rf"(?<![^\W_])(?:{body})(?![^\W_])", re.IGNORECASE) if body else None
        )

    def find(self, text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int, str]]:
        """``(start, end, entity id)`` of every name in ``text`` (between ``start`` and
        ``end``). A match whose case-folding differs from the name's ("İ") is left out."""
        if self.pattern is None:
            return []
        found: list[tuple[int, int, str]] = []
        for m in self.pattern.finditer(text, start, len(text) if end is None else end):
            entity_id = self.owner.get(m.group(0).casefold())
            if entity_id is not None:
                found.append((m.start(), m.end(), entity_id))
        return found
