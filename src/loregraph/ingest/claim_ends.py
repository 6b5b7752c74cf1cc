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
from collections.abc import Callable
from datetime import datetime

from loregraph.errors import DependencyError
from loregraph.ingest.claims import Claim, read_claims
from loregraph.models import ABOUT, CO_OCCURS, DocKind, DocumentBundle, Relation, name_key, utcnow
from loregraph.store.base import Store

ClaimReader = Callable[[str], list[Claim]]
"""Text → its claims."""
_NOT_FACTS = frozenset({CO_OCCURS, ABOUT})


def spacy_reader(model: str) -> ClaimReader | None:
    """A reader over the spaCy pipeline ``model``, or ``None`` when spaCy or the model is
    not installed."""
    from loregraph.ingest.extract.spacy_nlp import lemmatizer_of, load_nlp

    try:
        nlp = load_nlp(model)
    except DependencyError:
        return None
    lemma = lemmatizer_of(nlp)

    def read(text: str) -> list[Claim]:
        return read_claims(nlp(text), lemma)

    return read


async def claim_ends(
    store: Store, bundle: DocumentBundle, read: ClaimReader
) -> list[tuple[Relation, datetime]]:
    """The current facts a memory's claims end, each with the time it ends (the memory's);
    nothing for a document that is not a memory."""
    if bundle.document.kind != DocKind.MEMORY:
        return []
    text = "\n".join(chunk.text for chunk in bundle.chunks)
    new = await asyncio.to_thread(read, text)
    if not new:
        return []
    when = bundle.document.valid_at or utcnow()
    mine = {r.id for r in bundle.relations}
    by_sentence: dict[str, list[Relation]] = {}
    for write in bundle.entities:
        for rel in await store.entity_relations(write.entity.id, direction="both"):
            if _current(rel, mine, when):
                sentence = next((ev.sentence for ev in rel.evidence if ev.sentence), rel.fact)
                group = by_sentence.setdefault(" ".join(sentence.split()), [])
                if all(r.id != rel.id for r in group):
                    group.append(rel)
    out: list[tuple[Relation, datetime]] = []
    for sentence, facts in by_sentence.items():
        old = await asyncio.to_thread(read, sentence) if sentence else []
        if any(changes(n, o) for n in new for o in old):
            out.extend((rel, when) for rel in facts)
    return out


def _current(rel: Relation, mine: set[str], when: datetime) -> bool:
    return (
        rel.id not in mine
        and rel.type not in _NOT_FACTS
        and rel.invalid_at is None
        and rel.expired_at is None
        and (rel.valid_at or rel.created_at) <= when
    )


def changes(new: Claim, old: Claim) -> bool:
    """Whether claim ``new``, said later, ends what claim ``old`` said.

    * a change that names what it leaves behind ("from Berlin", "replaced Redis", "instead
      of GBP", "no longer uses jQuery") ends an older claim about a name the new sentence
      mentions whose sentence names what was left;
    * otherwise only a claim about the same anchor can end, and only for another value:
      a change ("moved to", "switched to", "now") ends a claim of a fitting attribute (they
      share an attribute noun, or one has none and the two values are of one kind: two
      numbers, two versions of one name, two names); a statement of a value with "be"
      ("The upload limit is 25 MB") ends an older one of the same attribute.
    """
    if new.old:
        return (
            _names_in(old.anchor, new.sentence)
            and _names_in(new.old, old.sentence)
            and name_key(new.old) != name_key(old.anchor)
        )
    if not new.value or not old.value or not same_name(new.anchor, old.anchor):
        return False
    if same_value(new.value, old.value):
        return False
    if new.change:
        if new.attribute and old.attribute:
            return _overlap(new.attribute, old.attribute)
        return _kinds_fit(new, old)
    return (
        new.copular
        and old.copular
        and bool(new.attribute)
        and _stems(new.attribute) == _stems(old.attribute)
    )


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


def _stems(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w[:4] for w in words)


def _overlap(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return bool(_stems(a) & _stems(b))
