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
* ``change``: the clause says something changed: a change verb (:data:`CHANGE_VERBS`) or
  "now"; ``ended``: it says something stopped ("no longer", "stopped", "not … any more").

A clause that is a question, a condition, a wish or a plan ("If the timeout were 60 s",
"would like to join", "The plan is to move …", "proposed raising …") claims nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from loregraph.models import name_key

CHANGE_VERBS = frozenset(
    {
        "move",
        "migrate",
        "switch",
        "change",
        "upgrade",
        "downgrade",
        "relocate",
        "transfer",
        "swap",
        "replace",
        "go",
        "leave",
        "quit",
        "bump",
        "raise",
        "lower",
        "increase",
        "reduce",
        "update",
        "rename",
    }
)
"""Verbs (lemmas) that say a fact changed."""
UNSURE_VERBS = frozenset(
    {"plan", "propose", "want", "like", "consider", "hope", "intend", "suggest", "think"}
)
"""Verbs whose complement is only an intention or an idea ("would like to join")."""
MODALS = frozenset({"would", "could", "might", "may", "should", "shall", "must"})
_STOP_VERBS = frozenset({"stop", "cease", "quit"})
_ASIDE = frozenset({"we", "i", "you", "they", "us", "he", "she", "it", "someone", "team"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_OBJECTS = frozenset({"dobj", "obj", "attr", "oprd", "acomp"})
_TO_PREPS = frozenset({"to", "onto", "into", "with", "by", "for"})
_VALUE_PREPS = frozenset(
    {"in", "on", "at", "with", "to", "onto", "into", "for", "by", "from", "under", "as", "via"}
)
_NOUNS = frozenset({"NOUN", "ADJ", "PROPN", "NUM", "X", "SYM"})


@dataclass(frozen=True, slots=True)
class Claim:
    """One clause read as anchor, attribute, verb and value (see the module notes)."""

    sentence: str
    anchor: str
    attribute: tuple[str, ...]
    verb: str
    value: str
    old: str = ""
    change: bool = False
    ended: bool = False
    copular: bool = False


Lemma = Callable[[Any, str], str]
"""``lemma(token, "VERB" | "NOUN")``: :func:`~loregraph.ingest.extract.spacy_nlp.lemmatizer_of`."""


def read_claims(doc: Any, lemma: Lemma) -> list[Claim]:
    """The claims of a parsed text (a spaCy ``Doc``, tagged and parsed), one per clause that
    makes one, in text order."""
    token = _LEMMA.set(lemma)
    try:
        return _read(doc)
    finally:
        _LEMMA.reset(token)


_LEMMA: ContextVar[Lemma] = ContextVar("claims_lemma")
_TAGS = {
    "NNP": "PROPN",
    "NNPS": "PROPN",
    "NN": "NOUN",
    "NNS": "NOUN",
    "JJ": "ADJ",
    "JJR": "ADJ",
    "JJS": "ADJ",
    "CD": "NUM",
    "PRP": "PRON",
    "PRP$": "PRON",
    "DT": "DET",
    "MD": "AUX",
}


def _pos(tok: Any) -> str:
    """The coarse part of speech from the Penn tag (the pipeline runs without its
    attribute ruler)."""
    tag = str(tok.tag_)
    return "VERB" if tag.startswith("VB") else _TAGS.get(tag, tag)


def _lemma(tok: Any, pos: str) -> str:
    return _LEMMA.get()(tok, pos) or str(tok.lower_)


def _read(doc: Any) -> list[Claim]:
    out: list[Claim] = []
    for sent in doc.sents:
        anchor = ""
        for clause in _clauses(sent):
            claim = _claim(clause, sent.text.strip(), anchor)
            if claim is not None:
                out.append(claim)
                anchor = claim.anchor
    return out


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
        if tok.tag_ == "MD" and low in MODALS:
            return True
        if _pos(tok) in ("VERB", "NOUN") and _lemma(tok, _pos(tok)) in UNSURE_VERBS:
            return True
    return False


def _main_verb(clause: Any) -> Any:
    """The clause's head verb; for "finished migrating X" the verb of the complement."""
    roots = [
        t for t in clause if t.head.i == t.i or t.head.i < clause.start or t.head.i >= clause.end
    ]
    root = roots[0] if roots else clause[0]
    xcomp = [c for c in root.children if c.dep_ == "xcomp" and _pos(c) == "VERB"]
    if xcomp and _lemma(root, "VERB") in ("finish", "start", "complete", "begin", "get"):
        return xcomp[0]
    return root


def _phrase(token: Any, clause: Any) -> list[Any]:
    """The tokens of ``token``'s noun phrase inside the clause, without determiners,
    relative clauses, trailing punctuation and what "instead of" / "rather than" sets
    aside."""
    keep = []
    aside = {d.i for t in token.subtree if t is not token and _sets_aside(t) for d in t.subtree}
    if _named(token):  # "Lumora Health for Pallas Bank": a name ends before its phrases
        aside |= {
            d.i
            for kid in token.children
            if kid.dep_ == "prep" and kid.lower_ != "of" and kid.i > token.i
            for d in kid.subtree
        }
    for t in token.subtree:
        if t.i < clause.start or t.i >= clause.end or t.i in aside:
            continue
        if t.dep_ in ("det", "relcl", "punct", "cc", "advmod", "appos") and t is not token:
            if t.dep_ == "punct" and t.text in ("-", "/", "."):
                keep.append(t)
            continue
        if t.dep_ == "poss" and _pos(t) == "PRON":
            continue
        keep.append(t)
    return keep


def _sets_aside(tok: Any) -> bool:
    """ "instead" / "rather", or the "of" / "than" right after one."""
    low = tok.lower_
    if low in ("instead", "rather"):
        return True
    return (
        low in ("of", "than") and tok.i > 0 and tok.doc[tok.i - 1].lower_ in ("instead", "rather")
    )


def _text(tokens: list[Any]) -> str:
    if not tokens:
        return ""
    doc = tokens[0].doc
    lo, hi = min(t.i for t in tokens), max(t.i for t in tokens)
    keep = {t.i for t in tokens}
    words = [t for t in doc[lo : hi + 1] if t.i in keep or t.text in ("-", "/", ".", "'s", "’s")]
    out = ""
    for t, after in zip(words, [*words[1:], None], strict=True):
        gap = t.whitespace_ if after is not None and after.i == t.i + 1 else " "
        out += t.text + gap
    return out.strip().rstrip(".,;:").removesuffix("'s").removesuffix("’s").strip()


def _named(tok: Any) -> bool:
    return _pos(tok) == "PROPN" or (tok.text[:1].isupper() and tok.i > tok.sent.start)


def _anchor_of(tokens: list[Any], head: Any = None) -> tuple[str, tuple[str, ...]]:
    """A subject phrase split into its name (the run of proper-name words that holds the
    phrase's head, else the first) and the lemmas of its other nouns and adjectives (the
    attribute)."""
    runs: list[list[Any]] = []
    for t in sorted(tokens, key=lambda t: t.i):
        if _named(t) or (runs and _pos(t) == "NUM" and runs[-1][-1].i == t.i - 1):
            if runs and runs[-1][-1].i == t.i - 1:
                runs[-1].append(t)
            else:
                runs.append([t])
    if not runs:
        nouns = [t for t in tokens if _pos(t) in _NOUNS]
        return _text(nouns), ()
    name = next((run for run in runs if head in run), runs[0])
    attribute = tuple(
        _lemma(t, "NOUN")
        for t in sorted(tokens, key=lambda t: t.i)
        if _pos(t) in ("NOUN", "ADJ") and t not in name and not _named(t)
    )
    return _text(name), attribute


def _objects(verb: Any, clause: Any, kinds: frozenset[str]) -> list[Any]:
    return [c for c in verb.children if c.dep_ in kinds and clause.start <= c.i < clause.end]


def _preps(verb: Any, clause: Any) -> list[Any]:
    """The verb's prepositions (and "off"), with those of an adverb it governs ("moved
    back to Turin")."""
    out = []
    for c in verb.children:
        if not clause.start <= c.i < clause.end:
            continue
        if c.dep_ in ("prep", "dative", "agent") or (c.dep_ == "prt" and c.lower_ == "off"):
            out.append(c)
        elif c.dep_ == "advmod":
            out.extend(g for g in c.children if g.dep_ == "prep" and g.i < clause.end)
    return out


def _pobj(prep: Any, clause: Any) -> Any | None:
    kids = [c for c in prep.children if c.dep_ in ("pobj", "pcomp", "dobj") and c.i < clause.end]
    if kids:
        return kids[0]
    after = prep.i + 1
    if prep.dep_ == "prt" and after < clause.end:  # "migrated off RabbitMQ": a loose word
        return prep.doc[after]
    return None


def _claim(clause: Any, sentence: str, previous: str) -> Claim | None:
    if len(clause) < 2 or _unsure(clause):
        return None
    fragment = _fragment(clause, sentence)
    if fragment is not None:
        return fragment
    verb = _main_verb(clause)
    lemma = _lemma(verb, "VERB")
    words = {t.lower_ for t in clause}
    stopped = lemma in _STOP_VERBS and any(c.dep_ in ("xcomp", "dobj") for c in verb.children)
    if stopped:  # "stopped using Slack": the facts are those of the complement
        inner = [c for c in verb.children if c.dep_ == "xcomp" and _pos(c) == "VERB"]
        verb = inner[0] if inner else verb
    negated = any(c.dep_ == "neg" for c in verb.children) or "longer" in words
    ended = stopped or (negated and ("longer" in words or "anymore" in words or "more" in words))
    subjects = _objects(verb, clause, _SUBJECTS)
    objects = _objects(verb, clause, frozenset({"dobj", "obj"}))
    subject = subjects[0] if subjects and subjects[0].lower_ not in _ASIDE else None
    used_object = False
    if subject is None and objects and (not subjects or subjects[0].lower_ in _ASIDE):
        subject, used_object = objects[0], True
    attribute: tuple[str, ...] = ()
    if subject is None:
        if subjects and _pos(subjects[0]) == "PRON" and previous:
            anchor = previous
        else:
            return None
    else:
        anchor, attribute = _anchor_of(_phrase(subject, clause), subject)
    if not anchor:
        return None
    preps = _preps(verb, clause)
    first = next((p for p in preps if p.lower_ != "from"), None)
    verb_words = [lemma] + [
        c.lower_ for c in verb.children if c.dep_ == "prt" and c.lower_ != "off"
    ]
    if first is not None and first.dep_ != "prt":
        verb_words.append(first.lower_)
    copular = lemma == "be"
    value, old = _values(verb, clause, preps, objects, used_object, copular)
    change = lemma in CHANGE_VERBS or "now" in words or _change_noun(clause.sent)
    if lemma in ("replace", "swap") and used_object:  # "We replaced Redis with Valkey"
        old = _text(_phrase(objects[0], clause))
        anchor, attribute = _other_name(clause, (old, value)) or (anchor, attribute)
    elif lemma in ("replace", "swap") and subject is not None and subject.dep_ == "nsubjpass":
        old = _text(_phrase(subject, clause))  # "HAProxy was replaced by Envoy in front of …"
        anchor, attribute = _other_name(clause, (old, value)) or (anchor, attribute)
    if lemma in ("leave", "quit") and objects:
        old = _text(_phrase(objects[0], clause))
        value = _joined(clause) or value
    if ended and not old:
        old, value = value, ""
    instead = _instead(clause)
    if instead:
        old, change = instead, True
    return Claim(
        sentence=sentence,
        anchor=anchor,
        attribute=attribute,
        verb=" ".join(verb_words),
        value=value,
        old=old,
        change=change or bool(old),
        ended=ended,
        copular=copular,
    )


def _values(
    verb: Any, clause: Any, preps: list[Any], objects: list[Any], used_object: bool, copular: bool
) -> tuple[str, str]:
    """(value, old value) of a clause: of the phrases that can hold the value (the
    complement of "be", the object, the objects of prepositions, a loose phrase), the
    first that names something or gives a number, else the first."""
    old = ""
    lemma = _lemma(verb, "VERB")
    found: list[list[Any]] = []
    for comp in _objects(verb, clause, _OBJECTS if copular else frozenset({"dobj", "obj", "attr"})):
        if not (used_object and comp in objects):
            found.append(_phrase(comp, clause))
    for prep in preps:
        obj = _pobj(prep, clause)
        if obj is None:
            continue
        phrase = _phrase(obj, clause)
        if prep.lower_ in ("from", "off") and lemma in CHANGE_VERBS and not old:
            old = _text(phrase)
        elif lemma in ("replace", "swap") and prep.lower_ in ("with", "by", "for"):
            if objects and not used_object:
                old = old or _text(_phrase(objects[0], clause))
            else:
                subj = _objects(verb, clause, frozenset({"nsubjpass"}))
                old = old or (_text(_phrase(subj[0], clause)) if subj else "")
            found.insert(0, phrase)
        elif prep.lower_ in _VALUE_PREPS:
            found.append(phrase)
    for kid in verb.children:
        if kid.dep_ in ("npadvmod", "advcl", "ccomp", "xcomp") and kid.i > verb.i:
            found.append([t for t in _phrase(kid, clause) if _pos(t) in _NOUNS or t.text == "$"])
    if not found:  # "uses RabbitMQ": a name the parser left loose after the verb
        after = [t for t in clause if t.i > verb.i]
        run = [
            t for t in after[: next((i for i, t in enumerate(after) if not _named(t)), len(after))]
        ]
        found.append(run)
    found = [f for f in found if f]
    best = next((f for f in found if any(_named(t) or _pos(t) == "NUM" for t in f)), None)
    value = _text(best or (found[0] if found else []))
    if " to " in f" {old} ":  # "went from $9 to $12": the parser joined the two
        old, _, rest = old.partition(" to ")
        value = value if value and value not in rest else rest
    if value.startswith("from ") and " to " in value:  # "went back from 90% to 80%"
        old, _, value = value.removeprefix("from ").partition(" to ")
    return value.removeprefix("to ").strip(), old.strip()


def _change_noun(sent: Any) -> bool:
    """The sentence names a change as a noun ("After this week's upgrade, …")."""
    return any(_pos(t) == "NOUN" and t.lower_.startswith(_CHANGE_NOUNS) for t in sent)


_CHANGE_NOUNS = ("upgrade", "migration", "switchover", "move")


def _other_name(clause: Any, taken: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    """The first run of proper-name words in the clause that is not one of ``taken``."""
    keys = {name_key(t) for t in taken if t}
    runs: list[list[Any]] = []
    for t in clause:
        if _named(t):
            if runs and runs[-1][-1].i == t.i - 1:
                runs[-1].append(t)
            else:
                runs.append([t])
    for run in runs:
        text = _text(run)
        if not any(name_key(text) in k or k in name_key(text) for k in keys if k):
            return text, ()
    return None


def _joined(clause: Any) -> str:
    """What "left X and joined Y" / "left X to join Y" / "left X for Y" joined."""
    for tok in clause:
        if _lemma(tok, "VERB") in ("join", "found", "start"):
            objs = [c for c in tok.children if c.dep_ in ("dobj", "obj")]
            if objs:
                return _text(_phrase(objs[-1], clause))
    return ""


def _instead(clause: Any) -> str:
    """What "instead of X" / "rather than X" sets aside."""
    for tok in clause:
        if tok.lower_ == "of" and tok.i > clause.start and tok.doc[tok.i - 1].lower_ == "instead":
            obj = _pobj(tok, clause)
            return "" if obj is None else _text(_phrase(obj, clause))
        if tok.lower_ == "than" and tok.i > clause.start and tok.doc[tok.i - 1].lower_ == "rather":
            obj = _pobj(tok, clause)
            return "" if obj is None else _text(_phrase(obj, clause))
    return ""


def _fragment(clause: Any, sentence: str) -> Claim | None:
    """ "Gannet upload limit: 25 MB": a heading with no verb, a colon, then the value."""
    colon = next((t for t in clause if t.text == ":"), None)
    if colon is None:
        return None
    head = clause.doc[clause.start : colon.i]
    if any(t.tag_ in ("VBZ", "VBP", "VBD", "MD") for t in head):
        return None
    rest = clause.doc[colon.i + 1 : clause.end]
    anchor, attribute = _anchor_of([t for t in head if _pos(t) != "DET" and not t.is_punct])
    value = rest.text.strip().rstrip(".").strip()
    if not anchor or not value:
        return None
    return Claim(sentence, anchor, attribute, "be", value, copular=True)
