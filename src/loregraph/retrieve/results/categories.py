"""Relation types mapped onto the relationship categories personas weigh.

The graph's relation types are open (``MARRIED_TO``, ``WORKS_FOR``, ``VISITED``...); a
persona weighs a few categories: ``family``, ``friend``, ``colleague``, ``acquaintance``,
``place``, ``event`` and ``other``. The mapping is data, the packaged
``data/relation_categories.yaml``: for each category the words of relation types that
belong to it. A type is split into words at ``_``; the first category (in the file's order)
listing one of its words is the type's category; a type with none is ``other``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from importlib import resources

import yaml

OTHER = "other"
PEOPLE_CATEGORIES = ("family", "friend", "colleague", "acquaintance")
"""The categories of relationships between people."""

CATEGORIES = (*PEOPLE_CATEGORIES, "place", "event")
"""Every category the packaged mapping defines, in the order types are matched."""


@lru_cache(maxsize=1)
def category_words() -> Mapping[str, frozenset[str]]:
    """The packaged mapping: category → the relation-type words that belong to it."""
    text = resources.files("loregraph").joinpath("data", "relation_categories.yaml")
    data = yaml.safe_load(text.read_text(encoding="utf-8"))
    return {name: frozenset(str(w).casefold() for w in data.get(name) or ()) for name in CATEGORIES}


@lru_cache(maxsize=4096)
def category_of(relation_type: str) -> str:
    """The relationship category of a relation type (``other`` when no word is listed)."""
    words = [w for w in relation_type.casefold().replace("-", "_").split("_") if w]
    for name, listed in category_words().items():
        if any(w in listed for w in words):
            return name
    return OTHER
