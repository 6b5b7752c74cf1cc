"""One parsed piece of a document → compact records: sentences, entity mentions, relations.

Entity mentions are spaCy's named-entity spans of the kept labels, cleaned (see
:func:`~loregraph.text.names.clean_surface`; leading article and possessive removed,
lower-case spans, numbers and single characters dropped) and extended backwards over an
honorific the tagger left out ("Dr." + "Seward" → "Dr. Seward"); an acronym naming the
kind of a common noun takes the noun in ("the API server"). A span that is the object
of a locative preposition ("in Whitby", "at Galatz") carries a place hint (see
:mod:`.assemble`). A capitalised title used
as a noun after "the" ("the Count", "the Professor") is recorded as a *title reference*,
which clustering links to the entity bearing that title.

The parsed ``Doc`` is dropped as soon as these records are made, so memory stays flat on a
long book.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from loregraph.ingest.extract import components, typing_rules
from loregraph.ingest.extract.components import word_of
from loregraph.ingest.extract.dependency import NARRATOR, Lemma, sentence_relations
from loregraph.models import name_key
from loregraph.text import names
from loregraph.text.entity_types import LIBRARY

ENTITY_LABELS = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW"}
    | {"LANGUAGE"}
)
"""spaCy labels kept by default."""
DATE_LABELS = frozenset({"DATE", "TIME"})
NUMBER_LABELS = frozenset({"CARDINAL", "MONEY", "PERCENT", "QUANTITY"})
_NEED_DIGIT = DATE_LABELS | NUMBER_LABELS
_ARTICLES = frozenset({"the", "a", "an"})
_PROPER = frozenset({"NNP", "NNPS"})
TITLE_LABEL = "TITLE"
_FIRST_PERSON = frozenset({"i", "me"})
_OPEN_QUOTES = frozenset({"“", "``", "«", "„"})
_CLOSE_QUOTES = frozenset({"”", "''", "»"})
FIRST_SENTENCES = 3
_PRONOUN_KINDS = {
    **dict.fromkeys(("he", "she", "his", "her", "him", "hers"), "personal"),
    **dict.fromkeys(("it", "its"), "neuter"),
}
_PLACE_PREPS = frozenset({"in", "at", "near", "inside", "outside", "within"})
_WAY_PREPS = frozenset({"to", "from"})
_GOING = frozenset(
    {"move", "relocate", "emigrate", "immigrate", "travel", "fly", "commute", "visit"}
)
"""Verbs of going somewhere (not "go", "come" or "return": one goes to a person too):
"moved to X", "is visiting from X" make X a place."""
_MAYBE_PLACE = frozenset({"PERSON", "ORG", "PRODUCT", "GPE", "LOC", "FAC", "WORK_OF_ART"})


@dataclass(slots=True)
class SpanRecord:
    """An entity mention: document character offsets, cleaned surface, spaCy label.

    ``owner`` is the "X" of an "X's Y" span (with ``owner_end``), which the document-level
    rules may cut the span down to.
    """

    start: int
    end: int
    surface: str
    label: str
    sentence: int
    title_ref: bool = False
    owner: str = ""
    owner_end: int = 0
    place_hint: bool = False
    """The span is the object of a locative preposition ("in Whitby", "at Galatz")."""
    noun_type: str = ""
    """The type a common noun next to it gives it ("the schooner Emma": Product); see
    :mod:`.typing_rules`, as for the two hints below."""
    after_the: bool = False
    """The name has "the" right before it."""
    in_code: bool = False
    """The span is inside backticks or a fenced code block."""


@dataclass(slots=True)
class PieceAnalysis:
    """What one piece yielded; sentence and span indexes are local to the piece."""

    sentences: list[tuple[int, int]] = field(default_factory=list)
    spans: list[SpanRecord] = field(default_factory=list)
    relations: list[tuple[int, str, int, int]] = field(default_factory=list)
    """(source span, type, target span, sentence); endpoints may be pronoun placeholders."""
    subjects: list[int | None] = field(default_factory=list)
    """Per sentence: the span that is the subject of its main verb, if any."""
    lower_words: Counter[str] = field(default_factory=Counter)
    """How often each word occurs in lower case (tells common nouns from names)."""
    pronouns: Counter[str] = field(default_factory=Counter)
    """Personal ("he", "she"…) and neuter ("it"…) pronouns of the first sentences."""


def _in_place_phrase(token: Any, lemma: Lemma) -> bool:
    """Whether the token is the object of a locative preposition ("in Whitby"), or of "to"
    or "from" after a verb of going with nothing moved ("moved to Leeds", "is visiting
    from Porto"; not "moved the API to Hono", not "was moved to GitLab")."""
    if token.dep_ != "pobj":
        return False
    prep = token.head
    if prep.lower_ in _PLACE_PREPS:
        return True
    verb = prep.head
    return (
        prep.lower_ in _WAY_PREPS
        and verb.tag_.startswith("VB")
        and word_of(verb, lemma) in _GOING
        and not any(c.dep_ in ("dobj", "nsubjpass", "auxpass") for c in verb.children)
    )


def _with_kind_noun(doc: Any, start: int, end: int) -> int:
    """The end of an entity span, taking in the common noun an acronym names the kind of:
    "the API server", "an AWS account", "the SQL database" are one thing each, named by the
    acronym and the noun together."""
    if end >= len(doc) or end - start != 1:
        return end
    word, noun = doc[start], doc[end]
    acronym = len(word.text) >= 2 and word.text.isupper() and word.text.isalpha()
    if acronym and word.dep_ == "compound" and word.head.i == end and noun.tag_ in ("NN", "NNS"):
        return end + 1 if noun.text.islower() else end
    return end


def _is_title_token(token: Any) -> bool:
    text = token.text
    return text[:1].isupper() and name_key(text) in names.TITLES


def analyse_piece(
    doc: Any, offset: int, labels: frozenset[str], lemma: Lemma, title: str = ""
) -> PieceAnalysis:
    """Records for one parsed piece that starts at character ``offset`` of the document.

    ``title`` (the document title less its qualifier) is also recorded, with label
    ``TITLE``, wherever it occurs outside an entity span: a title entity can then take part
    in relations even where the tagger missed it.
    """
    piece = _Piece(doc, offset)
    piece.entity_spans(labels, lemma)
    piece.software_spans(lemma)
    piece.title_references()
    if title:
        piece.title_spans(title)
    piece.sentence_relations(lemma)
    piece.count_words()
    return piece.out


class _Piece:
    """One parsed piece while its records are made: each step adds to :attr:`out`.

    ``owner`` maps a token to the span (index into ``out.spans``) that covers it; each step
    leaves alone the tokens an earlier step gave a span.
    """

    def __init__(self, doc: Any, offset: int) -> None:
        self.doc, self.offset = doc, offset
        self.out = PieceAnalysis()
        self.sents = list(doc.sents)
        self.sentence_of: dict[int, int] = {}
        for k, sent in enumerate(self.sents):
            self.out.sentences.append((offset + sent.start_char, offset + sent.end_char))
            for i in range(sent.start, sent.end):
                self.sentence_of[i] = k
        self.owner: dict[int, int] = {}

    def _add(self, record: SpanRecord, tokens: range) -> None:
        index = len(self.out.spans)
        self.out.spans.append(record)
        for i in tokens:
            self.owner[i] = index

    def entity_spans(self, labels: frozenset[str], lemma: Lemma) -> None:
        """The tagger's entities of the kept ``labels``, cleaned (module docstring)."""
        doc, offset, text = self.doc, self.offset, self.doc.text
        technical = [components.technical(sent, lemma) for sent in self.sents]
        for ent in doc.ents:
            if ent.label_ not in labels:
                continue
            if ent.label_ in _NEED_DIGIT and not any(c.isdigit() for c in ent.text):
                continue
            start, end = ent.start, ent.end
            while start < end and doc[start].lower_ in _ARTICLES:
                start += 1
            first_of_sentence = self.sents[self.sentence_of[ent.start]].start
            while start > first_of_sentence and start - 1 not in self.owner:
                if not _is_title_token(doc[start - 1]):
                    break
                start -= 1
            if start >= end:
                continue
            end = _with_kind_noun(doc, start, end)
            begin, stop = doc[start].idx, doc[end - 1].idx + len(doc[end - 1])
            begin, stop = typing_rules.one_side_of_backticks(text, begin, stop)
            surface = names.clean_surface(text[begin:stop])
            if not names.is_valid_name(surface):
                continue
            if ent.label_ == "PERSON" and not names.looks_like_person_name(surface):
                continue
            record = SpanRecord(
                offset + begin, offset + stop, surface, ent.label_, self.sentence_of[start]
            )
            record.place_hint = (
                ent.label_ in _MAYBE_PLACE
                and _in_place_phrase(ent.root, lemma)
                and not technical[self.sentence_of[start]]
            )
            record.noun_type = typing_rules.noun_hint(doc, start, ent.root)
            record.after_the = typing_rules.follows_the(doc, start) and doc[end - 1].tag_ != "NNPS"
            record.in_code = typing_rules.in_code(text, begin, stop)
            for k in range(start + 1, end - 1):
                if doc[k].tag_ == "POS":
                    record.owner = names.clean_surface(text[begin : doc[k].idx])
                    record.owner_end = offset + doc[k].idx
                    break
            self._add(record, range(start, end))

    def software_spans(self, lemma: Lemma) -> None:
        """Names of software (:mod:`.components`). In a sentence about software, tagger
        names the sentence shows to be software become ``Library`` (a version after one is
        cut off; names joined to one by "and" or "or" follow it); code-shaped words,
        lower-case software names and named components ("the billing service") become
        entities of their kind."""
        doc = self.doc
        about_software = [components.technical(sent, lemma) for sent in self.sents]
        for ent in doc.ents:
            if not about_software[self.sentence_of[ent.start]]:
                continue
            index = next(
                (self.owner[i] for i in range(ent.start, ent.end) if i in self.owner), None
            )
            record = self.out.spans[index] if index is not None else None
            if record is None or not components.library_label(record.label):
                continue
            last = doc[max(i for i, k in self.owner.items() if k == index)]
            kind = components.component_kind(record.surface, word_of(last, lemma))
            if kind:
                record.label = kind
            elif components.versioned(doc, ent.start, ent.end):
                record.label = LIBRARY
                record.end = self.offset + doc[ent.end - 2].idx + len(doc[ent.end - 2])
                record.surface = names.clean_surface(doc[ent.start : ent.end - 1].text)
            elif components.software_evidence(doc, ent.start, ent.end, lemma):
                record.label = LIBRARY
        self._software_conjuncts()
        for start, end, kind in components.code_words(doc.text):
            self._new_span(doc.char_span(start, end, alignment_mode="expand"), kind, (start, end))
        bare = any(about_software)
        for token in doc:
            found = components.component_name(token, lemma, bare=bare)
            if found is not None:
                self._new_span(doc[found[0] : found[1]], found[2])
            elif about_software[self.sentence_of[token.i]] and components.unknown_software(
                token, lemma
            ):
                self._new_span(doc[token.i : token.i + 1], LIBRARY)

    def _software_conjuncts(self) -> None:
        """A one-word tagger name joined by a conjunction to software is software."""
        spans, owner = self.out.spans, self.owner
        for token in self.doc:
            index = owner.get(token.i)
            if index is None or spans[index].label != LIBRARY:
                continue
            for other in components.conjuncts(token):
                k = owner.get(other.i)
                record = spans[k] if k is not None else None
                if record and components.library_label(record.label) and " " not in record.surface:
                    record.label = LIBRARY

    def _new_span(self, span: Any, kind: str, chars: tuple[int, int] | None = None) -> None:
        if span is None or any(i in self.owner for i in range(span.start, span.end)):
            return
        begin, stop = chars or (span.start_char, span.end_char)
        record = SpanRecord(
            self.offset + begin,
            self.offset + stop,
            self.doc.text[begin:stop],
            kind,
            self.sentence_of[span.start],
        )
        self._add(record, range(span.start, span.end))

    def title_references(self) -> None:
        """A capitalised title used as a noun after "the" ("the Count", "the Professor")."""
        doc = self.doc
        for token in doc:
            if token.i in self.owner or token.i == 0 or not token.text[:1].isupper():
                continue
            if name_key(token.text) not in names.TITLE_NOUNS or doc[token.i - 1].lower_ != "the":
                continue
            if token.i + 1 < len(doc) and doc[token.i + 1].tag_ in _PROPER:
                continue
            the = doc[token.i - 1]
            record = SpanRecord(
                self.offset + the.idx,
                self.offset + token.idx + len(token),
                f"the {names.clean_surface(token.text)}",
                "PERSON",
                self.sentence_of[token.i],
                title_ref=True,
            )
            self._add(record, range(token.i - 1, token.i + 1))

    def title_spans(self, title: str) -> None:
        """The document title wherever it occurs outside an entity span (label ``TITLE``).

        A lower-case title (a file name) matches in any case, but only where the text
        writes it as a name: the title "public" is not named by "the public API"."""
        flags = re.IGNORECASE if title == title.lower() else 0
        pattern = re.compile(r"(?<!\w)" + re.escape(title) + r"(?!\w)", flags)
        for match in pattern.finditer(self.doc.text):
            if not names.is_valid_name(match.group(0)):
                continue
            span = self.doc.char_span(match.start(), match.end(), alignment_mode="expand")
            if span is None or any(i in self.owner for i in range(span.start, span.end)):
                continue
            record = SpanRecord(
                self.offset + match.start(),
                self.offset + match.end(),
                match.group(0),
                TITLE_LABEL,
                self.sentence_of[span.start],
            )
            self._add(record, range(span.start, span.end))

    def sentence_relations(self, lemma: Lemma) -> None:
        """Each sentence's typed relations and the span that is its main verb's subject."""
        owner, quoted = self.owner, _quoted_tokens(self.doc)

        def owner_of(token: Any) -> int | None:
            found = owner.get(token.i)
            if found is None and token.lower_ in _FIRST_PERSON and token.i not in quoted:
                return NARRATOR
            return found

        for k, sent in enumerate(self.sents):
            for src, kind, dst in sentence_relations(sent, owner_of, lemma):
                self.out.relations.append((src, kind, dst, k))
            root = sent.root
            subject = next(
                (owner[c.i] for c in root.children if c.dep_.startswith("nsubj") and c.i in owner),
                None,
            )
            self.out.subjects.append(subject)

    def count_words(self) -> None:
        """Lower-case words, and the pronouns of the first sentences."""
        self.out.lower_words.update(t.text for t in self.doc if t.is_lower and t.is_alpha)
        for sent in self.sents[:FIRST_SENTENCES]:
            for token in sent:
                if token.lower_ in _PRONOUN_KINDS:
                    self.out.pronouns[_PRONOUN_KINDS[token.lower_]] += 1


def _quoted_tokens(doc: Any) -> set[int]:
    """Tokens inside double quotation marks (the state resets at each paragraph)."""
    inside, quoted = False, set()
    for token in doc:
        text = token.text
        if token.is_space and "\n" in text:
            inside = False
        elif text in _OPEN_QUOTES:
            inside = True
        elif text in _CLOSE_QUOTES:
            inside = False
        elif text == '"':
            inside = not inside
        elif inside:
            quoted.add(token.i)
    return quoted
