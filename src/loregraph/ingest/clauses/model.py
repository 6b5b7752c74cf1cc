"""A claim: what a short statement says about what, read by
:mod:`loregraph.ingest.clauses.claims`."""

from __future__ import annotations

from dataclasses import dataclass


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
    anchor_type: str = ""
    """The anchor's entity type as its sentence shows it ("" unknown; set by the offline
    extractor)."""
    value_type: str = ""
    """The value's entity type likewise (``Time`` for a date)."""
    thing: str = ""
    """The lemma of the verb's object when the value is elsewhere ("log" in "keeps logs
    for 14 days")."""
