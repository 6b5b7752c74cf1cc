"""The six intents of a question asked through a persona, from rules, and the words of the
last conversation turns that "her" or "that place" stand for.

Intents: ``relational`` (relationships between people), ``temporal`` (a time period or a
sequence), ``spatial`` (a place), ``entity_focused`` (a specific thing or event),
``general`` (open-ended) and ``cross_legacy`` (what others remember, other collections).
:func:`rule_route` decides offline, in this order: words asking for others' memories →
cross_legacy; words of a relationship ("relationship", "get along"), or two people named
→ relational; a time period named → temporal; a person named with a word of a
relationship category ("Dad", "her friend") → relational; time words → temporal; a place
named or place words → spatial; an event or thing named or event words → entity_focused;
else general. The question's entities are sorted into categories (people, places, time
periods, events, objects) by their entity type.

:func:`resolve_references` reads the last turns (oldest first) for the entities they name:
a personal pronoun of the question stands for the person named last, "there" or "that
place" for the place named last, "that event/day/trip" for the event or thing named last.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from loregraph.models import Entity
from loregraph.retrieve.results.categories import PEOPLE_CATEGORIES, category_words
from loregraph.text.entity_types import EVENT, LOCATION, ORGANIZATION, PERSON, PRODUCT, TIME

PersonaIntent = Literal[
    "relational", "temporal", "spatial", "entity_focused", "general", "cross_legacy"
]
INTENT_NAMES: tuple[PersonaIntent, ...] = (
    "relational",
    "temporal",
    "spatial",
    "entity_focused",
    "general",
    "cross_legacy",
)
ENTITY_CATEGORIES = ("people", "places", "time_periods", "events", "objects")
OTHER_ENTITIES = "other"
"""Where a route keeps the question's entities of no category (concepts, titles)."""
TYPE_CATEGORY: Mapping[str, str] = {
    PERSON: "people",
    LOCATION: "places",
    ORGANIZATION: "places",
    TIME: "time_periods",
    EVENT: "events",
    PRODUCT: "objects",
}
"""An entity type's category (organisations count as places: where someone worked)."""

MAX_TURNS = 3
"""How many of the last conversation turns are read for references."""

_CROSS = re.compile(
    r"\b(others?|other people|anyone else|everyone|everybody|somebody else|someone else|"
    r"other famil(?:y|ies)|other collections?|linked|perspectives?|what do people)\b",
    re.IGNORECASE,
)
_RELATIONAL = re.compile(
    r"\b(relationships?|relations? with|get along|got along|each other|"
    r"how did (?:they|the two) meet|feel about|friendship|marriage)\b",
    re.IGNORECASE,
)
_DECADE = re.compile(r"\b(?:(1\d|20)(\d)0|'?([2-9])0)['’]?s\b")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_WORD_DECADES = {
    "twenties": 1920, "thirties": 1930, "forties": 1940, "fifties": 1950,
    "sixties": 1960, "seventies": 1970, "eighties": 1980, "nineties": 1990,
}  # fmt: skip
_WORD_DECADE = re.compile(
    r"(?<!her )(?<!his )(?<!their )(?<!my )(?<!our )(?<!your )\b("
    + "|".join(_WORD_DECADES)
    + r")\b",
    re.IGNORECASE,
)  # "the sixties", not "her twenties" (an age)
_TIME_WORDS = re.compile(
    r"\b(when|during|childhood|youth|early years|later years|years|decade|era|period|"
    r"century|before|after|growing up|as a (?:child|boy|girl|young)|retire(?:d|ment)?)\b",
    re.IGNORECASE,
)
_PLACE_WORDS = re.compile(
    r"\b(where|place|house|home|cabin|farm|town|city|village|country|street|church|"
    r"school|lake|beach|garden|neighbou?rhood|lived|moved to)\b",
    re.IGNORECASE,
)
_EVENT_WORDS = re.compile(
    r"\b(reunion|wedding|funeral|party|trip|holiday|vacation|birthday|graduation|"
    r"christmas|anniversary|celebration|ceremony|journey|accident|war|storm|heirloom|"
    r"watch|ring|letter|photo(?:graph)?|recipe)\b",
    re.IGNORECASE,
)
_PERSONAL = re.compile(r"\b(he|she|him|her|his|hers|they|them|their)\b", re.IGNORECASE)
_PLACE_REF = re.compile(
    r"\b(?:that|this|the same) (?:place|house|home|town|city|village|farm|cabin|spot|"
    r"country)\b|\bthere\b",
    re.IGNORECASE,
)
_THING_REF = re.compile(
    r"\b(?:that|this|the same) (?:event|day|time|trip|party|wedding|reunion|thing|"
    r"holiday|gathering)\b",
    re.IGNORECASE,
)


@dataclass(slots=True)
class IntentRoute:
    """A question's intent, its entities by category, the period it asks about.

    ``entities`` maps a category to entity names; ``entity_ids`` maps a name to the id of
    the stored entity it names. ``source`` is ``rules``, ``llm`` or ``fallback`` (the model
    failed or was unsure: ``general``, ``reason`` says why). ``references`` maps a
    referring word of the question ("her") to the entity name it was resolved to.
    """

    intent: PersonaIntent = "general"
    entities: dict[str, list[str]] = field(default_factory=dict)
    entity_ids: dict[str, str] = field(default_factory=dict)
    period: tuple[int, int] | None = None
    confidence: float = 1.0
    source: str = "rules"
    reason: str | None = None
    references: dict[str, str] = field(default_factory=dict)
    relation_words: list[str] = field(default_factory=list)
    """Words of the question naming a relationship ("mother", "friends")."""

    def names(self, *categories: str) -> list[str]:
        """The entity names of these categories (all when none is given)."""
        wanted = categories or (*ENTITY_CATEGORIES, OTHER_ENTITIES)
        return [n for c in wanted for n in self.entities.get(c, [])]

    def ids(self, *categories: str) -> list[str]:
        """The stored entity ids of these categories (all when none is given)."""
        return list(
            dict.fromkeys(
                self.entity_ids[n] for n in self.names(*categories) if n in self.entity_ids
            )
        )


def question_period(text: str) -> tuple[int, int] | None:
    """The years a text asks about: a decade ("1970s", "the 80s", "the fifties") or the
    span of the years it names; ``None`` when it names none."""
    spans: list[tuple[int, int]] = []
    for match in _DECADE.finditer(text):
        if match.group(3):
            start = 1900 + int(match.group(3)) * 10
        else:
            start = int(match.group(1) + match.group(2) + "0")
        spans.append((start, start + 9))
    for match in _WORD_DECADE.finditer(text):
        start = _WORD_DECADES[match.group(1).casefold()]
        spans.append((start, start + 9))
    decade_text = _DECADE.sub(" ", text)
    spans.extend((int(y), int(y)) for y in _YEAR.findall(decade_text))
    if not spans:
        return None
    return min(s[0] for s in spans), max(s[1] for s in spans)


def categorise(entities: Sequence[Entity]) -> dict[str, list[str]]:
    """Entity names by category; entities of a type with none (a concept, a title) under
    ``other``."""
    out: dict[str, list[str]] = {}
    for entity in entities:
        category = TYPE_CATEGORY.get(entity.type, OTHER_ENTITIES)
        if entity.name not in out.get(category, []):
            out.setdefault(category, []).append(entity.name)
    return out


def _relation_words() -> frozenset[str]:
    words = category_words()
    return frozenset(w for c in PEOPLE_CATEGORIES for w in words[c])


def relation_words(question: str) -> list[str]:
    """The question's words that name a relationship between people (the relation-type
    words of :mod:`.categories`' people categories), in order."""
    listed = _relation_words()
    found = (w.strip("'’").casefold() for w in re.findall(r"[\w'’]+", question))
    return list(dict.fromkeys(w for w in found if w in listed))


def rule_intent(question: str, entities: Mapping[str, Sequence[str]]) -> PersonaIntent:
    """The intent by the rules of the module docstring."""
    if _CROSS.search(question):
        return "cross_legacy"
    lowered = {w.strip("'’").casefold() for w in re.findall(r"[\w'’]+", question)}
    if _RELATIONAL.search(question) or len(entities.get("people", ())) >= 2:
        return "relational"
    if question_period(question) or entities.get("time_periods"):
        return "temporal"
    if lowered & _relation_words() and entities.get("people"):
        return "relational"
    if _TIME_WORDS.search(question):
        return "temporal"
    if entities.get("places") or _PLACE_WORDS.search(question):
        return "spatial"
    if entities.get("events") or entities.get("objects") or _EVENT_WORDS.search(question):
        return "entity_focused"
    return "general"


def rule_route(question: str, entities: Sequence[Entity]) -> IntentRoute:
    """The offline route: intent by rules, ``entities`` (the stored ones the question names
    or refers to) by category, the period named."""
    by_category = categorise(entities)
    ids = {e.name: e.id for e in entities}
    return IntentRoute(
        intent=rule_intent(question, by_category),
        entities=by_category,
        entity_ids=ids,
        period=question_period(question),
        relation_words=relation_words(question),
    )


def resolve_references(
    question: str, turns: Sequence[Sequence[Entity]], named: Sequence[Entity] = ()
) -> dict[str, Entity]:
    """What the question's referring words stand for, from the entities each of the last
    turns names (oldest turn first, each turn's entities in order); ``named`` are the
    question's own entities, never chosen for a reference."""
    taken = {e.id for e in named}
    recent = [e for turn in turns[-MAX_TURNS:] for e in turn if e.id not in taken]
    out: dict[str, Entity] = {}

    def last(categories: tuple[str, ...]) -> Entity | None:
        for entity in reversed(recent):
            if TYPE_CATEGORY.get(entity.type) in categories:
                return entity
        return None

    for pattern, categories in (
        (_PERSONAL, ("people",)),
        (_PLACE_REF, ("places",)),
        (_THING_REF, ("events", "objects")),
    ):
        match = pattern.search(question)
        if match is None:
            continue
        entity = last(categories)
        if entity is not None:
            out[match.group(0)] = entity
    return out
