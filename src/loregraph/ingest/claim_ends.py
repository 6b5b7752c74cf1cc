"""The facts a new memory's claims end: its clauses read against the current facts of the
names it shares with earlier memories (rules: :func:`loregraph.ingest.claims.changes`).

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
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime

from loregraph.errors import DependencyError
from loregraph.ingest.claim_model import Claim
from loregraph.ingest.claims import read_claims, recent_claims
from loregraph.ingest.ends import End, retired, started
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
    :func:`~loregraph.ingest.claims.recent_claims`), or ``None`` when spaCy or the model is
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
    if bundle.document.kind != DocKind.MEMORY:
        return out
    text = "\n".join(chunk.text for chunk in bundle.chunks)
    new = await asyncio.to_thread(read, text)
    if not new:
        return out
    when = bundle.document.valid_at or utcnow()
    mine = {r.id for r in bundle.relations}
    current: dict[str, list[Relation]] = {}
    ended: dict[str, list[Relation]] = {}
    for entity_id in await _named(store, bundle, new):
        for rel in await store.entity_relations(entity_id, direction="both", history=True):
            if rel.id in mine or rel.type in _NOT_FACTS or started(rel) > when:
                continue
            if _current(rel):
                _group(current, rel)
            elif _ended_before(rel, when):
                _group(ended, rel)
    current, ended = _relevant(current, new), _relevant(ended, new)
    people = await _people(store, bundle, [r for facts in current.values() for r in facts])
    for sentence, facts in current.items():
        old = await asyncio.to_thread(read, sentence)
        if any(changes(n, o) and _same_kind(n, o, people) for n in new for o in old):
            out.ends.extend((rel, when) for rel in facts)
    for sentence, facts in ended.items():
        old = await asyncio.to_thread(read, sentence)
        if any(restates(n, o) for n in new for o in old):
            out.reopened.extend(facts)
    return out


async def restated(store: Store, bundle: DocumentBundle, read: ClaimReader) -> list[Relation]:
    """The open facts of other memories that a memory's claims state again (whatever
    ended or opened them before): the facts a forgotten memory may have opened."""
    if bundle.document.kind != DocKind.MEMORY:
        return []
    text = "\n".join(chunk.text for chunk in bundle.chunks)
    new = await asyncio.to_thread(read, text)
    if not new:
        return []
    when = bundle.document.valid_at or utcnow()
    mine = {r.id for r in bundle.relations}
    current: dict[str, list[Relation]] = {}
    for entity_id in await _named(store, bundle, new):
        for rel in await store.entity_relations(entity_id, direction="both", history=True):
            if rel.type in _NOT_FACTS or started(rel) > when or not _current(rel):
                continue
            if rel.id not in mine or len(rel.evidence) > 1:
                _group(current, rel)
    out: list[Relation] = []
    for sentence, facts in _relevant(current, new).items():
        old = await asyncio.to_thread(read, sentence)
        if any(restates(n, o) for n in new for o in old):
            out.extend(facts)
    return out


def _relevant(groups: dict[str, list[Relation]], new: list[Claim]) -> dict[str, list[Relation]]:
    """The sentences a new claim can change or restate: those holding the words of one of
    its anchors or of what it leaves (every rule needs one), the latest
    :data:`MAX_SENTENCES` of them."""
    names = [n for claim in new for n in (claim.anchor, claim.old) if n]
    kept = [
        (sentence, facts)
        for sentence, facts in groups.items()
        if sentence and any(_names_in(name, sentence) for name in names)
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


def restates(new: Claim, old: Claim) -> bool:
    """Whether claim ``new`` states again the value of claim ``old`` ("moved back to
    Turin" for "lives in Turin"): one anchor, one value, attributes that fit."""
    if not new.value or not old.value or not same_name(new.anchor, old.anchor):
        return False
    if not same_value(new.value, old.value):
        return False
    return not new.attribute or not old.attribute or _overlap(new.attribute, old.attribute)


def changes(new: Claim, old: Claim) -> bool:
    """Whether claim ``new``, said later, ends what claim ``old`` said.

    * a change that names what it leaves behind ("from Berlin", "replaced Redis", "instead
      of GBP", "no longer uses jQuery") ends an older claim about a name the new sentence
      mentions whose sentence names what was left;
    * otherwise only a claim about the same anchor can end, and only for another value:
      a change ("moved to", "switched to", "now") ends a claim of a fitting attribute (they
      share an attribute noun, or one has none and the two values are of one kind: two
      numbers, two versions of one name, two names); a statement of a value with "be"
      ("The upload limit is 25 MB") ends an older one of the same attribute, or an older
      number named by that attribute ("listens on port 8080" for "The API port is 9090").
    """
    if new.old:
        return (
            _names_in(old.anchor, new.sentence)
            and _names_in(new.old, old.sentence)
            and name_key(new.old) != name_key(old.anchor)
        )
    if not old.value or not same_name(new.anchor, old.anchor):
        return False
    if not new.value:  # "Yusuf Ali changed teams": the team he was on is no longer his
        return (
            new.change
            and bool(new.attribute and old.attribute)
            and _overlap(new.attribute, old.attribute)
        )
    if same_value(new.value, old.value):
        return False
    if new.change:
        if new.attribute and old.attribute:
            return _overlap(new.attribute, old.attribute)
        named = new.thing in new.attribute  # "switched banks": the change names its kind
        if named and not old.attribute and new.thing[:4] not in _stems(_words(old.sentence)):
            return False  # "switched banks to Monzo" ends a bank, not "drives a Seat Ibiza"
        return _kinds_fit(new, old) and not _role(old.value)
    if _same_quantity(new, old):  # "has 16 workers" after "has 8 workers"
        return True
    if new.copular and new.attribute and _numbers(new.value) and _numbers(old.value):
        # "The API port is 9090" after "The API listens on port 8080": the old value names
        # the attribute with its number
        held = _stems((*old.attribute, *name_key(old.value).split()))
        return _stems(new.attribute) <= held
    if old.copular and old.attribute and _numbers(new.value) and _numbers(old.value):
        # "The API uses a 45 s timeout" after "The API timeout is 30 s": the new value names
        # the old attribute with its number, and nothing else ("a 5 s connect timeout")
        named = _stems(_unit(new.value))
        return _stems(old.attribute) <= named <= _stems((*old.attribute, *_unit(old.value)))
    return (
        new.copular
        and old.copular
        and bool(new.attribute)
        and _stems(new.attribute) == _stems(old.attribute)
    )


def _same_quantity(new: Claim, old: Claim) -> bool:
    """Another amount of one thing, said the same way: one verb (or both a value of
    "be"), the same attribute and object, and numbers of one unit that differ ("keeps logs
    for 30 days" after "for 14 days", "is on version 3.2" after "version 3.1"; not
    "keeps backups for 30 days")."""
    if (new.verb, new.thing) != (old.verb, old.thing) and not (new.copular and old.copular):
        return False
    if _stems(new.attribute) != _stems(old.attribute):
        return False
    a, b = _numbers(new.value), _numbers(old.value)
    return bool(a and b) and a != b and _unit(new.value) == _unit(old.value)


def _unit(value: str) -> tuple[str, ...]:
    """A value's words that are not numbers ("days" of "14 days")."""
    return tuple(w for w in name_key(value).split() if not any(ch.isdigit() for ch in w))


def same_name(a: str, b: str) -> bool:
    """Two anchors name one thing: equal, or the shorter, of two words or more, begins
    the longer ("Juniper Row Studio", "Juniper Row Studio Ltd")."""
    ka, kb = sorted((name_key(a), name_key(b)), key=len)
    if not ka or not kb:
        return False
    return ka == kb or (len(ka.split()) > 1 and f"{kb} ".startswith(f"{ka} "))


def _kinds_fit(new: Claim, old: Claim) -> bool:
    """Values of one kind: two numbers; a version and a name, or two versions of one
    name; a bare number for a version whose name the new sentence gives ("Kestrel's Redis
    was upgraded to 7.2" for "Redis 6")."""
    kn, ko = value_kind(new.value), value_kind(old.value)
    if kn == "number" or ko == "number":
        if kn == ko:
            return True
        version = ko if kn == "number" else kn
        return (
            kn == "number"
            and version.startswith("version:")
            and _names_in(version.removeprefix("version:"), new.sentence)
        )
    if kn.startswith("version:") and ko.startswith("version:"):
        return kn == ko
    return True


def _role(value: str) -> bool:
    """A value that is a role someone holds of something ("wife of Jonathan Harker", "CTO
    of Sablefish Games"): a change that names no attribute ("moved to Exeter") leaves it
    alone; one that names what it leaves ("left Sablefish Games") still ends it."""
    words = value.split()
    return len(words) > 2 and words[0][:1].islower() and " of " in f" {value} "


def _names_in(name: str, text: str) -> bool:
    """The proper-name words of ``name`` (all its words if it has none) are in ``text``."""
    words = name_key(name).split()
    named = [w for w, raw in zip(words, name.split(), strict=False) if raw[:1].isupper()]
    wanted = set(named or words)
    return bool(wanted) and wanted <= set(name_key(text).split())


def same_value(a: str, b: str) -> bool:
    """Two values are one: the same numbers ("08:00" and "8 am"), or, without numbers,
    the same words or one's words inside the other's ("Kubernetes", "its Kubernetes
    cluster")."""
    na, nb = _numbers(a), _numbers(b)
    if na or nb:
        return na == nb
    ka, kb = name_key(a), name_key(b)
    return bool(ka and kb) and (f" {ka} " in f" {kb} " or f" {kb} " in f" {ka} ")


def value_kind(value: str) -> str:
    """``number`` (a value that is mostly a number: "30 s", "€650"), ``version:<name>``
    ("Python 3.12"), or ``name``."""
    words = value.split()
    if not _numbers(value):
        return "name"
    named = [w for w in words if not any(ch.isdigit() for ch in w) and w[:1].isupper()]
    return f"version:{name_key(' '.join(named))}" if named else "number"


def _numbers(text: str) -> tuple[str, ...]:
    found = re.findall(r"\d+(?:[.,:]\d+)*", text)
    return tuple((n.lstrip("0") or "0").removesuffix(":00") for n in found)


def _words(text: str) -> tuple[str, ...]:
    return tuple(name_key(text).split())


def _stems(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w[:4] for w in words)


def _overlap(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Attributes of one thing: they share a word, and only one side has words the other
    lacks ("newsletter day" and "newsletter"; not "docs theme" and "default theme")."""
    sa, sb = _stems(a), _stems(b)
    return bool(sa & sb) and not (sa - sb and sb - sa)
