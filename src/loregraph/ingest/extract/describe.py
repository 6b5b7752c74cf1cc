"""Choosing an entity's description: a sentence that says what the entity is.

While a piece is parsed, :meth:`DescriptionCues.add` notes what the dependency parse says
about each noun (the parse is not kept, so this is read at once, never parsed again):

* **copula**: the noun is the subject of *is/was/are/were*, *becomes*, *remains* with a
  common noun as complement, directly ("Whitby is a seaside town") or through a relative
  clause ("the Count himself, who was the driver"); not negated ("not", "no place"), not
  after a modal; or a common noun is named by it ("the estate is called Carfax", "a
  town called Bistritz", "the asylum, known as Purfleet House");
* **apposition**: a common noun stands in apposition to it after a comma, dash or
  parenthesis ("Jonathan Harker, a young solicitor, …"; "Dr. Seward, the superintendent
  of the asylum"), or it stands in apposition to a common noun with an article or
  possessive before it ("the solicitor Jonathan Harker", "my old friend and master,
  Professor Van Helsing, of Amsterdam");
* **role**: it has a common noun as a compound, with an article or possessive ("the
  schooner Demeter", "my friend Arthur", not "poor dear Lucy");
* **subject**: it is the subject of the sentence's main verb (or, counting half, of
  another verb).

A cue's *richness* (0-1) is how much its complement says: the words under it, less
articles, possessives and punctuation ("a woman" 0, "only son of Lord Godalming" 0.8). The sentences
that may describe at all are noted too, paragraph by paragraph: a verb, at least
:data:`MIN_WORDS` words and fewer than :data:`CAPITALS_SHARE` of them in capitals (so
never a chapter heading, an all-capitals line, or a heading run into the sentence after
it, which is cut off).

:func:`choose` then picks, per entity, the mention that ranks first by

1. the cue's tier: copula or apposition 2 (1 when its complement says nothing more: "Mina
   is a woman"), role 1, none 0; one less inside quotation marks (a name in dialogue is
   mostly addressed, "friend John", not described);
2. then the cue's richness, and, in a long document, how central the sentence is: the name
   as subject, other frequent entities in it, a sentence neither very short nor longer
   than a description can hold, outside quotation marks, and being the earliest mention
   of its tier (the first definition of a name is mostly its introduction: "I have
   written to my old friend and master, Professor Van Helsing, of Amsterdam, who…");
3. then the earliest.

In a short document (a record of a few sentences) centrality does not count, so a record
whose names carry no cue keeps their first mentions. An entity mentioned only in
sentences that cannot describe keeps its first mention in a short document and gets no
description in a long one.
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

MIN_WORDS = 4
CAPITALS_SHARE = 0.3
"""A sentence with at least this share of its words in capitals is a heading."""
RICH_WORDS = 5
"""Words under a complement for full richness."""
MIN_RICHNESS = 0.2
"""A copula or apposition whose complement says nothing more ("Mina is a woman") ranks
as a role."""
SUBJECT = 1.0
OTHERS_MAX = 1.0
"""Most that other entities in the sentence add to its centrality."""
FIRST = 1.0
"""What being the earliest mention of its tier adds (an introduction)."""
SHORT_WORDS = 8
FITS_CHARS = 200
PENALTY = 0.5

_COPULAS = frozenset({"is", "was", "are", "were", "'s", "’s", "becomes", "became"})
_COPULAS |= frozenset({"remains", "remained"})
_COMMON = frozenset({"NN", "NNS"})
_NAMING = frozenset({"called", "named", "termed", "dubbed", "known"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_BREAKS = frozenset({",", "--", "—", "–", "(", ":"})
DEFINING_TIER = 2
_TIERS = {"copula": DEFINING_TIER, "apposition": DEFINING_TIER, "role": 1}
_OPEN, _CLOSE = "“", "”"


class Span(Protocol):
    """What :func:`choose` reads of an entity mention."""

    start: int
    end: int
    sentence: int


@dataclass(slots=True)
class DescriptionCues:
    """Cues of one document, added piece by piece in document order."""

    heads: list[int] = field(default_factory=list)
    """Character offsets of the nouns that carry a cue, ascending."""
    kinds: list[str] = field(default_factory=list)
    richness: list[float] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    """Where each passage that may describe starts (ascending), ends, and its words."""
    ends: list[int] = field(default_factory=list)
    words: list[int] = field(default_factory=list)

    def add(self, doc: Any, offset: int) -> None:
        """Note the cues of one parsed piece starting at character ``offset``.

        A sentence is taken paragraph by paragraph: a heading the parser ran into the
        sentence after it ("DR. SEWARD'S DIARY Dr. Seward walked…") is left out."""
        for sent in doc.sents:
            for part in _paragraphs(sent):
                words = [t for t in part if t.is_alpha]
                if len(words) < MIN_WORDS or not any(t.tag_.startswith(("VB", "MD")) for t in part):
                    continue
                capitals = sum(1 for t in words if len(t) > 1 and t.is_upper)
                if capitals >= CAPITALS_SHARE * len(words):
                    continue
                self.starts.append(offset + part[0].idx)
                self.ends.append(offset + part[-1].idx + len(part[-1]))
                self.words.append(len(words))
                for token in part:
                    if token.tag_.startswith("NN"):
                        for kind, rich in _cues(token):
                            self.heads.append(offset + token.idx)
                            self.kinds.append(kind)
                            self.richness.append(rich)

    def passage(self, position: int) -> tuple[int, int, int] | None:
        """``(start, end, words)`` of the passage that may describe and holds
        ``position``; ``None`` when there is none."""
        i = bisect.bisect_right(self.starts, position) - 1
        if i < 0 or position >= self.ends[i]:
            return None
        return self.starts[i], self.ends[i], self.words[i]

    def first(self) -> tuple[int, int] | None:
        """The first passage that may describe."""
        return (self.starts[0], self.ends[0]) if self.starts else None

    def cues_in(self, start: int, end: int) -> list[tuple[str, float]]:
        """``(kind, richness)`` of the cues of the nouns in ``[start, end)``."""
        lo = bisect.bisect_left(self.heads, start)
        hi = bisect.bisect_left(self.heads, end, lo)
        return list(zip(self.kinds[lo:hi], self.richness[lo:hi], strict=True))


def _paragraphs(sent: Any) -> list[list[Any]]:
    """The sentence's tokens, split where a paragraph break falls inside it."""
    parts: list[list[Any]] = [[]]
    for token in sent:
        if token.is_space:
            if "\n" in token.text and parts[-1]:
                parts.append([])
        else:
            parts[-1].append(token)
    return [p for p in parts if p]


def _cues(token: Any) -> list[tuple[str, float]]:
    """The cues of one noun, with their richness (module docstring)."""
    found: list[tuple[str, float]] = []
    head = token.head
    if token.dep_ in _SUBJECTS:
        found.append(("subject", 1.0 if head.dep_ == "ROOT" else 0.5))
        complement = _complement(head) if token.dep_ == "nsubj" else None
        if complement is not None:
            found.append(("copula", _richness(complement)))
    after = token.doc[token.i + 1].text if token.i + 1 < len(token.doc) else ""
    for child in token.children:
        if child.dep_ == "appos" and child.tag_ in _COMMON and child.i > token.i:
            if after in _BREAKS:
                found.append(("apposition", _richness(child)))
        elif child.dep_ == "compound" and child.tag_ in _COMMON and _determined(token, child):
            found.append(("role", 0.0))
        elif child.dep_ == "relcl" and (complement := _complement(child)) is not None:
            subject = next((c for c in child.children if c.dep_ == "nsubj"), None)
            if subject is not None and subject.tag_ in ("WP", "WDT"):
                found.append(("copula", _richness(complement)))
    named = _named(token)
    if named is not None:
        found.append(("copula", max(_richness(named), MIN_RICHNESS)))
    if token.dep_ == "appos" and head.tag_ in _COMMON and head.i < token.i and _determined(head):
        between = token.doc[head.i + 1 : token.i]
        if all(t.text in _BREAKS or not t.is_punct for t in between):
            found.append(("apposition", _richness(head, leave=token)))
    return found


def _named(token: Any) -> Any | None:
    """The common noun that ``token`` names: "the estate is called Carfax", "a town
    called Bistritz", "the asylum, known as Purfleet House"; else ``None``."""
    verb = token.head
    if token.dep_ == "pobj" and verb.lower_ == "as":
        verb = verb.head
        if verb.lower_ != "known":
            return None
    elif token.dep_ != "oprd" or verb.lower_ not in _NAMING:
        return None
    if verb.dep_ == "acl":
        noun = verb.head
    else:
        noun = next((c for c in verb.children if c.dep_ == "nsubjpass"), None)
    return noun if noun is not None and noun.tag_ in _COMMON else None


def _determined(*nouns: Any) -> bool:
    """Whether an article or possessive goes with one of ``nouns`` ("the solicitor", "my
    friend"), which tells a role noun from a misread adjective ("poor dear Lucy")."""
    return any(c.dep_ in ("det", "poss") for noun in nouns for c in noun.children)


def _complement(verb: Any) -> Any | None:
    """The common-noun complement of a finite *be*/*become*/*remain*, unless negated."""
    if verb.lower_ not in _COPULAS:
        return None
    children = list(verb.children)
    if any(c.dep_ == "neg" for c in children):
        return None
    attr = next((c for c in children if c.dep_ == "attr" and c.tag_ in _COMMON), None)
    if attr is None or any(c.dep_ == "det" and c.lower_ == "no" for c in attr.children):
        return None
    return attr


def _richness(noun: Any, leave: Any = None) -> float:
    """How much the words under ``noun`` say (less the name ``leave`` and its words)."""
    left = range(leave.left_edge.i, leave.right_edge.i + 1) if leave is not None else range(0)
    said = sum(
        1
        for t in noun.subtree
        if t.i != noun.i and t.is_alpha and t.dep_ not in ("det", "poss") and t.i not in left
    )
    return min(said, RICH_WORDS) / RICH_WORDS


@dataclass(frozen=True, slots=True)
class Pick:
    """Where a description is cut from: ``text[start:end]`` around ``mention``."""

    start: int
    end: int
    mention: tuple[int, int]


@dataclass(frozen=True, slots=True)
class _Document:
    """What ranking a mention needs to know about its document."""

    text: str
    sentences: Sequence[tuple[int, int]]
    cues: DescriptionCues
    in_sentence: Mapping[int, set[str]]
    weight: Mapping[str, float]
    long: bool


def choose(
    spans: Sequence[Span | None],
    names: Sequence[str | None],
    text: str,
    sentences: Sequence[tuple[int, int]],
    cues: DescriptionCues,
    mentions: Mapping[str, int],
    *,
    long: bool,
) -> dict[str, Pick]:
    """The mention to describe each entity by (module docstring).

    ``names`` gives each span's entity (``None``: dropped), ``text`` is the document,
    ``mentions`` each entity's number of mentions, ``long`` whether centrality counts.
    """
    by_name: dict[str, list[Span]] = defaultdict(list)
    in_sentence: dict[int, set[str]] = defaultdict(set)
    for span, name in zip(spans, names, strict=True):
        if span is not None and name is not None:
            by_name[name].append(span)
            in_sentence[span.sentence].add(name)
    top = math.log1p(max([2, *mentions.values()]))
    weight = {name: math.log1p(count) / top for name, count in mentions.items()}
    document = _Document(text, sentences, cues, in_sentence, weight, long)
    picks: dict[str, Pick] = {}
    for name, found in by_name.items():
        ranked = [(_rank(document, name, s), s) for s in found]
        usable = [(key, s) for key, s in ranked if key is not None]
        if usable:
            if long:
                usable = _introductions(usable)
            best = max(usable, key=lambda pair: pair[0])[1]
            start, end, _ = cues.passage(best.start) or (*sentences[best.sentence], 0)
        elif not long:
            best = min(found, key=lambda s: s.start)
            start, end = sentences[best.sentence]
        else:
            continue
        picks[name] = Pick(start, end, (best.start, best.end))
    return picks


Ranked = list[tuple[tuple[int, float, int], Span]]


def _introductions(ranked: Ranked) -> Ranked:
    """``ranked`` with :data:`FIRST` added to the earliest mention of each tier: the first
    time a text defines a name (or names it at all) is mostly where it introduces it."""
    earliest: dict[int, int] = {}
    for i, ((tier, _, start), _) in enumerate(ranked):
        if tier not in earliest or start > ranked[earliest[tier]][0][2]:
            earliest[tier] = i
    out = list(ranked)
    for i in earliest.values():
        (tier, score, start), span = out[i]
        out[i] = ((tier, score + FIRST, start), span)
    return out


def _rank(document: _Document, name: str, span: Span) -> tuple[int, float, int] | None:
    """``(tier, score, -start)`` of a mention, ``None`` when its sentence cannot describe."""
    passage = document.cues.passage(span.start)
    if passage is None:
        return None
    start, end, words = passage
    cues = document.cues.cues_in(span.start, span.end)
    quoted = _quoted(document.text, span.start)
    tier, rich = max(((_TIERS[k], r) for k, r in cues if k in _TIERS), default=(0, 0.0))
    tier = max(0, tier - quoted - (tier == DEFINING_TIER and rich < MIN_RICHNESS))
    score = rich
    if document.long:
        others = sum(document.weight.get(o, 0.0) for o in document.in_sentence[span.sentence])
        score += min(others - document.weight.get(name, 0.0), OTHERS_MAX)
        if not any(k == "copula" for k, _ in cues):  # a copula's subject counts once
            score += SUBJECT * max((r for k, r in cues if k == "subject"), default=0.0)
        score -= PENALTY * (quoted + (words < SHORT_WORDS) + (end - start > FITS_CHARS))
    return tier, score, -span.start


def _quoted(text: str, position: int) -> bool:
    """Whether ``position`` is inside quotation marks opened in its paragraph."""
    before = text[text.rfind("\n\n", 0, position) + 1 : position]
    curly = before.count(_OPEN) > before.count(_CLOSE)
    return curly or before.count('"') % 2 == 1
