"""The offline invalidation rules: functional relation types and negation cues."""

from __future__ import annotations

from datetime import UTC, datetime

from loregraph.ingest.facts.supersede import earlier, named_in, negated_names, retired, timeline
from loregraph.models import Relation

JAN = datetime(2026, 1, 15, tzinfo=UTC)
FEB = datetime(2026, 2, 10, tzinfo=UTC)
MAR = datetime(2026, 3, 1, tzinfo=UTC)


def rel(rid: str, target: str, kind: str = "DEPENDS_ON", **times: datetime) -> Relation:
    return Relation(id=rid, source_id="api", target_id=target, type=kind, **times)


def test_negation_cues_name_what_they_negate() -> None:
    assert negated_names("The API server now depends on Hono instead of Express.") == ["express"]
    assert negated_names("The API server no longer depends on Express.") == ["depends on express"]
    assert negated_names("Bob moved from Paris to Berlin in March.") == ["paris"]
    assert negated_names("Alice stopped working for Acme; she is happy.") == ["working for acme"]
    assert negated_names("The API server depends on Hono.") == []


def test_a_name_is_found_as_whole_words() -> None:
    segments = negated_names("It now uses Hono instead of Express Gateway.")
    assert named_in("Express Gateway", segments)
    assert named_in("Express", segments)
    assert not named_in("Express Gate", segments)
    assert not named_in("Hono", segments)
    assert not named_in("", segments)


def test_each_fact_of_a_functional_group_holds_until_the_next_later_one() -> None:
    group = [rel("b", "bun", valid_at=MAR), rel("e", "express", valid_at=JAN)]
    group.append(rel("h", "hono", valid_at=FEB))
    assert timeline(group) == {"e": (FEB, "h"), "h": (MAR, "b"), "b": None}
    assert timeline(group[:2]) == {"e": (MAR, "b"), "b": None}


def test_facts_of_one_time_hold_together() -> None:
    group = [rel("e", "express", valid_at=JAN), rel("z", "zod", valid_at=JAN)]
    assert timeline(group) == {"e": None, "z": None}
    group.append(rel("h", "hono", valid_at=FEB))
    assert timeline(group) == {"e": (FEB, "h"), "z": (FEB, "h"), "h": None}


def test_a_retired_relation_never_held_and_ends_nothing() -> None:
    gone = rel("h", "hono", valid_at=FEB, expired_at=MAR)
    assert retired(gone)
    assert not retired(rel("x", "express", valid_at=JAN, invalid_at=FEB, expired_at=MAR))
    assert timeline([rel("e", "express", valid_at=JAN), gone]) == {"e": None}


def test_an_end_only_moves_earlier() -> None:
    assert earlier(None, FEB)
    assert earlier(MAR, FEB)
    assert not earlier(FEB, FEB)
    assert not earlier(JAN, FEB)


def test_facts_without_a_time_take_no_part() -> None:
    undated = rel("u", "bun")
    assert timeline([rel("e", "express", valid_at=JAN), undated]) == {"e": None}


def test_stopping_somewhere_negates_nothing() -> None:
    assert negated_names("Harker stopped at the Golden Krone Hotel.") == []
    assert negated_names("The driver stopped the carriage.") == []
    assert negated_names("Bob ceased to work for Acme.") == ["to work for acme"]
