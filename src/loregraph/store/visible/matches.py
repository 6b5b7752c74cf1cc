"""Whether an entity a search found still matches through what a reader sees of it.

A store searches every name, alias and description an entity has. An entity a reader sees
may have been found by an alias or a description that only an unreadable document gave:
showing it as a hit would tell the reader that the unreadable text is about it. So a hit is
kept only when the reader's view of the entity matches the query on its own (the same
trigram similarity for names, a shared word for text), and a fuzzy hit is scored again on
the visible names.
"""

from __future__ import annotations

import re

from loregraph.models import Entity, Scored, name_key
from loregraph.store.names import trigram_similarity, trigrams

_WORD = re.compile(r"\w+", re.UNICODE)


def names_of(entity: Entity) -> set[str]:
    """The name keys a reader sees an entity by: its name's and its aliases'."""
    return {key for key in (name_key(entity.name), *map(name_key, entity.aliases)) if key}


def rescored_by_name(name: str, hits: list[Scored], shown: dict[str, Entity]) -> list[Scored]:
    """Fuzzy ``hits`` scored again on the visible names, best first (no match: dropped)."""
    grams = trigrams(name_key(name))
    scored = []
    for hit in hits:
        entity = shown.get(hit.id)
        if entity is None:
            continue
        score = max((trigram_similarity(grams, trigrams(k)) for k in names_of(entity)), default=0.0)
        if score > 0:
            scored.append(Scored(hit.id, score))
    scored.sort(key=lambda hit: (-hit.score, hit.id))
    return scored


def matches_text(query: str, entity: Entity) -> bool:
    """Whether a word of ``query`` is in the entity's visible name, aliases or description."""
    words = {w.casefold() for w in _WORD.findall(query)}
    seen = " ".join([entity.name, *entity.aliases, entity.description])
    return bool(words & {w.casefold() for w in _WORD.findall(seen)})
