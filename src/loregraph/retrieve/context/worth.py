"""Which graph lines are worth their tokens in a context beside the passages it shows.

A context spends its budget on the passages first when the question asks for a fact; the
graph's entities and relations then go in only where they add something (for a question
about relationships, a summary or an exploration, the graph's lines are what was asked for,
and only the last two rules apply):

* an entity line adds its description unless a shown passage already holds it (a name
  alone adds nothing);
* a relation line adds a fact unless its evidence sentence is already shown;
* a relation of an entity to itself, or between two names of one person ("Harker" and
  "Jonathan Harker"), adds nothing and is never shown;
* a relation whose typed verb says little (plain co-occurrence, or one the extractor was
  not sure of) is shown with its evidence sentence, which says what the verb cannot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from loregraph.models import CO_OCCURS
from loregraph.retrieve.results.result import Passage, RankedEntity, RankedRelation
from loregraph.text.entity_types import PERSON
from loregraph.text.names import may_name_one_person
from loregraph.text.words import LIGHT_VERBS, PREPOSITIONS

STRONG_CONFIDENCE = 0.8
"""A typed relation at least this confident stands on its verb; below, it shows evidence."""


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


class ShownText:
    """The text of the passages a context shows, to test what a graph line would repeat.

    With ``strict=False`` nothing counts as shown (every line with content adds).
    """

    def __init__(self, passages: Sequence[Passage], *, strict: bool = True) -> None:
        self.strict = strict
        self._text = "\n".join(_flat(p.text) for p in passages) if strict else ""

    def holds(self, sentence: str) -> bool:
        """Whether a shown passage holds ``sentence`` (whitespace and case aside)."""
        flat = _flat(sentence).rstrip(" .…")
        return self.strict and bool(flat) and flat in self._text


def weak(relation: RankedRelation) -> bool:
    """Whether the relation's verb says too little to stand without its evidence: plain
    co-occurrence, a relation of low confidence, or a type made only of light verbs and
    prepositions ("DOES_AT", "IS_WITH", "FROM")."""
    rel = relation.relation
    return rel.type == CO_OCCURS or rel.confidence < STRONG_CONFIDENCE or says_little(rel.type)


def says_little(relation_type: str) -> bool:
    """Whether every word of ``relation_type`` is a light verb or a preposition."""
    parts = relation_type.casefold().split("_")
    return all(p in LIGHT_VERBS or p in PREPOSITIONS for p in parts)


def names_one_thing(relation: RankedRelation, types: Mapping[str, str]) -> bool:
    """Whether a relation joins an entity to itself, or two persons one of whose names is
    part of the other's (:func:`~loregraph.text.names.may_name_one_person`)."""
    rel = relation.relation
    if rel.source_id == rel.target_id:
        return True
    persons = types.get(rel.source_id) == PERSON == types.get(rel.target_id)
    return persons and may_name_one_person(relation.source_name, relation.target_name)


def relation_adds(relation: RankedRelation, shown: ShownText, types: Mapping[str, str]) -> bool:
    """Whether a relation line tells something the shown passages do not; ``types`` maps
    the retrieved entities' ids to their types. An ended fact shown as ended always does:
    no passage says that it ended."""
    rel = relation.relation
    if names_one_thing(relation, types):
        return False
    if not shown.strict or relation.replaced_by:
        return True
    if weak(relation) and not rel.fact:
        return False
    return not (rel.fact and shown.holds(rel.fact))


def entity_adds(entity: RankedEntity, shown: ShownText) -> bool:
    """Whether an entity line tells something the shown passages do not."""
    description = entity.entity.description
    if not shown.strict:
        return True
    return bool(description) and not shown.holds(description)
