"""Facts a statement of change ends across relation types, and the cues' reach: positives
(moved, migrated, switched, upgraded, went from, replaced, swapped, left) and negatives
(additions, other subjects, restatements, hypothetical plans without a change relation)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from loregraph.ingest.facts.changes import change_kind, changed_ends, cued_ends, negated_names
from loregraph.models import Entity, Relation

JAN = datetime(2026, 1, 15, tzinfo=UTC)
FEB = datetime(2026, 2, 10, tzinfo=UTC)


def entity(eid: str, name: str, kind: str) -> Entity:
    return Entity(id=eid, name=name, type=kind)


ENTITIES = {
    e.id: e
    for e in (
        entity("amara", "Amara Okafor", "Person"),
        entity("leeds", "Leeds", "Location"),
        entity("bristol", "Bristol", "Location"),
        entity("acme", "Acme", "Organization"),
        entity("api", "API server", "Concept"),
        entity("express", "Express", "Library"),
        entity("hono", "Hono", "Library"),
        entity("redis", "Redis", "Library"),
        entity("valkey", "Valkey", "Library"),
        entity("web", "Web app", "Concept"),
    )
}


def rel(rid: str, src: str, kind: str, dst: str, at: datetime = JAN) -> Relation:
    return Relation(id=rid, source_id=src, target_id=dst, type=kind, valid_at=at)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("MOVES_TO", "to"),
        ("MIGRATES_TO", "to"),
        ("SWITCHES_TO", "to"),
        ("IS_UPGRADED_TO", "to"),
        ("CHANGES_TO", "to"),
        ("MOVES_FROM", "from"),
        ("IS_MIGRATED_FROM", "from"),
        ("GOES_FROM", "from"),
        ("LEAVES", "from"),
        ("LIVES_IN", None),
        ("USES", None),
        ("ADDS", None),
        ("JOINS", None),
    ],
)
def test_the_change_verbs_and_their_direction(kind: str, expected: str | None) -> None:
    assert change_kind(kind) == expected


def test_a_move_to_a_place_ends_where_she_lived_but_not_where_she_works() -> None:
    lives = rel("l", "amara", "LIVES_IN", "leeds")
    works = rel("w", "amara", "WORKS_FOR", "acme")
    moved = rel("m", "amara", "MOVES_TO", "bristol", FEB)
    assert changed_ends(moved, [lives, works], ENTITIES, {"m"}) == [lives]


def test_a_change_from_a_target_ends_the_facts_with_it_only() -> None:
    uses = rel("u", "api", "USES", "express")
    other = rel("o", "api", "USES", "redis")
    migrated = rel("m", "api", "IS_MIGRATED_FROM", "express", FEB)
    assert changed_ends(migrated, [uses, other], ENTITIES, {"m"}) == [uses]


def test_a_change_ends_nothing_of_another_subject_later_or_already_ended() -> None:
    elsewhere = rel("x", "web", "USES", "express")
    later = rel("y", "api", "USES", "express", datetime(2026, 3, 1, tzinfo=UTC))
    ended = rel("z", "api", "USES", "redis")
    ended.invalid_at = JAN
    switched = rel("s", "api", "SWITCHES_TO", "hono", FEB)
    assert changed_ends(switched, [elsewhere, later, ended], ENTITIES, {"s"}) == []
    assert changed_ends(rel("a", "api", "USES", "hono"), [later], ENTITIES, set()) == []


@pytest.mark.parametrize(
    ("sentence", "negated"),
    [
        ("Priya Shah moved from Berlin to Lisbon.", ["berlin"]),
        ("We migrated the API server from Express to Hono.", ["express"]),
        ("The job queue was switched over from RabbitMQ to NATS.", ["rabbitmq"]),
        ("We replaced Redis with Valkey.", ["redis"]),
        ("Ferncastle swapped Flake8 for Ruff.", ["flake8"]),
        ("Greta Novak left Lumora Health for Pallas Bank.", ["lumora health"]),
        ("The API server now depends on Hono instead of Express.", ["express"]),
        ("We added Valkey alongside Redis.", []),
        ("The API server also uses Redis.", []),
        ("Kestrel uses Redis as well.", []),
        ("The left panel uses React.", []),
    ],
)
def test_the_cues_name_what_they_end(sentence: str, negated: list[str]) -> None:
    assert negated_names(sentence) == negated


def _cued(sentence: str, current: list[Relation]) -> list[Relation]:
    named = [e for e in ENTITIES.values() if e.name.casefold() in sentence.casefold()]
    return cued_ends([sentence], named, current)


def test_a_cue_alone_ends_the_fact_it_names_wherever_it_holds_if_no_subject_is_said() -> None:
    uses = rel("u", "api", "USES", "redis")
    assert _cued("We replaced Redis with Valkey.", [uses]) == [uses]
    assert _cued("We added Valkey alongside Redis.", [uses]) == []


def test_a_cue_with_a_subject_ends_only_that_subject_s_fact() -> None:
    api = rel("u", "api", "USES", "express")
    web = rel("w", "web", "USES", "express")
    assert _cued("The API server switched from Express to Hono.", [api, web]) == [api]
    assert _cued("The Web app switched from Express to Hono.", [api]) == []
