"""The offline invalidation rules: functional relation types and negation cues."""

from __future__ import annotations

from datetime import UTC, datetime

from loregraph.ingest.supersede import ends, invalidations, named_in, negated_names
from loregraph.models import CO_OCCURS, Relation

JAN = datetime(2026, 1, 15, tzinfo=UTC)
FEB = datetime(2026, 2, 10, tzinfo=UTC)
FUNCTIONAL = ("DEPENDS_ON", "LIVES_IN")


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


def test_a_functional_type_ends_the_current_other_target() -> None:
    new = rel("r2", "hono", valid_at=FEB)
    assert ends(new, rel("r1", "express", valid_at=JAN), FUNCTIONAL, negated=False)
    assert not ends(new, rel("r1", "express"), (), negated=False)
    assert not ends(new, rel("r1", "hono"), FUNCTIONAL, negated=False)
    assert not ends(new, rel("r1", "express", "USES"), FUNCTIONAL, negated=False)
    ended = rel("r1", "express", valid_at=JAN, invalid_at=FEB)
    assert not ends(new, ended, FUNCTIONAL, negated=False)
    co = rel("r3", "hono", CO_OCCURS)
    assert not ends(co, rel("r4", "express", CO_OCCURS), (CO_OCCURS,), negated=True)


def test_a_negated_target_ends_whatever_the_type() -> None:
    new = rel("r2", "hono", "USES", valid_at=FEB)
    assert ends(new, rel("r1", "express", "USES"), FUNCTIONAL, negated=True)
    assert not ends(new, rel("r1", "express", "USES"), FUNCTIONAL, negated=False)


def test_the_invalidating_relation_is_found_by_its_time() -> None:
    old = rel("r1", "express", valid_at=JAN, invalid_at=FEB)
    new = rel("r2", "hono", valid_at=FEB)
    other = rel("r3", "paris", "LIVES_IN", valid_at=FEB)
    assert invalidations([old, new, other]) == {"r1": "r2"}
    assert invalidations([new, other]) == {}
