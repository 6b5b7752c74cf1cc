"""A memory's claims as relations: each clause's anchor and value become entities (when
the names found do not hold them already) joined by a relation named after the claim.

An agent's memory often states a fact the name finder alone cannot hold: "Orchard stores
its data in MySQL 8" names no entity spaCy knows, and "The Gannet upload limit is 10 MB"
has a value, not a name, on its right. Read as claims (:mod:`loregraph.ingest.clauses.claims`),
such a sentence still gives a fact: ``Orchard -STORES_IN-> MySQL 8``, ``Gannet
-HAS_UPLOAD_LIMIT-> 10 MB``. A later memory can then end it (``ingest/facts/supersede.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from loregraph.ingest.clauses.model import Claim
from loregraph.ingest.extract.assemble import FACT_CHARS, TYPED_CONFIDENCE, ChunkLocator
from loregraph.ingest.extract.dependency import relation_type, third_person
from loregraph.ingest.types import (
    CandidateEntity,
    CandidateRelation,
    Occurrence,
    RelationEvidence,
)
from loregraph.models import ABOUT, CO_OCCURS, name_key
from loregraph.text.entity_types import CONCEPT, TIME

CLAIM_SALIENCE = 3.0
"""Salience of an entity a memory states a fact about or as (the default minimum a node
needs, ``ExtractionSettings.min_entity_salience``): one mention is enough."""
MAX_NAME_CHARS = 80
_WEAK = frozenset({CO_OCCURS, ABOUT})
MAX_NAME_WORDS = 4
"""A new entity from a claim is a name or value of at most this many words."""
MAX_NOUN_WORDS = 3
"""… or, for an anchor without a capital or digit, a noun phrase of at most this many."""
PRONOUNS = frozenset(
    {
        "it",
        "its",
        "they",
        "them",
        "we",
        "i",
        "you",
        "he",
        "she",
        "this",
        "that",
        "these",
        "those",
        "everything",
        "something",
        "nothing",
        "anything",
        "everyone",
        "someone",
    }
)
"""An anchor or value longer than this is a clause, not a name: no relation."""


def claim_type(claim: Claim) -> str:
    """The relation type a claim is stored as: ``HAS_<attribute>`` for "X's attribute is
    V", else its verb in the third person with its preposition (``LIVES_IN``)."""
    words = claim.verb.split()
    if claim.copular and claim.attribute:
        return relation_type("HAS", *claim.attribute)
    verb = third_person(words[0]) if words and words[0] != "be" else "IS"
    return relation_type(verb, *words[1:], *claim.attribute) or "STATES"


def add_claims(
    claims: Iterable[Claim],
    entities: list[CandidateEntity],
    relations: list[CandidateRelation],
    locator: ChunkLocator,
    text: str,
) -> int:
    """Add each claim with an anchor and a value as a relation (and its ends as entities
    when no entity of that name was found), unless a typed relation already joins the two;
    returns how many relations were added. Attribute words the anchor entity's own name
    holds ("API server" for the anchor "API" and the attribute "server") leave the type."""
    by_key = {name_key(e.name): e for e in entities}
    have = {(name_key(r.source), name_key(r.target)) for r in relations if r.type not in _WEAK}
    added = 0
    for claim in claims:
        if not claim.value or not claim.anchor:
            continue
        if _when_only(claim):
            continue
        if max(len(claim.value), len(claim.anchor)) > MAX_NAME_CHARS:
            continue
        start = text.find(claim.sentence)
        if start < 0:
            continue
        end = start + len(claim.sentence)
        chunk = locator.locate(start, end)
        source = _entity(
            claim.anchor, claim.anchor_type, by_key, entities, chunk.seq, _fits(claim, anchor=True)
        )
        target = _entity(
            claim.value, claim.value_type, by_key, entities, chunk.seq, _fits(claim, anchor=False)
        )
        if source is None or target is None or source is target:
            continue
        key = (name_key(source.name), name_key(target.name))
        if key in have:  # the parse's relation already states it
            continue
        named = set(key[0].split())
        kind = claim_type(
            replace(claim, attribute=tuple(w for w in claim.attribute if w not in named))
        )
        have.add(key)
        size = chunk.end - chunk.start
        lo = min(max(start - chunk.start, 0), max(size - 1, 0))
        hi = max(min(end - chunk.start, size), lo + 1)
        fact = claim.sentence[:FACT_CHARS]
        evidence = RelationEvidence(chunk_seq=chunk.seq, sentence=fact, start=lo, end=hi)
        relations.append(
            CandidateRelation(source.name, target.name, kind, fact, TYPED_CONFIDENCE, [evidence])
        )
        added += 1
    return added


def _when_only(claim: Claim) -> bool:
    """A claim whose value is only a day or a month ("on Saturday", "in November") and
    that states no change and no attribute: when something happens, not a fact of its
    anchor that a later memory changes. A day in the plural is a schedule, a fact ("We
    deploy Larch on Fridays")."""
    return (
        claim.value_type == TIME
        and not any(ch.isdigit() for ch in claim.value)
        and not (claim.change or (claim.copular and claim.attribute))
        and not claim.value.endswith("s")
    )


def _fits(claim: Claim, *, anchor: bool) -> bool:
    """Whether a claim's end may become an entity of its own (when no entity found holds
    it): a short phrase with a capital or a digit ("Orchard", "MySQL 8", "30 s"); a short
    common-noun phrase only for a setting or a state that changes: the anchor of a claim
    whose value has a number ("request timeout" in "The request timeout is 30 s"), or the
    value of a "be" or change claim ("master", "senior analyst", "allergic to
    penicillin"); never a pronoun or a clause."""
    name = claim.anchor if anchor else claim.value
    words = name.split()
    if not words or words[0].casefold() in PRONOUNS or "," in name:
        return False
    if any(ch.isupper() or ch.isdigit() for ch in name):
        return len(words) <= MAX_NAME_WORDS
    if len(words) > MAX_NOUN_WORDS - (0 if anchor else 1):
        return False
    if anchor:
        return any(ch.isdigit() for ch in claim.value)
    return claim.copular or claim.change or claim.verb.startswith("be ")


def _entity(
    name: str,
    kind: str,
    by_key: dict[str, CandidateEntity],
    entities: list[CandidateEntity],
    seq: int,
    fit: bool,
) -> CandidateEntity | None:
    """The entity found with this name (or whose name holds it as whole words), else a
    new one when ``fit`` (:func:`_fits`)."""
    key = name_key(name)
    if not key:
        return None
    found = by_key.get(key)
    if found is None:
        found = next((e for k, e in by_key.items() if f" {key} " in f" {k} "), None)
    if found is None and not fit:  # a long phrase: the entity found inside it, if any
        inside = [e for k, e in by_key.items() if f" {k} " in f" {key} "]
        return max(inside, key=lambda e: len(e.name)) if inside else None
    if found is None:
        found = CandidateEntity(
            name=name,
            type=kind or CONCEPT,
            occurrences=[Occurrence(chunk_seq=seq, surface=name)],
            confidence=TYPED_CONFIDENCE,
            salience=CLAIM_SALIENCE,
        )
        entities.append(found)
        by_key[key] = found
    found.salience = max(found.salience, CLAIM_SALIENCE)
    return found
