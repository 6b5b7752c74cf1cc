"""Ending the facts a new fact contradicts; nothing is deleted.

Offline rules over the relations of a memory or document:

* **functional types** (settings: ``ExtractionSettings.functional_relations``): a source
  has one current target per type. In a group of relations of one source and type, each
  holds from its time until the next later one of the group starts (:func:`timeline`);
  two stated at the same time (of one memory, say) both hold. The group is recomputed
  whenever a relation joins it (a write) or leaves it (a forget or delete), so the order
  in which facts are learnt does not matter: of two facts the later in world time wins.
  Only facts with a time take part: documents without one (a folder of references, say)
  are read in no order of the world, so the order they are ingested in ends nothing;
* **negation cues** in the new relation's sentence ("instead of", "no longer", "stopped",
  "moved from … to …"): a current relation of the same source and type whose target is
  named after the cue ends at the new relation's time, whatever the type (the sentence's
  own relation too: "no longer depends on Express" ends the relation it states);
* **events** (``ExtractionSettings.event_relations``: a commit's ``AUTHORED``) never end:
  by any of these rules: what happened stays so;
* **claims** of a memory (:mod:`.claim_ends`, with the offline parser): its clauses read as
  anchor, attribute and value end the older sentences they change ("moved to Bristol",
  "The request timeout is now 45 s"), and open again an ended fact they state again.

An ended relation gets ``invalid_at`` (world time: when it stopped holding), ``expired_at``
(system time: when the graph stopped believing it) and ``invalidated_by``, the memory or
document of the relation that ended it. The ends a write makes travel in its bundle
(``DocumentBundle.invalidations``), written in the same transaction as the document; a
store that removes a document opens the relations it ended, and :func:`delete_and_recheck`
plans what the groups it touched end without it and has the store apply that in the
delete's transaction too: a failure anywhere leaves the store as it was.

A relation's time is its ``valid_at`` (the time of its memory or document, or a date its
sentence gives); for the negation rule and the model's check, a relation without one
takes the time the graph learnt it (``created_at``; one time per bundle).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from loregraph.ingest.facts.changes import (
    change_kind,
    changed_ends,
    cued_ends,
    named_in,
    negated_names,
)
from loregraph.ingest.facts.claim_ends import ClaimReader, claimed_ends, spacy_reader
from loregraph.ingest.facts.ends import End, retired, started
from loregraph.ingest.facts.ends_again import ends_again
from loregraph.ingest.facts.statements import sparing_events, triple
from loregraph.models import (
    ABOUT,
    CO_OCCURS,
    DeleteReport,
    DocKind,
    DocumentBundle,
    Relation,
    utcnow,
)
from loregraph.settings import ExtractionSettings
from loregraph.store.base import Store
from loregraph.text.sentences import split_sentences

_NOT_FACTS = frozenset({CO_OCCURS, ABOUT})
MAX_NEW = 40
"""New facts of one memory or document put to a contradiction check (the first ones)."""
MAX_CURRENT = 80
"""Current facts put to it with them."""


@dataclass(frozen=True, slots=True)
class FactLine:
    """A relation as the model reads it: its ends by name, its type and its sentence."""

    relation: Relation
    source: str
    target: str

    def text(self) -> str:
        """``Source TYPE Target`` with the sentence that states it."""
        rel = self.relation
        sentence = next((ev.sentence for ev in rel.evidence if ev.sentence.strip()), rel.fact)
        said = f' ("{" ".join(sentence.split())[:240]}")' if sentence else ""
        since = f" since {rel.valid_at.date().isoformat()}" if rel.valid_at else ""
        return f"{self.source} {rel.type.replace('_', ' ').lower()} {self.target}{since}{said}"


Contradict = Callable[
    [Sequence[FactLine], Sequence[FactLine], datetime], Awaitable[list[tuple[int, int]]]
]
"""``(new facts, current facts, their time) -> [(new index, current index), ...]``, the
indexes from 0."""


def timeline(group: Iterable[Relation]) -> dict[str, tuple[datetime, str] | None]:
    """For a group of one source's relations of one functional type: each relation's end
        under the functional rule, ``(time, id of the relation that ends it)``, or ``None``
        while it is the latest. The next relation in world time ends it; ties hold together;
        relations without a time are left out (see the module notes); of statements of one fact at
    one time (:mod:`.statements`), the first by id holds and ends the others at once."""
    dated = [r for r in group if r.valid_at is not None and not retired(r)]
    members = sorted(dated, key=lambda r: (started(r), r.id))
    out: dict[str, tuple[datetime, str] | None] = {}
    first: dict[tuple[tuple[str, str, str], datetime], str] = {}
    for i, rel in enumerate(members):
        start = started(rel)
        same = first.setdefault((triple(rel), start), rel.id)
        if same != rel.id:  # one fact stated twice at one time: the first statement holds
            out[rel.id] = (start, same)
            continue
        later = next((r for r in members[i + 1 :] if started(r) > start), None)
        out[rel.id] = None if later is None else (started(later), later.id)
    return out


def earlier(current: datetime | None, proposed: datetime) -> bool:
    """Whether ``proposed`` ends a relation sooner than its ``current`` end."""
    return current is None or proposed < current


async def plan_invalidations(
    store: Store,
    bundle: DocumentBundle,
    functional: Collection[str],
    check: Contradict | None = None,
    read: ClaimReader | None = None,
) -> list[End]:
    """What the relations of ``bundle`` end, by the rules above, before it is written
    (against the stored relations and the bundle's own); see :func:`apply_to_bundle`.
    With ``check`` (a model), the current facts it finds contradicted end too."""
    ours = [rel for rel in bundle.relations if rel.type not in _NOT_FACTS]
    ends: dict[str, End] = {}
    groups = sorted({(r.source_id, r.type) for r in ours})
    for source, kind in groups:
        stored = await store.entity_relations(source, direction="out", types=[kind], history=True)
        members = {r.id: _reopened(r, bundle.document.id) for r in stored}
        fresh = [r for r in ours if (r.source_id, r.type) == (source, kind)]
        for rel in fresh:
            members[rel.id] = _joined(members.get(rel.id), rel)
        if kind in functional:
            await _functional_ends(store, bundle, members, ends)
        for new in fresh:
            _negation_ends(new, members, await _target_names(store, members), bundle, ends)
    await _change_ends(store, bundle, ours, ends)
    await _cue_ends(store, bundle, ends)
    if read is not None:
        await claimed_ends(store, bundle, read, functional, ends)
    if check is not None and ours:
        await _checked_ends(store, bundle, ours, check, ends)
    return list(ends.values())


async def _cue_ends(store: Store, bundle: DocumentBundle, ends: dict[str, End]) -> None:
    """Ends by a cue alone, for sentences the extractor read no relation from
    (:func:`~loregraph.ingest.facts.changes.cued_ends`)."""
    sentences = [chunk.text[a:b] for chunk in bundle.chunks for a, b in split_sentences(chunk.text)]
    cued = [s for s in sentences if negated_names(s)]
    if not cued:
        return
    named = [write.entity for write in bundle.entities]
    mine = {r.id for r in bundle.relations}
    current: dict[str, Relation] = {}
    for entity in named:
        for rel in await store.entity_relations(entity.id, direction="both"):
            if rel.id not in mine:
                current.setdefault(rel.id, rel)
    when = bundle.document.valid_at or utcnow()
    for old in cued_ends(cued, named, current.values()):
        known = ends.get(old.id)
        if started(old) <= when and (known is None or when < known.invalid_at):
            ends[old.id] = End(old.id, when, old.id, bundle.document.id)


async def _change_ends(
    store: Store, bundle: DocumentBundle, ours: list[Relation], ends: dict[str, End]
) -> None:
    """Ends across types: a change relation's (:mod:`.changes`), and a negation cue's
    named target among all the source's current facts ("moved from Berlin" ends
    ``LIVES_IN Berlin``)."""
    mine = {r.id for r in bundle.relations}
    for new in ours:
        segments = [seg for ev in new.evidence for seg in negated_names(ev.sentence)]
        if change_kind(new.type) is None and not segments:
            continue
        current = await store.entity_relations(new.source_id, direction="out")
        found = await store.get_entities(sorted({r.target_id for r in [new, *current]}))
        entities = {e.id: e for e in found}
        hits = changed_ends(new, current, entities, mine)
        for old in current:
            name = entities[old.target_id].name if old.target_id in entities else ""
            if (
                old.id not in mine
                and old.type not in _NOT_FACTS
                and named_in(name, segments)
                and started(old) <= started(new)
                and old.invalid_at is None
            ):
                hits.append(old)
        when = started(new)
        for old in hits:
            known = ends.get(old.id)
            if known is None or when < known.invalid_at:
                ends[old.id] = End(old.id, when, new.id, bundle.document.id)


async def _checked_ends(
    store: Store,
    bundle: DocumentBundle,
    ours: list[Relation],
    check: Contradict,
    ends: dict[str, End],
) -> None:
    """The ends the model finds: a contradicted current fact ends when the new one starts,
    or the new one ends when the current one starts if that is later."""
    new = ours[:MAX_NEW]
    mine = {r.id for r in bundle.relations}
    current: dict[str, Relation] = {}
    for source in dict.fromkeys(r.source_id for r in new):
        for rel in await store.entity_relations(source, direction="out"):
            if rel.type not in _NOT_FACTS and rel.id not in mine and rel.id not in ends:
                current.setdefault(rel.id, rel)
    olds = list(current.values())[:MAX_CURRENT]
    if not olds:
        return
    ids = {r.source_id for r in [*new, *olds]} | {r.target_id for r in [*new, *olds]}
    names = {e.id: e.name for e in await store.get_entities(sorted(ids))}

    def line(rel: Relation) -> FactLine:
        return FactLine(rel, names.get(rel.source_id, "?"), names.get(rel.target_id, "?"))

    time = bundle.document.valid_at or utcnow()
    for i, j in await check([line(r) for r in new], [line(r) for r in olds], time):
        fresh, old = new[i], olds[j]
        if started(old) <= started(fresh):
            ended, at, by, document = old, started(fresh), fresh.id, bundle.document.id
        else:
            ended, at, by = fresh, started(old), old.id
            document = await _document_of(store, old) or bundle.document.id
        known = ends.get(ended.id)
        if known is None or at < known.invalid_at:
            ends[ended.id] = End(ended.id, at, by, document)


async def supersede(
    store: Store,
    bundle: DocumentBundle,
    settings: ExtractionSettings,
    check: Contradict | None = None,
) -> list[End]:
    """:func:`plan_invalidations` by the settings' functional types, carried in the bundle
    by :func:`apply_to_bundle` (the parser that reads claims is loaded for a memory only:
    only a memory's claims end facts)."""
    memory = bundle.document.kind == DocKind.MEMORY
    read = spacy_reader(settings.spacy_model) if memory else None
    ends = await plan_invalidations(store, bundle, settings.functional_relations, check, read)
    ends = await sparing_events(store, bundle, ends, settings.event_relations)
    apply_to_bundle(bundle, ends)
    return ends


def apply_to_bundle(bundle: DocumentBundle, ends: Sequence[End]) -> None:
    """Carry ``ends`` in the bundle, to be written with it (``expired_at`` is now)."""
    now = utcnow()
    bundle.invalidations = [
        Relation(
            id=end.relation_id,
            source_id="",
            target_id="",
            type="",
            scope=bundle.document.scope,
            invalid_at=None if end.reopen else end.invalid_at,
            expired_at=None if end.reopen else now,
            invalidated_by=None if end.reopen else end.document_id,
        )
        for end in ends
    ]


def _reopened(relation: Relation, document_id: str) -> Relation:
    """A stored relation as the write of ``document_id`` leaves it before applying its own
    ends: what an earlier version of that document ended is open again."""
    if relation.invalidated_by != document_id:
        return relation
    return replace(relation, invalid_at=None, expired_at=None, invalidated_by=None)


def _joined(stored: Relation | None, new: Relation) -> Relation:
    """The relation as it will be stored once ``new`` is written over ``stored``."""
    if stored is None:
        return new
    starts = [t for t in (stored.valid_at, new.valid_at) if t is not None]
    return replace(stored, valid_at=min(starts) if starts else None)


async def _functional_ends(
    store: Store, bundle: DocumentBundle, members: dict[str, Relation], ends: dict[str, End]
) -> None:
    """The ends the functional rule moves earlier in one group (joined with the bundle)."""
    ours = {r.id for r in bundle.relations}
    for rel_id, end in timeline(members.values()).items():
        if end is None or not earlier(members[rel_id].invalid_at, end[0]):
            continue
        by = end[1]
        document = bundle.document.id if by in ours else await _document_of(store, members[by])
        if document is not None:
            ends[rel_id] = End(rel_id, end[0], by, document)


def _negation_ends(
    new: Relation,
    members: dict[str, Relation],
    names: dict[str, str],
    bundle: DocumentBundle,
    ends: dict[str, End],
) -> None:
    """Ends of the group's current relations whose target ``new``'s sentences negate."""
    segments = [seg for ev in new.evidence for seg in negated_names(ev.sentence)]
    if not segments:
        return
    when = started(new)
    for old in members.values():
        if old.invalid_at is not None or retired(old) or started(old) > when:
            continue
        if not named_in(names.get(old.target_id, ""), segments):
            continue
        known = ends.get(old.id)
        if known is None or when < known.invalid_at:
            ends[old.id] = End(old.id, when, new.id, bundle.document.id)


async def _target_names(store: Store, members: dict[str, Relation]) -> dict[str, str]:
    found = await store.get_entities(sorted({r.target_id for r in members.values()}))
    return {e.id: e.name for e in found}


async def _document_of(store: Store, relation: Relation, gone: Collection[str] = ()) -> str | None:
    """The memory or document a stored relation was first read from (of its evidence not
    in the chunks ``gone``); a statement's own document."""
    if relation.statement:
        return relation.statement
    chunk_ids = [ev.chunk_id for ev in relation.evidence if ev.chunk_id and ev.chunk_id not in gone]
    chunks = await store.get_chunks(chunk_ids[:1])
    return chunks[0].document_id if chunks else None


async def delete_and_recheck(
    store: Store, document_id: str, settings: ExtractionSettings
) -> DeleteReport:
    """Delete a document and, in the same transaction, end what the functional groups its
    relations belonged to end once it is gone: the store opens what the document ended,
    and a fact it ended may now be ended by another (:func:`ends_without`); a fact a
    memory opened again ends again where the remaining memories end it
    (:func:`~loregraph.ingest.facts.ends_again.ends_again`)."""
    bundle = await store.read_bundle(document_id)
    ends: dict[str, Relation] = {}
    if bundle is not None:
        read = spacy_reader(settings.spacy_model)
        planned = await ends_without(store, bundle, settings.functional_relations)
        for end in [*planned, *await ends_again(store, bundle, read)]:
            known = ends.get(end.id)
            if known is None or earlier(known.invalid_at, end.invalid_at or utcnow()):
                ends[end.id] = end
    return await store.delete_document(document_id, ends=list(ends.values()))


async def ends_without(
    store: Store, bundle: DocumentBundle, functional: Collection[str]
) -> list[Relation]:
    """The ends the functional rule gives the groups of ``bundle``'s relations once its
    document is deleted (planned before the delete: a relation goes when all its evidence
    is the document's, and what the document ended opens), as relations carrying them."""
    doc = bundle.document.id
    gone = {chunk.id for chunk in bundle.chunks}
    support = {rel.id: len(rel.evidence) for rel in bundle.relations}
    now = utcnow()
    ends: list[Relation] = []
    groups = {(r.source_id, r.type) for r in bundle.relations if r.type in functional}
    for source, kind in sorted(groups):
        stored = await store.entity_relations(source, direction="out", types=[kind], history=True)
        members = {r.id: _reopened(r, doc) for r in stored if r.weight > support.get(r.id, 0)}
        for rel_id, end in timeline(members.values()).items():
            if end is None or not earlier(members[rel_id].invalid_at, end[0]):
                continue
            by = await _document_of(store, members[end[1]], gone)
            ended = replace(members[rel_id], evidence=[], invalid_at=end[0], expired_at=now)
            ended.invalidated_by = by
            ends.append(ended)
    return ends
