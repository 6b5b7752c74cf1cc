"""Facts a statement of change ends, whatever the type of the fact it changes.

A sentence that says something changed is read by the extractor as a relation named after
its verb ("Amara moved to Bristol": ``MOVES_TO``; "Gannet was migrated from Heroku":
``IS_MIGRATED_FROM``), not as the relation it changes (``LIVES_IN``, ``IS_HOSTED_ON``). Two
rules read such relations of a new memory or document against its source's current facts
of any type:

* **from**: a change relation whose type ends in ``FROM`` or is one of leaving ("left
  Lumora Health") names the old target: the source's current facts with that target end;
* **to**: any other change relation names the new target: the source's current facts whose
  target is of the same entity type (a place for a place, a library for a library) and is
  another entity end ("moved to Bristol" ends "lives in Leeds"; "switched to Clang" ends
  "is compiled with GCC").

The change verbs are one named family (:data:`CHANGE_STEMS`): move, migrate, switch, change,
upgrade, downgrade, swap, replace, relocate, transfer, go from, leave. A fact joins in only
when it started before the change and is current; facts of the same memory or document
never end each other here. Additions ("added Valkey alongside Redis", "also uses") use no
change verb and end nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from loregraph.models import ABOUT, CO_OCCURS, Entity, Relation, name_key

CHANGE_STEMS = (
    "MOV",
    "MIGRAT",
    "SWITCH",
    "CHANG",
    "UPGRAD",
    "DOWNGRAD",
    "SWAP",
    "REPLAC",
    "RELOCAT",
    "TRANSFER",
)
"""Type words of a change verb (a prefix of its upper-case forms)."""
_GO = frozenset({"GO", "GOES", "WENT", "GONE"})
_LEAVE = frozenset({"LEAVE", "LEAVES", "LEFT", "QUIT", "QUITS"})
_NOT_FACTS = frozenset({CO_OCCURS, ABOUT})
_CUES = re.compile(
    r"\b(?:instead\s+of|rather\s+than|no\s+longer|not\s+anymore|quit|"
    r"(?:stopped|ceased)(?=\s+(?:\w+ing|to)\b)|"  # "stopped working for", not "stopped at"
    r"(?:mov|migrat|switch|chang|upgrad|downgrad|relocat|went|gone|go)\w*\b[^.;!?]*?\bfrom|"
    r"replaced|swapped|left(?=\s+(?:the\s+)?(?-i:[A-Z])))\b(?P<rest>[^.;!?]*)",
    re.IGNORECASE,
)
_TO = re.compile(r"\b(?:to|with|by|for|onto|and)\b", re.IGNORECASE)
_SPLIT_AT_TO = ("from", "replaced", "swapped", "left")


def negated_names(sentence: str) -> list[str]:
    """The name keys of the words each negation cue of ``sentence`` applies to: the rest
    of the clause after the cue ("moved from Paris to Berlin": up to "to")."""
    out: list[str] = []
    for cue in _CUES.finditer(sentence):
        rest = cue.group("rest")
        cue_words = cue.group(0)[: cue.start("rest") - cue.start()].lower().split()
        if cue_words and cue_words[-1] in _SPLIT_AT_TO:
            rest = _TO.split(rest, maxsplit=1)[0]
        key = name_key(rest)
        if key:
            out.append(key)
    return out


def before_cue(sentence: str) -> str:
    """The text of ``sentence`` before its first negation cue (all of it without one)."""
    cue = _CUES.search(sentence)
    return sentence if cue is None else sentence[: cue.start()]


def named_in(name: str, segments: Sequence[str]) -> bool:
    """Whether the entity ``name`` is named, as whole words, in one of ``segments``."""
    key = name_key(name)
    return bool(key) and any(f" {key} " in f" {seg} " for seg in segments)


def change_kind(relation_type: str) -> str | None:
    """``"from"`` (the target is what was left), ``"to"`` (the target is what it is now)
    or ``None`` (no change verb) for a relation type such as ``MOVES_TO``."""
    words = relation_type.upper().split("_")
    verb = any(w.startswith(CHANGE_STEMS) or w in _GO for w in words)
    if any(w in _LEAVE for w in words):
        return "from"
    if not verb:
        return None
    return "from" if words[-1] == "FROM" else "to"


def changed_ends(
    change: Relation,
    current: Iterable[Relation],
    entities: Mapping[str, Entity],
    mine: set[str],
) -> list[Relation]:
    """The current facts of ``change``'s source that ``change`` ends (see the module
    notes); ``mine``: the ids of the relations of ``change``'s own memory or document."""
    kind = change_kind(change.type)
    if kind is None:
        return []
    when = change.valid_at or change.created_at
    new_target = entities.get(change.target_id)
    out = []
    for old in current:
        if old.id in mine or old.type in _NOT_FACTS or old.source_id != change.source_id:
            continue
        if old.invalid_at is not None or old.expired_at is not None:
            continue
        if (old.valid_at or old.created_at) > when:
            continue
        if kind == "from":
            hit = old.target_id == change.target_id
        else:
            target = entities.get(old.target_id)
            hit = (
                old.target_id != change.target_id
                and target is not None
                and new_target is not None
                and target.type == new_target.type
                and change_kind(old.type) != "from"
            )
        if hit:
            out.append(old)
    return out


def cued_ends(
    sentences: Iterable[str],
    named: Iterable[Entity],
    current: Iterable[Relation],
) -> list[Relation]:
    """The current facts a memory's sentences end by a cue alone, with no relation read
    from them ("We replaced Redis with Valkey"): a fact whose target the memory names after
    a cue (:func:`negated_names`) ends when its source is named in
    the same sentence; when the sentence names no entity before its first cue
    (:func:`before_cue`), wherever it holds."""
    facts = [r for r in current if r.type not in _NOT_FACTS and r.invalid_at is None]
    entities = list(named)
    out: dict[str, Relation] = {}
    for sentence in sentences:
        segments = negated_names(sentence)
        if not segments:
            continue
        gone = {e.id for e in entities if named_in(e.name, segments)}
        here = {e.id for e in entities if named_in(e.name, [_words(sentence)])} - gone
        hits = [r for r in facts if r.target_id in gone]
        sourced = [r for r in hits if r.source_id in here]
        subject = _words(before_cue(sentence))
        if not sourced and any(named_in(e.name, [subject]) for e in entities):
            continue
        for rel in sourced or hits:
            out.setdefault(rel.id, rel)
    return list(out.values())


def _words(sentence: str) -> str:
    return name_key(sentence)
