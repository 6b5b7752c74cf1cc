"""Offline query analysis: entity mentions, exact matches against the store, intent, keywords.

No model is needed. Mentions come from capitalised phrases, quoted strings and the word
n-grams of the question that name a stored entity (one batched store lookup); a spaCy
pipeline adds its named entities only when the caller passes one (``nlp=``): nothing is
looked up or loaded here, so the same question gets the same analysis in every process.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from loregraph.errors import InputError
from loregraph.models import Entity, name_key
from loregraph.retrieve.results.result import Intent, QueryAnalysis
from loregraph.store.base import Store
from loregraph.text.entity_types import CODE
from loregraph.text.words import QUESTION_WORDS, content_words, strip_possessive

MAX_NGRAM = 6

# Lower-case words allowed inside a name: "Isle of Man", "Ludwig van Beethoven".
_CONNECTORS = "of de del della der den van von the and la le du da di y bin ibn al el zu & on upon"
CONNECTORS = frozenset(_CONNECTORS.split())

_TOKEN = re.compile(r"[^\W_](?:[\w&'’.\-]*\w)?", re.UNICODE)
_SPACE_TOKEN = re.compile(r"\S+")
_EDGE_PUNCT = "\"'“”‘’()[]{}<>.,;:!?*"
_QUOTED = re.compile(r"\"([^\"]{2,})\"|“([^”]{2,})”|(?:^|(?<=\s))'([^']{2,})'(?=[\s?.!,;:]|$)")
_SPACY_SKIP = frozenset(("DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY"))

_EXPLORATION = re.compile(
    r"\b(what else|anything else|who else|where else|explore|exploring|similar to|"
    r"related (?:topics|things|entities|to this)|more like|tell me more)\b",
    re.IGNORECASE,
)
_RELATIONSHIP = re.compile(
    r"\b(relat(?:ed|ion|ions|ionship|ionships)|connect(?:ed|ion|ions)?|between|link(?:ed)?|"
    r"associated|know each other|knew each other|in common)\b",
    re.IGNORECASE,
)
_SUMMARY = re.compile(
    r"^\s*(tell me (?:all )?about|describe|summari[sz]e|give (?:me )?(?:an? )?(?:overview|"
    r"summary)|(?:an? )?overview of|what do (?:you|we) know about|who (?:is|was|are|were)"
    r"|what (?:is|was|are|were))\b",
    re.IGNORECASE,
)
SpacyPipeline = Callable[[str], Any]
"""A loaded spaCy pipeline (``spacy.load(...)``): called on a text, returns a ``Doc``."""

_WHO_IS = re.compile(r"^\s*(who|what) (is|was|are|were)\s+(.*?)[\s?.!]*$", re.IGNORECASE)


@dataclass(slots=True)
class _Span:
    """A mention in the question: token range [first, last] and its text."""

    first: int
    last: int
    text: str


def check_question(question: str) -> None:
    """Raise :class:`InputError` for a question that is not valid Unicode text.

    A command-line argument holds a lone surrogate for each byte that is not UTF-8; no
    embedder, tokenizer or store can take one.
    """
    try:
        question.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"the question is not valid UTF-8 text (a bad byte at character {exc.start}); "
            "retype it or fix the terminal's encoding."
        ) from None


def _is_capitalised(token: str) -> bool:
    return token[:1].isupper()


_LEADING = (
    "the a an in on at of for from to by with and or but if i he she it they we you his her "
    "their its my our your this that these those there here also then so"
)
LEADING_TRIM = frozenset(_LEADING.split())
"""Capitalised words that start a phrase without belonging to the name ("The", "His")."""


def _trim_bounds(tokens: list[str], at_start: bool = False) -> tuple[int, int]:
    """The slice of a phrase without leading articles (and question words when the phrase
    opens the question: "Did", "Who Is") and without trailing connectors."""
    start, end = 0, len(tokens)
    while start < end:
        word = tokens[start].casefold()
        if word in LEADING_TRIM or word in CONNECTORS or (at_start and word in QUESTION_WORDS):
            start += 1
        else:
            break
    while end > start and tokens[end - 1].casefold() in CONNECTORS:
        end -= 1
    return start, end


def _has_possessive(token: str) -> bool:
    return strip_possessive(token) != token


def _joins(question: str, previous: re.Match[str], gap: str) -> bool:
    """Whether two tokens separated by ``gap`` can belong to one name."""
    if not gap.strip():
        return True
    # "Dr. Van Helsing", "J. R. R. Tolkien": a period after a short capitalised token.
    token = previous.group(0)
    return gap.strip() == "." and len(token) <= 3 and _is_capitalised(token)


def _phrase_text(question: str, tokens: list[re.Match[str]], possessive_last: bool) -> str:
    text = question[tokens[0].start() : tokens[-1].end()]
    return strip_possessive(text) if possessive_last else text


def capitalised_phrases(question: str) -> list[str]:
    """Sequences of capitalised words (with inner lower-case connectors) in a question.

    Possessives end a phrase and are stripped (``"Lothair Ii's mother"`` → ``"Lothair Ii"``);
    an upper-case ``'S`` followed by more capitalised words (odd title casing such as
    ``"God'S Gift To Women"``) also yields the whole phrase. A phrase joined by ``and``
    also yields its parts. Leading question words are dropped.
    """
    raw: list[list[re.Match[str]]] = []
    current: list[re.Match[str]] = []
    pending: list[re.Match[str]] = []  # connectors waiting for a capitalised word
    for match in _TOKEN.finditer(question):
        token = match.group(0)
        if current:
            last = (pending or current)[-1]
            if not _joins(question, last, question[last.end() : match.start()]):
                raw.append(current)
                current, pending = [], []
        if _is_capitalised(token) or (current and token[:1].isdigit() and not pending):
            current.extend(pending)
            pending = []
            current.append(match)
        elif current and token.casefold() in CONNECTORS:
            pending.append(match)
        else:
            if current:
                raw.append(current)
            current, pending = [], []
    if current:
        raw.append(current)

    phrases: list[str] = []
    for tokens in raw:
        pieces: list[list[re.Match[str]]] = [[]]
        odd_casing = False
        for i, match in enumerate(tokens):
            pieces[-1].append(match)
            if _has_possessive(match.group(0)):
                nxt = tokens[i + 1].group(0) if i + 1 < len(tokens) else ""
                if match.group(0).endswith("S") and _is_capitalised(nxt):
                    odd_casing = True
                pieces.append([])
        if odd_casing:
            pieces.insert(0, list(tokens))
        for piece in pieces:
            trimmed = _trim_matches(piece, question)
            if not trimmed:
                continue
            possessive = _has_possessive(trimmed[-1].group(0))
            phrases.append(_phrase_text(question, trimmed, possessive))
            parts: list[list[re.Match[str]]] = [[]]
            for match in trimmed:
                if match.group(0).casefold() in ("and", "&"):
                    parts.append([])
                else:
                    parts[-1].append(match)
            if len(parts) > 1:
                for part in parts:
                    part = _trim_matches(part, question)
                    if part:
                        last_possessive = _has_possessive(part[-1].group(0))
                        phrases.append(_phrase_text(question, part, last_possessive))
    return _dedupe(phrases)


def _trim_matches(tokens: list[re.Match[str]], question: str) -> list[re.Match[str]]:
    if not tokens:
        return []
    at_start = not question[: tokens[0].start()].strip(" \t\n\"'“‘(")
    start, end = _trim_bounds([t.group(0) for t in tokens], at_start)
    return tokens[start:end]


def quoted_strings(question: str) -> list[str]:
    """Strings in double or single quotes (``"The Demeter"``)."""
    found: list[str] = []
    for match in _QUOTED.finditer(question):
        text = next(g for g in match.groups() if g is not None).strip()
        if text:
            found.append(text)
    return found


def _dedupe(items: list[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        key = name_key(item)
        if key and key not in seen:
            seen.add(key)
            out.append(item)
    return out


_LOWER_ARTICLE = re.compile(r"^(?:the|a|an)\s+(?=\S)")


def _clean_span(text: str) -> str:
    """A mention as shown: edge punctuation, a final possessive and a lower-case article
    removed ("the Meridian's" → "Meridian"; "The Hague" keeps its article)."""
    text = text.strip(_EDGE_PUNCT + " ")
    text = strip_possessive(text).strip(_EDGE_PUNCT + " ")
    return _LOWER_ARTICLE.sub("", text)


def question_ngrams(question: str, max_n: int = MAX_NGRAM) -> list[tuple[str, _Span]]:
    """(key, span) for every word n-gram (n <= ``max_n``) that could name an entity.

    Keys are :func:`name_key` of the n-gram as written and with a final possessive removed.
    N-grams made only of stopwords are skipped.
    """
    tokens = list(_SPACE_TOKEN.finditer(question))
    out: list[tuple[str, _Span]] = []
    for first in range(len(tokens)):
        for last in range(first, min(first + max_n, len(tokens))):
            text = question[tokens[first].start() : tokens[last].end()]
            words = content_words(text)
            if not words:
                continue
            cleaned = _clean_span(text)
            span = _Span(first, last, cleaned)
            keys = {name_key(text), name_key(cleaned)}
            for key in keys:
                if key:
                    out.append((key, span))
    return out


def _is_proper(entity: Entity) -> bool:
    return any(ch.isupper() for ch in entity.name[:1])


def _span_is_lowercase(question: str, span: _Span) -> bool:
    return not any(ch.isupper() for ch in span.text)


def _names_code_as_written(text: str, entity: Entity) -> bool:
    """Whether ``text`` can name ``entity``: any text names an entity that is no code, but
    code is named only as it is written (its name or an alias, case and all): "plain" or
    "default" in a question's prose is the word, not the keyword `PLAIN` or `DEFAULT`."""
    if entity.type != CODE:
        return True
    return _clean_span(text) in {_clean_span(name) for name in (entity.name, *entity.aliases)}


def _too_vague(question: str, span: _Span, entity: Entity) -> bool:
    """Whether a question's span is too vague to name ``entity``: code not written as it is
    (code written as it is, "pg_dump", is never vague), or a lower-case common word naming a
    common-noun entity."""
    if entity.type == CODE:
        return not _names_code_as_written(span.text, entity)
    return span.first == span.last and _span_is_lowercase(question, span) and not _is_proper(entity)


def classify_intent(question: str, entity_mentions: list[str]) -> Intent:
    """Rule-based intent (one of four): exploration, relationship, summary, else factual."""
    if _EXPLORATION.search(question):
        return "exploration"
    if _RELATIONSHIP.search(question):
        return "relationship"
    lowered = question.casefold()
    if len(entity_mentions) >= 2 and re.match(r"^\s*how\b", lowered) and " and " in lowered:
        return "relationship"
    if _SUMMARY.match(question):
        who = _WHO_IS.match(question)
        if who is None:
            return "summary"
        rest = name_key(who.group(3))
        if not rest or any(name_key(m) == rest for m in entity_mentions):
            return "summary"
        if len(content_words(who.group(3))) <= 1:
            return "summary"
        return "factual"
    return "factual"


def spacy_mentions(question: str, nlp: SpacyPipeline) -> list[str]:
    """Named-entity mentions found by a loaded spaCy pipeline."""
    doc = nlp(question)
    return [
        _clean_span(ent.text)
        for ent in doc.ents
        if ent.label_ not in _SPACY_SKIP and _clean_span(ent.text)
    ]


async def analyze_query(
    question: str, store: Store, scope: str, *, nlp: SpacyPipeline | None = None
) -> QueryAnalysis:
    """Analyse a question offline: mentions, exact entity matches, intent and keywords.

    Makes one store call (:meth:`Store.find_entities_by_key` with every candidate key).
    Pass ``nlp`` (a loaded spaCy pipeline) to add its named entities as candidates; without
    it no spaCy is used.
    """
    phrases = capitalised_phrases(question)
    quoted = quoted_strings(question)
    extra = spacy_mentions(question, nlp) if nlp is not None else []
    free = _dedupe([*quoted, *phrases, *extra])

    ngrams = question_ngrams(question)
    keys = {key for key, _ in ngrams}
    keys.update(name_key(c) for c in free)
    keys.discard("")
    found = await store.find_entities_by_key(scope, sorted(keys)) if keys else {}

    # Longest non-overlapping n-gram matches, leftmost first among equals.
    hits = [(key, span) for key, span in ngrams if key in found]
    hits.sort(key=lambda h: (-(h[1].last - h[1].first), h[1].first))
    taken: set[int] = set()
    chosen: list[tuple[_Span, Entity]] = []
    for key, span in hits:
        positions = set(range(span.first, span.last + 1))
        if positions & taken:
            continue
        entity = found[key]
        if _too_vague(question, span, entity):
            continue
        taken |= positions
        chosen.append((span, entity))
    chosen.sort(key=lambda c: c[0].first)

    matched: dict[str, str] = {}
    candidates: list[str] = []
    covered: set[str] = set()
    for span, entity in chosen:
        candidates.append(span.text)
        matched[span.text] = entity.id
        covered.add(name_key(span.text))
        covered.update(content_words(span.text))
    for mention in free:
        key = name_key(mention)
        if key in covered:
            continue
        candidates.append(mention)
        if key in found and _names_code_as_written(mention, found[key]):
            matched[mention] = found[key].id
            covered.add(key)
    candidates = _dedupe(candidates)

    return QueryAnalysis(
        question=question,
        intent=classify_intent(question, candidates),
        candidates=candidates,
        matched=matched,
        keywords=content_words(question),
        used_spacy=nlp is not None,
    )


def unresolved_candidates(analysis: QueryAnalysis) -> list[str]:
    """Candidates with no exact match whose words are not all part of a matched mention."""
    matched_words: set[str] = set()
    for mention in analysis.matched:
        matched_words.update(content_words(mention))
    out: list[str] = []
    for candidate in analysis.candidates:
        if candidate in analysis.matched:
            continue
        words = content_words(candidate)
        if words and all(w in matched_words for w in words):
            continue
        out.append(candidate)
    return out
