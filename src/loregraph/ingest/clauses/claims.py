"""What a short statement claims: who or what it is about, which attribute, which value.

An agent's memory is mostly one statement per sentence: "The Gannet upload limit is 10 MB",
"Amara Okafor lives in Leeds", "We migrated the API server from Express to Hono". To tell
whether a later memory changes an earlier one, each clause is read from its dependency
parse (spaCy) into a :class:`Claim`:

* ``anchor``: the name the clause is about: the proper name in its subject ("Amara Okafor",
  "Gannet" in "The Gannet upload limit"), else its subject noun phrase ("request
  timeout"); when the subject is "we", "I" or missing ("Moved the docs site to …"), the
  verb's object stands for it;
* ``attribute``: the lemmas of the common nouns around the anchor in that phrase
  (``("upload", "limit")``), empty when the subject is a bare name;
* ``verb``: the main verb's lemma with its particle and first preposition ("live in",
  "be", "move to");
* ``value``: what the clause says the attribute is: the complement of "be", the object,
  or the object of the verb's first preposition ("Leeds", "10 MB", "MySQL 8");
* ``old``: the value a change names as left behind ("moved **from Berlin**", "migrated
  **off RabbitMQ**", "replaced **Redis** with", "instead of **GBP**", "left **GitHub**",
  "no longer uses **jQuery**");
* ``change``: the clause says something changed: a change verb
  (:data:`~loregraph.ingest.clauses.words.CHANGE_VERBS`) or "now"; ``ended``: it says
  something stopped ("no longer", "stopped", "not … any more").

A clause that is a question, a condition, a wish or a plan ("If the timeout were 60 s",
"would like to join", "The plan is to move …", "proposed raising …") claims nothing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from loregraph.ingest.clauses import shapes as shapes
from loregraph.ingest.clauses import tokens as tk
from loregraph.ingest.clauses import words as cw
from loregraph.ingest.clauses.model import Claim
from loregraph.ingest.clauses.tokens import Lemma


def read_claims(doc: Any, lemma: Lemma) -> list[Claim]:
    """The claims of a parsed text (a spaCy ``Doc``, tagged and parsed), one per clause that
    makes one, in text order; kept for :func:`recent_claims` under the text."""
    doc.user_data[tk.LEMMATIZER] = lemma  # read by every word of this parse
    found = _read(doc)
    _keep(" ".join(str(doc.text).split()), found)
    return found


RECENT = 8192
"""Texts whose claims :func:`recent_claims` keeps (a memory's claims, read by the
extractor, are read again when the memory's ends are planned; older sentences are read
again for each new memory about their names)."""
_RECENT: OrderedDict[str, tuple[Claim, ...]] = OrderedDict()
_RECENT_LOCK = threading.Lock()


def recent_claims(text: str) -> list[Claim] | None:
    """The claims last read from ``text`` (whitespace aside), or ``None``."""
    key = " ".join(text.split())
    with _RECENT_LOCK:
        found = _RECENT.get(key)
        if found is not None:
            _RECENT.move_to_end(key)
    return None if found is None else list(found)


def _keep(key: str, claims: list[Claim]) -> None:
    with _RECENT_LOCK:
        _RECENT[key] = tuple(claims)
        _RECENT.move_to_end(key)
        while len(_RECENT) > RECENT:
            _RECENT.popitem(last=False)


def _read(doc: Any) -> list[Claim]:
    out: list[Claim] = []
    for sent in doc.sents:
        anchor = ""
        mine: list[Claim] = []
        for clause in _clauses(sent):
            claim = _claim(clause, sent.text.strip(), anchor)
            if claim is not None:
                mine.append(claim)
                anchor = claim.anchor
        out.extend(_changed_together(mine))
    return out


def _changed_together(claims: list[Claim]) -> list[Claim]:
    """The claims of one sentence, those about the anchor of a change that gives no value
    of its own marked as changes ("Lars moved again; as of this week he lives in
    Trondheim"), with the attribute that change names ("changed phones; she has a Pixel 8
    now")."""
    moved = {c.anchor: c.attribute for c in claims if c.change and not c.value and not c.old}
    return [
        replace(c, change=True, attribute=c.attribute or moved[c.anchor])
        if c.anchor in moved and c.value
        else c
        for c in claims
    ]


def _clauses(sent: Any) -> Iterator[Any]:
    """The sentence cut at semicolons (each part a clause of its own)."""
    start = sent.start
    for tok in sent:
        if tok.text == ";":
            if tok.i > start:
                yield sent.doc[start : tok.i]
            start = tok.i + 1
    if start < sent.end:
        yield sent.doc[start : sent.end]


def _unsure(clause: Any) -> bool:
    """A question, a condition, a wish or a plan."""
    if clause.text.rstrip().endswith("?"):
        return True
    for tok in clause:
        low = tok.lower_
        if tok.dep_ == "mark" and low in ("if", "unless", "whether"):
            return True
        if tok.tag_ == "MD" and low in cw.MODALS:
            return True
        if tk.pos(tok) in ("VERB", "NOUN") and tk.lemma(tok, tk.pos(tok)) in cw.UNSURE_VERBS:
            return True
    return False


def _claim(clause: Any, sentence: str, previous: str) -> Claim | None:
    if len(clause) < 2 or _unsure(clause):
        return None
    fragment = shapes.fragment(clause, sentence) or shapes.verb_as_noun(clause, sentence)
    if fragment is not None:
        return fragment
    verb = tk.main_verb(clause)
    lemma = tk.lemma(verb, "VERB")
    words = {t.lower_ for t in clause}
    stopped = lemma in cw.STOP_VERBS and any(c.dep_ in ("xcomp", "dobj") for c in verb.children)
    if stopped:  # "stopped using Slack": the facts are those of the complement
        inner = [c for c in verb.children if c.dep_ == "xcomp" and tk.pos(c) == "VERB"]
        verb = inner[0] if inner else verb
    negated = any(c.dep_ == "neg" for c in verb.children) or "longer" in words
    ended = stopped or (negated and ("longer" in words or "anymore" in words or "more" in words))
    parts = _subject(clause, verb, previous)
    if parts is None:
        return None
    subject, objects, used_object, anchor, attribute = parts
    preps = tk.preps(verb, clause)
    first = next((p for p in preps if p.lower_ != "from"), None)
    verb_words = [lemma] + [
        c.lower_ for c in verb.children if c.dep_ == "prt" and c.lower_ != "off"
    ]
    if first is not None and first.dep_ != "prt":
        verb_words.append(first.lower_)
    setting = lemma in cw.SET_VERBS and first is not None and first.lower_ in ("to", "at")
    copular = lemma == "be" or setting  # "is set to 45 s" states a value as "is 45 s" does
    state = shapes.state(verb, clause) if lemma == "be" else None
    if state is not None:  # "is married to Tom Walsh": a relation, not an attribute
        adjective, prep = state
        verb, copular, preps, objects = adjective, False, [prep], []
        verb_words = ["be", adjective.lower_, prep.lower_]
    value, old = _values(verb, clause, preps, objects, used_object, copular)
    change = lemma in cw.CHANGE_VERBS or tk.now(clause) or tk.change_noun(clause.sent)
    if first is not None and first.lower_ == "to" and not objects and tk.has_digit(value):
        change = True  # "dropped to 3.8", "was cut to 30 days": a new amount (not "pins X to")
    claim = Claim(
        sentence, anchor, attribute, " ".join(verb_words), value, old, change, ended, copular
    )
    return _adjusted(claim, _Parts(clause, verb, lemma, subject, objects, used_object, preps))


def _subject(
    clause: Any, verb: Any, previous: str
) -> tuple[Any, list[Any], bool, str, tuple[str, ...]] | None:
    """(subject token, objects, whether the object stands for the subject, anchor,
    attribute) of a clause, or ``None`` when it is about nothing it names."""
    subjects = tk.objects(verb, clause, cw.SUBJECTS) or tk.compound_subject(verb, clause)
    objects = tk.objects(verb, clause, frozenset({"dobj", "obj"}))
    subject = subjects[0] if subjects and not tk.aside(subjects[0], clause) else None
    used_object = False
    third = bool(subjects) and subjects[0].lower_ in cw.THIRD_PERSON and bool(previous)
    speaker = not subjects or tk.aside(subjects[0], clause)
    if subject is None and objects and not third and speaker:
        subject, used_object = objects[0], True  # "We moved the docs site to …"
    attribute: tuple[str, ...] = ()
    if subject is None:
        if not (subjects and tk.pos(subjects[0]) == "PRON" and previous):
            return None
        anchor = previous
    elif previous and any(c.dep_ == "poss" and tk.pos(c) == "PRON" for c in subject.children):
        # "her new flat is in York" after "Zara has moved": the previous anchor's flat
        nouns = [t for t in tk.phrase(subject, clause) if tk.pos(t) in ("NOUN", "ADJ")]
        anchor, attribute = previous, tuple(tk.lemma(t, "NOUN") for t in nouns)
    else:
        anchor, attribute = tk.anchor_of(tk.phrase(subject, clause), subject)
    return (subject, objects, used_object, anchor, attribute) if anchor else None


@dataclass(frozen=True, slots=True)
class _Parts:
    """What :func:`_adjusted` reads of a clause besides its first claim."""

    clause: Any
    verb: Any
    lemma: str
    subject: Any
    objects: list[Any]
    used_object: bool
    preps: list[Any]


def _adjusted(claim: Claim, p: _Parts) -> Claim:
    """``claim`` as the verbs that name what they leave or replace, "instead of", a kind
    of thing changed, a speaker's purpose and a "new" thing read it."""
    clause, lemma, objects, subject = p.clause, p.lemma, p.objects, p.subject
    anchor, attribute, value, old = claim.anchor, claim.attribute, claim.value, claim.old
    change, copular = claim.change, claim.copular
    if lemma in cw.REPLACE_VERBS and p.used_object:  # "We replaced Redis with Valkey"
        old = tk.text(tk.phrase(objects[0], clause))
        anchor, attribute = tk.other_name(clause, (old, value)) or (anchor, attribute)
    elif lemma in cw.REPLACE_VERBS and objects and subject is not None and subject.dep_ == "nsubj":
        old = tk.text(tk.phrase(objects[0], clause))  # "Vitest has replaced Jest in Wren"
        value = tk.text(tk.phrase(subject, clause))
        anchor, attribute = tk.other_name(clause, (old, value)) or (anchor, attribute)
    elif lemma in cw.REPLACE_VERBS and subject is not None and subject.dep_ == "nsubjpass":
        old = tk.text(tk.phrase(subject, clause))  # "HAProxy was replaced by Envoy in front of …"
        anchor, attribute = tk.other_name(clause, (old, value)) or (anchor, attribute)
    leaving = lemma in cw.LEAVE_VERBS or " ".join(claim.verb.split()[:2]) in cw.LEAVE_PHRASES
    if leaving and objects:
        old = tk.text(tk.phrase(objects[0], clause))
        value = tk.joined(clause) or tk.favoured(clause) or value
    if claim.ended and not old:
        old, value = value, ""
    instead = tk.instead(clause)
    if instead:
        old, change = instead, True
    if lemma in cw.CHANGE_VERBS and objects and not p.used_object and _kind_of(objects[0]):
        # "changed phones", "switched banks to Monzo": the object names what changed
        attribute = (*attribute, tk.lemma(objects[0], "NOUN"))
        value = "" if value == objects[0].text else value
    purpose = _purpose(lemma, p.preps, clause) if p.used_object else None
    if purpose is not None:  # "We use Express for the API server": the API server's Express
        value = tk.text(tk.phrase(objects[0], clause))
        anchor, attribute = tk.anchor_of(tk.phrase(purpose, clause), purpose)
    renewed = shapes.renewed(p.verb, objects) if not p.used_object else None
    if renewed is not None and not renewed[1] and value == tk.text(tk.phrase(objects[0], clause)):
        renewed = None  # "has a new puppy": one more thing, not a new value of one
    if renewed is not None:  # "has a new landlord, Ms. Gray": the landlord changed
        attribute, value, copular, change = renewed[0], renewed[1] or value, True, True
    thing = ""  # "keeps logs for 14 days": what the verb acts on, when the value is elsewhere
    if objects and not p.used_object and not copular:
        noun = tk.text(tk.phrase(objects[0], clause))
        thing = "" if not noun or noun in value else tk.lemma(objects[0], "NOUN")
    return replace(
        claim,
        anchor=anchor,
        attribute=attribute,
        value=value,
        old=old,
        change=change or bool(old),
        copular=copular,
        thing=thing,
    )


def _kind_of(obj: Any) -> bool:
    """A change's object that names a kind of thing, not a thing ("changed phones",
    "switched banks"): a bare plural common noun."""
    bare = not any(c.dep_ in ("det", "poss", "amod", "compound", "nummod") for c in obj.children)
    return obj.tag_ == "NNS" and bare


def _purpose(lemma: str, preps: list[Any], clause: Any) -> Any:
    """What a speaker uses something for ("We use Express for the API server"), which the
    clause is about; ``None`` for another verb or without "for"."""
    if lemma not in cw.USE_VERBS:
        return None
    return next((tk.pobj(p, clause) for p in preps if p.lower_ == "for"), None)


def _values(
    verb: Any, clause: Any, preps: list[Any], objects: list[Any], used_object: bool, copular: bool
) -> tuple[str, str]:
    """(value, old value) of a clause: of the phrases that can hold the value (the
    complement of "be", the object, the objects of prepositions, a loose phrase), the
    first that names something or gives a number, else the first."""
    old = ""
    lemma = tk.lemma(verb, "VERB")
    found: list[list[Any]] = []
    replacing = 0
    for comp in tk.objects(
        verb, clause, cw.OBJECTS if copular else frozenset({"dobj", "obj", "attr"})
    ):
        if not (used_object and comp in objects):
            found.extend(shapes.held_in(comp, clause))
            found.append(tk.phrase(comp, clause))
    for prep in preps:
        obj = tk.pobj(prep, clause)
        if obj is None:
            continue
        phrase = tk.phrase(obj, clause)
        if prep.lower_ in ("from", "off") and lemma in cw.FROM_VERBS and not old:
            old = tk.text(phrase)
            onward = [  # "from Express to Hono", "to Hono" hung on "from" or on "Express"
                o
                for c in [*prep.children, *obj.children]
                if c.dep_ == "prep" and c.lower_ in ("to", "onto", "into")
                for o in [tk.pobj(c, clause)]
                if o is not None
            ]
            if onward:
                found.insert(0, tk.phrase(onward[0], clause))
                replacing += 1
        elif lemma in cw.CHANGE_VERBS and prep.lower_ in ("to", "onto", "into") and objects:
            found.insert(replacing, phrase)  # "switched its base image to python:3.12"
            replacing += 1
        elif lemma in cw.REPLACE_VERBS and prep.lower_ in ("with", "by", "for"):
            if objects and not used_object:
                old = old or tk.text(tk.phrase(objects[0], clause))
            else:
                subj = tk.objects(verb, clause, frozenset({"nsubjpass"}))
                old = old or (tk.text(tk.phrase(subj[0], clause)) if subj else "")
            found.insert(replacing, phrase)  # the first of "with", "by", "for" leads
            replacing += 1
        elif prep.lower_ in cw.VALUE_PREPS:
            found.append(phrase)
    for kid in verb.children:
        if kid.dep_ in ("npadvmod", "advcl", "ccomp", "xcomp") and kid.i > verb.i:
            found.append(
                [t for t in tk.phrase(kid, clause) if tk.pos(t) in tk.NOUN_TAGS or t.text == "$"]
            )
    if not found:  # "uses RabbitMQ": a name the parser left loose after the verb
        after = [t for t in clause if t.i > verb.i]
        run = [
            t
            for t in after[: next((i for i, t in enumerate(after) if not tk.named(t)), len(after))]
        ]
        found.append(run)
    found = [f for f in found if f]
    best = next((f for f in found if any(tk.named(t) or tk.pos(t) == "NUM" for t in f)), None)
    value = tk.text(best or (found[0] if found else []))
    if " to " in f" {old} ":  # "went from $9 to $12": the parser joined the two
        old, _, rest = old.partition(" to ")
        value = value if value and value not in rest else rest
    if value.startswith("from ") and " to " in value:  # "went back from 90% to 80%"
        old, _, value = value.removeprefix("from ").partition(" to ")
    return value.removeprefix("to ").strip(), old.strip()
