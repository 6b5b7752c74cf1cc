"""Claims of clause shapes the main reading of :mod:`loregraph.ingest.clauses.claims` does not
take: a heading and its value ("Gannet upload limit: 25 MB"), a verb the tagger took for a
plural noun ("Bramble's CI runs on Jenkins"), a state with its preposition ("is married to
Tom Walsh"), a "new" thing ("has a new landlord, Ms. Gray") and a named object held by a
common-noun object ("rebuilt its mobile app in Flutter")."""

from __future__ import annotations

from typing import Any

from loregraph.ingest.clauses import tokens as tk
from loregraph.ingest.clauses import words as cw
from loregraph.ingest.clauses.model import Claim


def verb_as_noun(clause: Any, sentence: str) -> Claim | None:
    """ "Bramble's CI runs on Jenkins", "The billing service talks to Stripe": a clause the
    tagger read as one noun phrase, its verb taken for a plural noun at its head, with a
    preposition after it. The words before the head are the subject (a name, or a
    compound of nouns), the head is the verb. Also "Tessellate caches sessions in
    Memcached", where the verb is taken for a noun before the object noun."""
    root = tk.main_verb(clause)
    if root.tag_ != "NNS":
        return None
    verb, value_head = root, None
    hung = next(  # "Tessellate caches sessions": the verb hangs on its object as a compound
        (
            c
            for c in root.children
            if c.dep_ == "compound" and c.tag_ == "NNS" and c.i == root.i - 1
        ),
        None,
    )
    subjects = [
        c for t in (root, hung) if t is not None for c in t.children if c.dep_ in cw.SUBJECTS
    ]
    if subjects:
        if hung is None:
            return None
        verb, value_head = hung, root
        before = [t for s in subjects for t in s.subtree]
    else:
        before = [t for c in root.children if c.i < root.i for t in c.subtree]
    prep = next((c for c in root.children if c.dep_ == "prep" and c.i > root.i), None)
    if prep is None:
        return None
    obj = tk.pobj(prep, clause)
    nouns = [t for t in before if tk.pos(t) in tk.NOUN_TAGS]
    if obj is None or not (value_head or any(tk.named(t) for t in before) or len(nouns) > 1):
        return None
    anchor, attribute = tk.anchor_of([t for t in before if not t.is_punct and tk.pos(t) != "DET"])
    value = tk.text(tk.phrase(obj, clause))
    words = [tk.lemma(verb, "VERB"), *([value_head.lower_] if value_head is not None else [])]
    if not anchor or not value:
        return None
    return Claim(
        sentence,
        anchor,
        attribute,
        f"{' '.join(words)} {prep.lower_}",
        value,
        change="now" in sentence.split(),
    )


def fragment(clause: Any, sentence: str) -> Claim | None:
    """ "Gannet upload limit: 25 MB": a heading with no verb, a colon, then the value."""
    colon = next((t for t in clause if t.text == ":"), None)
    if colon is None:
        return None
    head = clause.doc[clause.start : colon.i]
    if any(t.tag_ in ("VBZ", "VBP", "VBD", "MD") for t in head):
        return None
    rest = clause.doc[colon.i + 1 : clause.end]
    anchor, attribute = tk.anchor_of([t for t in head if tk.pos(t) != "DET" and not t.is_punct])
    value = rest.text.strip().rstrip(".").strip()
    if not anchor or not value:
        return None
    return Claim(sentence, anchor, attribute, "be", value, copular=True)


def state(verb: Any, clause: Any) -> tuple[Any, Any] | None:
    """(adjective, preposition) of "is married to X", "is allergic to X": a complement of
    "be" that is an adjective or participle with a preposition of its own; ``None``
    otherwise."""
    for comp in verb.children:
        if comp.dep_ != "acomp" or not comp.tag_.startswith(("JJ", "VBN")):
            continue
        prep = next((c for c in comp.children if c.dep_ == "prep" and c.i > comp.i), None)
        if prep is not None and tk.pobj(prep, clause) is not None:
            return comp, prep
    return None


def renewed(verb: Any, objects: list[Any]) -> tuple[tuple[str, ...], str] | None:
    """(attribute, value) of "has a new number: 555-0199", "got a new job at Orbit Labs":
    "have" or "get" with a "new" object names the attribute that changed; the value is the
    object's apposition ("" when the value is elsewhere, as after "at")."""
    if tk.lemma(verb, "VERB") not in ("have", "get") or not objects:
        return None
    thing = objects[0]
    if not any(c.dep_ == "amod" and c.lower_ == "new" for c in thing.children):
        return None
    nouns = [c for c in thing.children if c.dep_ == "compound" and c.i < thing.i]
    attribute = tuple(tk.lemma(t, "NOUN") for t in [*nouns, thing])
    appos = next((c for c in thing.children if c.dep_ == "appos"), None)
    if appos is None:
        return attribute, ""
    span = sorted(appos.subtree, key=lambda t: t.i)
    return attribute, thing.doc[span[0].i : span[-1].i + 1].text.strip(" .")


def held_in(comp: Any, clause: Any) -> list[list[Any]]:
    """The named objects of a common-noun object's prepositions ("Flutter" of "rebuilt its
    mobile app in Flutter"): the value, ahead of the object that holds them."""
    if tk.named(comp) or copular_like(comp):
        return []
    out = []
    for prep in (c for c in comp.children if c.dep_ == "prep" and c.lower_ in cw.VALUE_PREPS):
        obj = tk.pobj(prep, clause)
        if obj is not None and tk.named(obj):
            out.append(tk.phrase(obj, clause))
    return out


def copular_like(token: Any) -> bool:
    return token.dep_ in ("attr", "acomp")
