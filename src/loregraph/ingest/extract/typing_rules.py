"""Entity types from the sentence around a name, by general rules of English (no name lists).

The tagger types a name from the name itself; these rules look at its sentence. Each
mention gets *hints* while the piece is parsed (:func:`noun_hint`, :func:`follows_the`,
:func:`in_code`); :func:`apply_context_types` then decides once per name, over all its
mentions in the document, and relabels its spans before the document's entities are
assembled.

Hints of one mention:

* **a common noun that names its kind**: "the schooner Emma", "the steamers Emma and
  Scarborough", "the Demeter, a Russian schooner", "the Demeter was a schooner", "the
  schooner … is called the Demeter", "a ship named the Demeter", "the firm of Mitchell";
  the noun's type comes from :func:`~loregraph.text.entity_types.normalize_type`
  (schooner → Product, company → Organization, city → Location, function → Code; a noun
  of no such type — "friend", "day", "agent" — gives no hint). After "of" only a place or
  an organisation counts ("the firm of Hapgood", "the city of London");
* **a vehicle's preposition**: "aboard the X", "on board (of) the X" → Product;
* **"the" before a name the tagger calls a person**: English puts no article before a
  person's name, but does before the names of ships, trains and works ("the Demeter");
  a plural ("the Harkers", a family) and a title reference ("the Count") do not count;
* **code**: the mention is inside backticks or a fenced code block.

Decisions per name (its cleaned surface, case-folded):

1. **Code** when the name is shaped like code (:func:`code_shaped`: ``snake_case``,
   ``camelCase``, ``dotted.names``, call or operator syntax; ``PascalCase`` joined words
   in a document with code in it) or at least one in :data:`CODE_SHARE` of its mentions
   is in code.
2. **The noun's type** when the mentions with a noun hint or after "the" are more than
   half of its mentions (a novel that once says "the novel Dracula" keeps its Count a
   person).
3. **Not a person** (``Concept``: a kind the sentence does not tell — a people, "the
   Turk"; a river, "the Bistritza"; a ship with no noun, "the Lively") when more than half
   of its mentions are a person-tagged name after "the", and the name does not begin
   with a title ("the Emperor Napoleon" is a person; such a name needs a noun hint).

A name given a type by rules 1-2 loses its place hints (:mod:`.assemble`): "in the
Demeter" does not make a ship a place; after rule 3 the place rule may still make it one
("on the Bistritza", "at the Sereth").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

from loregraph.text import names
from loregraph.text.code_shapes import code_kind
from loregraph.text.entity_types import (
    CODE,
    CONCEPT,
    EVENT,
    LOCATION,
    ORGANIZATION,
    PRODUCT,
    normalize_type,
)


class Mention(Protocol):
    """What the decisions read (and change) of an entity mention (``SpanRecord``)."""

    surface: str
    label: str
    title_ref: bool
    place_hint: bool
    noun_type: str
    after_the: bool
    in_code: bool


CODE_SHARE = 3
"""A name is code when at least 1 in this many of its mentions are in code."""

_COMMON_NOUNS = frozenset({"NN", "NNS"})
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "our", "their"})
_COPULA_FORMS = frozenset({"is", "was", "are", "were", "be", "been", "being", "'s"})
_NAMING_FORMS = frozenset({"called", "named", "christened", "dubbed", "renamed", "titled"})
_SNAKE = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]")
_LOWER_CAMEL = re.compile(r"^[a-z]{2,}[A-Z]")
_JOINED = re.compile(r"[a-z]{3,}[A-Z][a-z]")
_DOTTED = re.compile(r"[A-Za-z_]\w*\.[A-Za-z_]\w+")
_CALL = re.compile(r"[\w.]\(|[=<>{}\[\]\\$@#]|::|->")
_FENCE = "```"
_HINT_TYPES = frozenset({ORGANIZATION, LOCATION, PRODUCT, EVENT, CODE})
"""Types a noun next to a name may give it: "the day Lucy died" gives no Time, and "the
agents, Mitchell & Sons" no Person (role nouns describe firms as often as people)."""


def code_shaped(surface: str, *, technical: bool = False) -> bool:
    """Whether a name is written like a program identifier, not like a name.

    ``max_connections``, ``pg_dump`` (snake case), ``maxBuffer``, ``myURL`` (camel
    case), ``console.log``, ``Node.js`` (dotted), ``f(x``, ``cost=4.36`` (call or operator
    syntax); in a ``technical`` document (one with code in it) also words joined in
    Pascal case (``BlockNumber``, ``DateStyle``), which elsewhere are mostly brand names
    (``PlayStation``). Never: ``McDonald``, ``MacArthur``, ``J.R.R. Tolkien``, ``U.S.``.
    """
    if _SNAKE.search(surface) or _CALL.search(surface):
        return True
    for word in surface.split():
        if _LOWER_CAMEL.search(word) or (technical and _JOINED.search(word)):
            return True
        if _DOTTED.search(word) and not _initials(word):
            return True
    return False


def _initials(word: str) -> bool:
    """ "U.S.", "Ph.D", "J.R.R." (every dotted part at most two letters)."""
    return all(len(p) <= 2 for p in word.split(".") if p)


def in_code(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is inside backticks (on its line) or a fenced block."""
    if text.count(_FENCE, 0, start) % 2 == 1:
        return True
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    before = text.count("`", line_start, start)
    return before % 2 == 1 and "`" in text[end:line_end]


def one_side_of_backticks(text: str, start: int, end: int) -> tuple[int, int]:
    """The longest backtick-free part of ``text[start:end]``: a name never runs from
    prose into code ("Call `console.log" is "console.log")."""
    if "`" not in text[start:end]:
        return start, end
    best, at = (start, start), start
    for piece in text[start:end].split("`"):
        stripped = piece.strip()
        if len(stripped) > best[1] - best[0]:
            lo = at + piece.index(stripped[0]) if stripped else at
            best = (lo, lo + len(stripped))
        at += len(piece) + 1
    return best if best[1] > best[0] else (start, end)


def _previous(doc: Any, i: int, skip: frozenset[str] = frozenset()) -> Any:
    """The nearest token before ``i`` that is not a space (nor a word in ``skip``)."""
    j = i - 1
    while j >= 0 and (doc[j].is_space or doc[j].lower_ in skip):
        j -= 1
    return doc[j] if j >= 0 else None


def follows_the(doc: Any, start: int) -> bool:
    """Whether the name starting at token ``start`` has "the" right before it."""
    if doc[start].lower_ == "the":
        return True
    before = _previous(doc, start)
    return before is not None and before.lower_ == "the"


def _noun_type(noun: Any, *, after_of: bool = False) -> str:
    if noun is None or noun.tag_ not in _COMMON_NOUNS or not noun.is_lower:
        return ""
    kind = normalize_type(noun.lower_)
    if kind not in _HINT_TYPES or (after_of and kind not in (LOCATION, ORGANIZATION)):
        return ""
    return kind


def _vehicle_preposition(doc: Any, start: int) -> bool:
    """ "aboard (the) X", "on board (of) (the) X": only vehicles are boarded."""
    before = _previous(doc, start, _DETERMINERS)
    if before is not None and before.lower_ == "of":
        before = _previous(doc, before.i)
    if before is None:
        return False
    on = _previous(doc, before.i)
    return before.lower_ == "aboard" or (
        before.lower_ == "board" and on is not None and on.lower_ == "on"
    )


def noun_hint(doc: Any, start: int, root: Any, depth: int = 0) -> str:
    """The type the words next to the name give it, or "" (module docstring).

    ``start`` is the name's first token, ``root`` its syntactic head; a name conjoined to
    another ("the steamers Emma and Scarborough") shares the other's hint.
    """
    if _vehicle_preposition(doc, start):
        return PRODUCT
    premodifier = _previous(doc, start)
    relative = root.dep_.startswith("nsubj") and root.head.dep_ == "relcl"  # the house X built
    if premodifier is not None and not relative:
        determiner = _previous(doc, premodifier.i)
        kind = _noun_type(premodifier)
        if kind and determiner is not None and determiner.lower_ in _DETERMINERS:
            return kind
    kind = _syntactic_hint(root)
    if kind or root.dep_ != "conj" or root.head is root or depth > 2:
        return kind
    other = root.head
    first = min([other.i] + [c.i for c in other.children if c.dep_ == "compound"])
    return noun_hint(doc, first, other, depth + 1)


def _syntactic_hint(root: Any) -> str:
    """Apposition, copula, naming verb or "the <noun> of <name>" around the name's root."""
    head, dep = root.head, root.dep_
    if dep == "appos":
        return _noun_type(head)
    for child in root.children:
        if child.dep_ == "appos" and (kind := _noun_type(child)):
            return kind
    if dep == "nsubj" and head.lower_ in _COPULA_FORMS:
        attr = next((c for c in head.children if c.dep_ == "attr"), None)
        return _noun_type(attr)
    if dep in ("attr", "oprd") and head.lower_ in _COPULA_FORMS:
        return _noun_type(next((c for c in head.children if c.dep_ == "nsubj"), None))
    if dep in ("oprd", "attr", "dobj") and head.lower_ in _NAMING_FORMS:
        return _noun_type(_named_thing(head))
    if dep == "pobj" and head.lower_ == "of" and head.head is not head:
        return _noun_type(head.head, after_of=True)
    return ""


def _named_thing(verb: Any) -> Any:
    """What a naming verb names: "a ship called X" → ship; "the ship is called X" → ship."""
    if verb.dep_ == "acl":
        return verb.head
    for holder in (verb, verb.head):
        for child in holder.children:
            if child.dep_ in ("nsubj", "nsubjpass"):
                return child
        if verb.dep_ != "conj":
            break
    return None


def _decide(mentions: Sequence[Mention], *, technical: bool) -> str:
    """The type the context gives one name (module docstring), or "" to keep the tagger's."""
    n = len(mentions)
    surface = mentions[0].surface
    coded = sum(m.in_code for m in mentions)
    shaped = code_kind(surface)
    if shaped:
        return shaped
    if code_shaped(surface, technical=technical) or coded * CODE_SHARE >= n:
        return CODE
    hints = Counter(m.noun_type for m in mentions if m.noun_type)
    after_the = sum(1 for m in mentions if m.after_the and not m.noun_type)
    if hints and (sum(hints.values()) + after_the) * 2 > n:
        return max(hints, key=lambda t: (hints[t], t))
    person_the = sum(1 for m in mentions if m.after_the and m.label == "PERSON")
    titled = bool(names.split_title(surface)[0])
    if not titled and person_the * 2 > n:
        return CONCEPT
    return ""


def apply_context_types(spans: Sequence[Mention]) -> int:
    """Relabel the spans of every name whose context decides its type; returns how many
    names were relabelled. Title references ("the Count") and the document-title string
    matches are left alone."""
    by_name: dict[str, list[Mention]] = {}
    for span in spans:
        if not span.title_ref and span.label != "TITLE":
            by_name.setdefault(span.surface.casefold(), []).append(span)
    technical = any(span.in_code for span in spans)
    changed = 0
    for mentions in by_name.values():
        kind = _decide(mentions, technical=technical)
        if not kind:
            continue
        for span in mentions:
            span.label = kind
            span.place_hint = span.place_hint and kind == CONCEPT
        changed += 1
    return changed
