"""The rule every backend applies when a memory or document goes: what it gave a relation
(its fact, its start) is derived again from what remains; what others gave stays."""

from __future__ import annotations

from datetime import UTC, datetime

from loregraph.models import Evidence, Relation
from loregraph.store.provenance import RelationSource
from loregraph.store.remaining import remaining_relation

JAN3 = datetime(2026, 1, 3, tzinfo=UTC)
JAN5 = datetime(2026, 1, 5, tzinfo=UTC)
SECRET = "Dana Scully told Fox Mulder the safe code is 8841."
KEPT = "Dana Scully and Fox Mulder met at the Hoover Building."
TIMES = {"m1": JAN3, "m2": JAN5}


def source(document: str, sentence: str) -> RelationSource:
    return RelationSource(document, Evidence(f"{document}#c0", sentence, 0, len(sentence)))


def relation(fact: str, valid_at: datetime | None) -> Relation:
    return Relation("rel", "a", "b", "CO_OCCURS_WITH", fact=fact, valid_at=valid_at)


def test_the_fact_and_start_the_removed_memory_gave_are_derived_from_the_other() -> None:
    sources = [source("m1", SECRET), source("m2", KEPT)]
    again = remaining_relation(relation(SECRET, JAN3), sources, "m1", TIMES)
    assert (again.fact, again.valid_at) == (KEPT, JAN5)


def test_a_fact_the_first_document_wrote_stays_when_a_later_one_goes() -> None:
    sources = [source("m1", KEPT), source("m2", SECRET)]
    written = "Scully and Mulder met."  # an LLM's wording, not a sentence of either
    again = remaining_relation(relation(written, JAN3), sources, "m2", TIMES)
    assert (again.fact, again.valid_at) == (written, JAN3)


def test_a_fact_the_removed_document_states_goes_even_when_it_came_later() -> None:
    sources = [source("m1", KEPT), source("m2", SECRET)]
    again = remaining_relation(relation(SECRET, JAN3), sources, "m2", TIMES)
    assert again.fact == KEPT


def test_an_llm_fact_the_first_supporter_wrote_goes_with_it() -> None:
    sources = [source("m1", SECRET), source("m2", KEPT)]
    again = remaining_relation(relation("The safe code is 8841.", JAN3), sources, "m1", TIMES)
    assert again.fact == KEPT


def test_a_date_the_sentence_states_is_the_start_that_remains() -> None:
    later = "On 2026-02-01 Dana Scully met Fox Mulder again."
    sources = [source("m1", SECRET), source("m2", later)]
    again = remaining_relation(relation(SECRET, JAN3), sources, "m1", TIMES)
    assert again.valid_at == datetime(2026, 2, 1, tzinfo=UTC)


def test_no_time_remains_for_a_book_when_the_dated_memory_goes() -> None:
    sources = [source("m1", SECRET), source("book", KEPT)]
    again = remaining_relation(relation(SECRET, JAN3), sources, "m1", TIMES | {"book": None})
    assert (again.fact, again.valid_at) == (KEPT, None)
