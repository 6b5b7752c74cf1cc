"""The words of a parsed clause as a claim reads them: parts of speech from the Penn tags,
lemmas, noun phrases and their text, proper-name runs, a verb's objects and prepositions,
what "left X and joined Y" joined and what "instead of X" sets aside (helpers of
:mod:`loregraph.ingest.clauses.claims`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from loregraph.ingest.clauses import words as claim_words
from loregraph.models import name_key

NOUN_TAGS = frozenset({"NOUN", "ADJ", "PROPN", "NUM", "X", "SYM"})
"""Parts of speech a noun phrase's words may have."""
Lemma = Callable[[Any, str], str]
"""``lemma(token, "VERB" | "NOUN")``: :func:`~loregraph.ingest.extract.spacy_nlp.lemmatizer_of`."""

LEMMATIZER = "loregraph.lemmatizer"
"""Where a parse keeps the lemmatizer its words are read with (``doc.user_data``)."""
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


def pos(tok: Any) -> str:
    """The coarse part of speech from the Penn tag (the pipeline runs without its
    attribute ruler)."""
    tag = str(tok.tag_)
    return "VERB" if tag.startswith("VB") else _TAGS.get(tag, tag)


def lemma(tok: Any, pos: str) -> str:
    """The lemma of ``tok`` read as ``pos``, by its parse's lemmatizer."""
    lemmatize: Lemma = tok.doc.user_data[LEMMATIZER]
    return lemmatize(tok, pos) or str(tok.lower_)


def phrase(token: Any, clause: Any) -> list[Any]:
    """The tokens of ``token``'s noun phrase inside the clause, without determiners,
    relative clauses, appositions (but a number right after a noun: "port 8080"), trailing
    punctuation and what "instead of" / "rather than" sets aside."""
    keep = []
    aside = {d.i for t in token.subtree if t is not token and sets_aside(t) for d in t.subtree}
    if named(token):  # "Lumora Health for Pallas Bank": a name ends before its phrases
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
            elif t.dep_ == "appos" and t.tag_ == "CD" and t.i == t.head.i + 1:
                keep.append(t)  # "port 8080", "Room 4": the number names which one
            continue
        if t.dep_ == "poss" and pos(t) == "PRON":
            continue
        keep.append(t)
    return keep


def sets_aside(tok: Any) -> bool:
    """ "instead" / "rather", or the "of" / "than" right after one."""
    low = tok.lower_
    if low in ("instead", "rather"):
        return True
    return (
        low in ("of", "than") and tok.i > 0 and tok.doc[tok.i - 1].lower_ in ("instead", "rather")
    )


def text(tokens: list[Any]) -> str:
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


def named(tok: Any) -> bool:
    return pos(tok) == "PROPN" or (tok.text[:1].isupper() and tok.i > tok.sent.start)


def anchor_of(tokens: list[Any], head: Any = None) -> tuple[str, tuple[str, ...]]:
    """A subject phrase split into its name (the run of proper-name words that holds the
    phrase's head, else the first; the owner's name when the head is one word owned by a
    name: "Bramble's CI", "Kestrel's Redis") and the lemmas of its other nouns and
    adjectives (the attribute)."""
    runs: list[list[Any]] = []
    for t in sorted(tokens, key=lambda t: t.i):
        if named(t) or (runs and pos(t) == "NUM" and runs[-1][-1].i == t.i - 1):
            if runs and runs[-1][-1].i == t.i - 1:
                runs[-1].append(t)
            else:
                runs.append([t])
    if not runs:
        nouns = [t for t in tokens if pos(t) in NOUN_TAGS]
        return text(nouns), ()
    name = next((run for run in runs if head in run), runs[0])
    owner = next((run for run in runs if run[-1].dep_ == "poss"), None)
    if owner is not None and len(name) == 1:  # "Bramble's CI": the owner, not a one-word head
        name = owner
    attribute = tuple(
        lemma(t, "NOUN")
        for t in sorted(tokens, key=lambda t: t.i)
        if pos(t) in ("NOUN", "ADJ") and t not in name and not named(t)
    )
    return text(name), attribute


def objects(verb: Any, clause: Any, kinds: frozenset[str]) -> list[Any]:
    return [c for c in verb.children if c.dep_ in kinds and clause.start <= c.i < clause.end]


def preps(verb: Any, clause: Any) -> list[Any]:
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


def pobj(prep: Any, clause: Any) -> Any | None:
    kids = [c for c in prep.children if c.dep_ in ("pobj", "pcomp", "dobj") and c.i < clause.end]
    if kids:
        return kids[0]
    after = prep.i + 1
    if prep.dep_ == "prt" and after < clause.end:  # "migrated off RabbitMQ": a loose word
        return prep.doc[after]
    return None


def other_name(clause: Any, taken: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    """The first run of proper-name words in the clause that is not one of ``taken``."""
    keys = {name_key(t) for t in taken if t}
    runs: list[list[Any]] = []
    for t in clause:
        if named(t):
            if runs and runs[-1][-1].i == t.i - 1:
                runs[-1].append(t)
            else:
                runs.append([t])
    for run in runs:
        said = text(run)
        if not any(name_key(said) in k or k in name_key(said) for k in keys if k):
            return said, ()
    return None


def joined(clause: Any) -> str:
    """What "left X and joined Y" / "left X to join Y" / "left X for Y" joined."""
    for tok in clause:
        if lemma(tok, "VERB") in ("join", "found", "start"):
            objs = [c for c in tok.children if c.dep_ in ("dobj", "obj")]
            if objs:
                return text(phrase(objs[-1], clause))
    return ""


def favoured(clause: Any) -> str:
    """What "in favour of X" / "in favor of X" chooses."""
    for tok in clause:
        if tok.lower_ in ("favour", "favor") and tok.head.lower_ == "in":
            of = next((c for c in tok.children if c.lower_ == "of"), None)
            obj = pobj(of, clause) if of is not None else None
            if obj is not None:
                return text(phrase(obj, clause))
    return ""


def instead(clause: Any) -> str:
    """What "instead of X" / "rather than X" sets aside."""
    for tok in clause:
        if tok.lower_ == "of" and tok.i > clause.start and tok.doc[tok.i - 1].lower_ == "instead":
            obj = pobj(tok, clause)
            return "" if obj is None else text(phrase(obj, clause))
        if tok.lower_ == "than" and tok.i > clause.start and tok.doc[tok.i - 1].lower_ == "rather":
            obj = pobj(tok, clause)
            return "" if obj is None else text(phrase(obj, clause))
    return ""


def now(clause: Any) -> bool:
    """The clause says what holds from now on: "now", "nowadays", "these days", "as of
    this sprint"."""
    lowered = [t.lower_ for t in clause]
    pairs = set(itertools.pairwise(lowered))
    return bool(claim_words.NOW_WORDS & set(lowered)) or bool(claim_words.NOW_PAIRS & pairs)


def change_noun(sent: Any) -> bool:
    """The sentence names a change as a noun ("After this week's upgrade, …")."""
    return any(pos(t) == "NOUN" and t.lower_.startswith(claim_words.CHANGE_NOUNS) for t in sent)


def compound_subject(verb: Any, clause: Any) -> list[Any]:
    """ "Fernwood runs on Node 18" parsed with "Fernwood" as a compound of the verb: a
    name hung before a verb that has no subject is its subject."""
    return [c for c in verb.children if c.dep_ == "compound" and c.i < verb.i and named(c)][:1]


def aside(subject: Any, clause: Any) -> bool:
    """A subject that stands for the speaker ("we", "I", "the team"), not for what the
    clause is about; a name in its phrase makes it an anchor ("The Kettleby team")."""
    if subject.lower_ not in claim_words.ASIDE:
        return False
    return not any(named(t) for t in phrase(subject, clause) if t is not subject)


def main_verb(clause: Any) -> Any:
    """The clause's head verb; for "finished migrating X" the verb of the complement."""
    roots = [
        t for t in clause if t.head.i == t.i or t.head.i < clause.start or t.head.i >= clause.end
    ]
    root = roots[0] if roots else clause[0]
    xcomp = [c for c in root.children if c.dep_ == "xcomp" and pos(c) == "VERB"]
    if xcomp and lemma(root, "VERB") in ("finish", "start", "complete", "begin", "get"):
        return xcomp[0]
    return root


def has_digit(text: str) -> bool:
    return any(ch.isdigit() for ch in text)
