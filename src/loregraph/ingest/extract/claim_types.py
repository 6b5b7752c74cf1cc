"""Types for the names a memory's claims bring in, read from the parsed sentence.

A claim's anchor or value that no entity found holds becomes an entity of its own
(:mod:`.claim_relations`); its type comes from the same evidence the name finder's spans
get (:mod:`.components`): a code-shaped name by its shape (``checkout-v2`` is no code, a
``DATABASE_URL`` is ``Config``), a one-word name the sentence treats as software (a
version after it, a verb of using software above it, written in lower case) is a
``Library``, a name and a version ("Valkey 8") too, a date or time the tagger marks as one
a ``Time``. Anything else stays a ``Concept``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from loregraph.ingest.clauses.model import Claim
from loregraph.ingest.extract.components import Lemma, software_evidence, versioned
from loregraph.ingest.extract.spacy_ner import DATE_LABELS
from loregraph.text.code_shapes import code_kind
from loregraph.text.entity_types import LIBRARY, TIME


def type_claims(claims: list[Claim], doc: Any, lemma: Lemma) -> list[Claim]:
    """``claims`` (read from ``doc``) with the types of their anchors and values."""
    out = []
    for claim in claims:
        at = doc.text.find(claim.sentence)
        anchor = _kind(doc, claim.anchor, at, lemma)
        value = _kind(doc, claim.value, at, lemma)
        out.append(replace(claim, anchor_type=anchor, value_type=value))
    return out


def _kind(doc: Any, name: str, sentence_at: int, lemma: Lemma) -> str:
    """The type ``name`` has in the sentence found at ``sentence_at`` ("" when unknown)."""
    if not name or sentence_at < 0:
        return ""
    shaped = code_kind(name)
    if shaped:
        return shaped
    at = doc.text.find(name, sentence_at)
    span = doc.char_span(at, at + len(name), alignment_mode="expand") if at >= 0 else None
    if span is None or len(span) == 0:
        return ""
    if all(t.ent_type_ in DATE_LABELS for t in span):
        return TIME
    if software_evidence(doc, span.start, span.end, lemma) or versioned(doc, span.start, span.end):
        return LIBRARY
    return ""
