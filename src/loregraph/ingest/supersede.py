"""Offline invalidation: a new fact ends the current facts it contradicts; nothing is deleted.

Two rules, both over the relations a memory or document has just written:

* **functional types** (settings: ``ExtractionSettings.functional_relations``): a source
  has one current target per type, so a new ``DEPENDS_ON`` from "API" to Hono ends the
  current ``DEPENDS_ON`` from "API" to Express;
* **negation cues** in the new relation's sentence ("instead of", "no longer", "stopped",
  "moved from … to …"): a current relation of the same source and type whose target is
  named after the cue ends, whatever the type (the sentence's own relation too: "no longer
  depends on Express" ends the relation it states).

The ended relation gets ``invalid_at`` = the new relation's ``valid_at`` (the time of its
memory); of two facts the later in world time wins, whichever was learnt first. The store
keeps no field naming the invalidating relation: it is the relation of the same source and
type whose ``valid_at`` is the ended one's ``invalid_at`` (see :func:`invalidations`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from loregraph.models import ABOUT, CO_OCCURS, DocumentBundle, Relation, name_key, utcnow
from loregraph.store.base import Store

_NOT_FACTS = frozenset({CO_OCCURS, ABOUT})
_CUES = re.compile(
    r"\b(?:instead\s+of|rather\s+than|no\s+longer|not\s+anymore|stopped|ceased|quit|"
    r"moved\s+from|switched\s+from|replaced)\b(?P<rest>[^.;!?]*)",
    re.IGNORECASE,
)
_TO = re.compile(r"\b(?:to|with|by)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Invalidation:
    """One relation ended: ``relation_id`` stopped holding at ``invalid_at`` because of
    ``by`` (the new relation's id), read from ``document_id``."""

    relation_id: str
    invalid_at: datetime
    by: str
    document_id: str


def negated_names(sentence: str) -> list[str]:
    """The name keys of the words each negation cue of ``sentence`` applies to: the rest
    of the clause after the cue ("moved from Paris to Berlin": up to "to")."""
    out: list[str] = []
    for cue in _CUES.finditer(sentence):
        rest = cue.group("rest")
        if cue.group(0).lower().split()[0] in ("moved", "switched", "replaced"):
            rest = _TO.split(rest, maxsplit=1)[0]
        key = name_key(rest)
        if key:
            out.append(key)
    return out


def named_in(name: str, segments: Sequence[str]) -> bool:
    """Whether the entity ``name`` is named, as whole words, in one of ``segments``."""
    key = name_key(name)
    return bool(key) and any(f" {key} " in f" {seg} " for seg in segments)


def ends(new: Relation, old: Relation, functional: Collection[str], negated: bool) -> bool:
    """Whether ``new`` ends ``old``: same source and type, ``old`` still open, and either
    the type is functional and the targets differ, or ``old``'s target is ``negated``."""
    if old.source_id != new.source_id or old.type != new.type or old.invalid_at is not None:
        return False
    if new.type in _NOT_FACTS or old.expired_at is not None:
        return False
    if negated:
        return True
    return new.type in functional and old.target_id != new.target_id


async def supersede(
    store: Store, bundle: DocumentBundle, functional: Collection[str]
) -> list[Invalidation]:
    """End the stored relations that the relations of ``bundle`` (just written) contradict,
    by the rules above; returns what was ended."""
    done: dict[str, Invalidation] = {}
    document_id = bundle.document.id
    for new in bundle.relations:
        if new.type in _NOT_FACTS:
            continue
        segments = [seg for ev in new.evidence for seg in negated_names(ev.sentence)]
        if new.type not in functional and not segments:
            continue
        stored = await store.entity_relations(new.source_id, direction="out", types=[new.type])
        targets = {e.id: e.name for e in await store.get_entities([r.target_id for r in stored])}
        when = new.valid_at or utcnow()
        for old in stored:
            negated = named_in(targets.get(old.target_id, ""), segments)
            if old.id in done or (old.id == new.id and not negated):
                continue
            if not ends(new, old, functional, negated):
                continue
            if old.valid_at is not None and old.valid_at > when and not negated:
                ended, at, by = new, old.valid_at, old.id  # the older fact learnt later
            else:
                ended, at, by = old, when, new.id
            if ended.id in done:
                continue
            await store.invalidate_relation(ended.id, at)
            done[ended.id] = Invalidation(ended.id, at, by, document_id)
    return list(done.values())


def invalidations(relations: Sequence[Relation]) -> dict[str, str]:
    """For the ended relations among ``relations`` (one source's), the id of the relation
    that ended each: same source and type, ``valid_at`` equal to its ``invalid_at``."""
    out: dict[str, str] = {}
    for old in relations:
        if old.invalid_at is None:
            continue
        for new in relations:
            same = new.source_id == old.source_id and new.type == old.type
            if same and new.id != old.id and new.valid_at == old.invalid_at:
                out[old.id] = new.id
                break
    return out
