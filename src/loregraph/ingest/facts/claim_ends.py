"""The facts a new memory's claims end: its clauses read against the current facts of the
names it shares with earlier memories (rules: :mod:`loregraph.ingest.clauses.rules`).

For a memory, each clause is read as a claim (anchor, attribute, value, and what a change
leaves behind). The current facts of every entity the memory names are gathered, grouped
by the sentence that states them, and each such sentence is read as claims too. When a
claim of the new memory ends a claim of an older sentence, every current fact that sentence
states ends at the new memory's time: the sentence no longer holds. Facts of the new memory
itself, and facts that started after it, never end here.

Reading needs the offline parser (spaCy, the ``nlp`` extra); without it this rule is
skipped and the others still apply.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime

from loregraph.errors import DependencyError
from loregraph.ingest.clauses.claims import read_claims, recent_claims
from loregraph.ingest.clauses.model import Claim
from loregraph.ingest.clauses.rules import changes, names_in, restates
from loregraph.ingest.facts.ends import End, retired, started
from loregraph.models import ABOUT, CO_OCCURS, DocKind, DocumentBundle, Relation, name_key, utcnow
from loregraph.store.base import Store
from loregraph.text.entity_types import PERSON

ClaimReader = Callable[[str], list[Claim]]
MAX_SENTENCES = 64
"""Older sentences a new memory's claims are read against (those naming its anchors or
what it leaves, latest first)."""
_READERS: dict[str, ClaimReader] = {}
"""Text → its claims."""
_NOT_FACTS = frozenset({CO_OCCURS, ABOUT})
ANCHOR_MATCHES = 5
"""Entities the store's name search gives for each anchor of a new claim."""


def spacy_reader(model: str) -> ClaimReader | None:
    """The reader over the spaCy pipeline ``model`` (one per model in a process; a text
    read lately, by it or by the extractor, is not parsed again:
    :func:`~loregraph.ingest.clauses.claims.recent_claims`), or ``None`` when spaCy or the model is
    not installed."""
    from loregraph.ingest.extract.spacy_nlp import PARSE_LOCK, lemmatizer_of, load_nlp

    found = _READERS.get(model)
    if found is not None:
        return found
    try:
        nlp = load_nlp(model)
    except DependencyError:
        return None
    lemma = lemmatizer_of(nlp)

    def read(text: str) -> list[Claim]:
        found = recent_claims(text)
        if found is None:
            with PARSE_LOCK:
                found = read_claims(nlp(text), lemma)
        return found

    return _READERS.setdefault(model, read)


@dataclass(slots=True)
class ClaimEnds:
    """What a memory's claims do to older facts: ``ends`` (each with the time it ends)
    and ``reopened``, ended facts it states again ("moved back to Turin")."""

    ends: list[tuple[Relation, datetime]] = field(default_factory=list)
    reopened: list[Relation] = field(default_factory=list)


async def claim_ends(store: Store, bundle: DocumentBundle, read: ClaimReader) -> ClaimEnds:
    """The current facts a memory's claims end, each with the time it ends (the memory's),
    and the ended facts they state again; nothing for a document that is not a memory."""
    out = ClaimEnds()
    new, facts = await _memory_facts(store, bundle, read)
    when = bundle.document.valid_at or utcnow()
    mine = {r.id for r in bundle.relations}
    current: dict[str, list[Relation]] = {}
    ended: dict[str, list[Relation]] = {}
    for rel in facts:
        if rel.id in mine:
            continue
        if _current(rel):
            _group(current, rel)
        elif _ended_before(rel, when):
            _group(ended, rel)
    current, ended = _relevant(current, new), _relevant(ended, new)
    people = await _people(store, bundle, [r for group in current.values() for r in group])
    for sentence, group in current.items():
        old = await asyncio.to_thread(read, sentence)
        if any(changes(n, o) and _same_kind(n, o, people) for n in new for o in old):
            out.ends.extend((rel, when) for rel in group)
    for sentence, group in ended.items():
        old = await asyncio.to_thread(read, sentence)
        if any(restates(n, o) for n in new for o in old):
            out.reopened.extend(group)
    return out


async def restated(store: Store, bundle: DocumentBundle, read: ClaimReader) -> list[Relation]:
    """The open facts of other memories that a memory's claims state again (whatever
    ended or opened them before): the facts a forgotten memory may have opened."""
    new, facts = await _memory_facts(store, bundle, read)
    mine = {r.id for r in bundle.relations}
    current: dict[str, list[Relation]] = {}
    for rel in facts:
        if _current(rel) and (rel.id not in mine or len(rel.evidence) > 1):
            _group(current, rel)
    out: list[Relation] = []
    for sentence, group in _relevant(current, new).items():
        old = await asyncio.to_thread(read, sentence)
        if any(restates(n, o) for n in new for o in old):
            out.extend(group)
    return out


async def _memory_facts(
    store: Store, bundle: DocumentBundle, read: ClaimReader
) -> tuple[list[Claim], list[Relation]]:
    """A memory's claims and the facts (no co-occurrence, begun no later than the memory)
    of the entities they may touch (:func:`_named`); nothing for a document that is not a
    memory or a memory that claims nothing."""
    if bundle.document.kind != DocKind.MEMORY:
        return [], []
    text = "\n".join(chunk.text for chunk in bundle.chunks)
    new = await asyncio.to_thread(read, text)
    if not new:
        return [], []
    when = bundle.document.valid_at or utcnow()
    facts: dict[str, Relation] = {}
    for entity_id in await _named(store, bundle, new):
        for rel in await store.entity_relations(entity_id, direction="both", history=True):
            if rel.type not in _NOT_FACTS and started(rel) <= when:
                facts.setdefault(rel.id, rel)
    return new, list(facts.values())


def _relevant(groups: dict[str, list[Relation]], new: list[Claim]) -> dict[str, list[Relation]]:
    """The sentences a new claim can change or restate: those holding the words of one of
    its anchors or of what it leaves (every rule needs one), the latest
    :data:`MAX_SENTENCES` of them."""
    names = [n for claim in new for n in (claim.anchor, claim.old) if n]
    kept = [
        (sentence, facts)
        for sentence, facts in groups.items()
        if sentence and any(names_in(name, sentence) for name in names)
    ]
    kept.sort(key=lambda item: max(started(r) for r in item[1]), reverse=True)
    return dict(kept[:MAX_SENTENCES])


async def followed(
    store: Store, relation: Relation, functional: Collection[str], bundle: DocumentBundle
) -> bool:
    """Whether a later statement of the same source and functional type ends ``relation``
    by the functional rule (then a restatement does not open it again: the rule orders
    them)."""
    if relation.type not in functional:
        return False
    when = bundle.document.valid_at or utcnow()
    mine = {r.id for r in bundle.relations}
    group = await store.entity_relations(
        relation.source_id, direction="out", types=[relation.type], history=True
    )
    return any(
        r.id != relation.id and not retired(r) and started(relation) < started(r) <= when
        for r in [*group, *(r for r in bundle.relations if r.id in mine)]
        if (r.source_id, r.type) == (relation.source_id, relation.type)
    )


async def _people(store: Store, bundle: DocumentBundle, facts: list[Relation]) -> dict[str, bool]:
    """Name key → whether the entity of that name is a person, for the memory's entities
    and the targets of ``facts``."""
    found = {w.entity.id: w.entity for w in bundle.entities}
    missing = sorted({r.target_id for r in facts} - set(found))
    found.update({e.id: e for e in await store.get_entities(missing)})
    return {name_key(e.name): e.type == PERSON for e in found.values()}


def _same_kind(new: Claim, old: Claim, people: dict[str, bool]) -> bool:
    """A change read without an attribute on one side ("Mina Harker moved to Exeter")
    ends no fact whose value is a person when its own is not, nor the reverse ("Mina
    Harker was the wife of Jonathan Harker"): the value's person-ness is known when an
    entity of that name is, or of a name inside it."""
    if new.old or (new.attribute and old.attribute):
        return True
    a, b = _person(new.value, people), _person(old.value, people)
    return a is None or b is None or a == b


def _person(value: str, people: dict[str, bool]) -> bool | None:
    key = name_key(value)
    if key in people:
        return people[key]
    inside = [p for k, p in people.items() if k and f" {k} " in f" {key} "]
    return any(inside) if inside else None


async def claimed_ends(
    store: Store,
    bundle: DocumentBundle,
    read: ClaimReader,
    functional: Collection[str],
    ends: dict[str, End],
) -> None:
    """Add to ``ends`` what a memory's claims end, and the ended facts they state again
    (unless a later statement of a functional type ends them: :func:`followed`)."""
    by = next((r.id for r in bundle.relations if r.type not in _NOT_FACTS), "")
    claimed = await claim_ends(store, bundle, read)
    for old, when in claimed.ends:
        known = ends.get(old.id)
        if known is None or when < known.invalid_at:
            ends[old.id] = End(old.id, when, by or old.id, bundle.document.id)
    for old in claimed.reopened:
        if not await followed(store, old, functional, bundle):
            ends.setdefault(old.id, End(old.id, started(old), by, bundle.document.id, True))


def _group(groups: dict[str, list[Relation]], rel: Relation) -> None:
    """Add ``rel`` to the group of the sentence that states it."""
    sentence = next((ev.sentence for ev in rel.evidence if ev.sentence), rel.fact)
    group = groups.setdefault(" ".join(sentence.split()), [])
    if all(r.id != rel.id for r in group):
        group.append(rel)


async def _named(store: Store, bundle: DocumentBundle, new: list[Claim]) -> list[str]:
    """The entities whose facts the new claims may end: the memory's own, and those whose
    names the store finds for each claim's anchor and for what a change leaves ("the
    Lanternfish frontend" for the anchor "Lanternfish")."""
    ids = dict.fromkeys(write.entity.id for write in bundle.entities)
    scope = bundle.document.scope
    for text in dict.fromkeys(t for claim in new for t in (claim.anchor, claim.old) if t):
        for hit in await store.search_entities_text(scope, text, ANCHOR_MATCHES):
            ids.setdefault(hit.id)
    return list(ids)


def _current(rel: Relation) -> bool:
    return rel.invalid_at is None and rel.expired_at is None


def _ended_before(rel: Relation, when: datetime) -> bool:
    """Ended (in world time, by a memory or document) no later than ``when``."""
    return rel.invalid_at is not None and rel.invalidated_by is not None and rel.invalid_at <= when
