"""Persona intents from rules, periods, and references resolved from conversation turns."""

from __future__ import annotations

import pytest

from loregraph import AsyncGraph
from loregraph.models import Entity
from loregraph.retrieve.question.routing import Routing
from loregraph.retrieve.results.intents import (
    categorise,
    question_period,
    resolve_references,
    rule_intent,
    rule_route,
)

from .family_corpus import ROSE


def _entity(name: str, kind: str) -> Entity:
    return Entity(id=f"id-{name}", name=name, type=kind)


JIM = _entity("Uncle Jim", "Person")
ROSE_E = _entity("Rose Albright", "Person")
LAKE = _entity("Lake Winnecook", "Location")
REUNION = _entity("Summer reunion", "Event")
WATCH = _entity("pocket watch", "Product")


@pytest.mark.parametrize(
    ("question", "entities", "intent"),
    [
        ("Tell me about her relationship with Uncle Jim", [JIM], "relational"),
        ("How did Rose Albright and Uncle Jim get along?", [ROSE_E, JIM], "relational"),
        ("Who were Rose Albright's friends?", [ROSE_E], "relational"),
        ("What was Dad's life like in the 1970s?", [], "temporal"),
        ("What happened in 1985?", [], "temporal"),
        ("What did Rose Albright do between 1968 and 1970?", [ROSE_E], "temporal"),
        ("What did she do during the war years?", [], "temporal"),
        ("What are some stories about the lake house?", [], "spatial"),
        ("What happened at Lake Winnecook?", [LAKE], "spatial"),
        ("Tell me about the family reunion", [], "entity_focused"),
        ("What became of the pocket watch?", [WATCH], "entity_focused"),
        ("Tell me about the Summer reunion", [REUNION], "entity_focused"),
        ("Tell me more about her", [], "general"),
        ("What was Rose Albright like?", [ROSE_E], "general"),
        ("What do others remember about this?", [], "cross_legacy"),
        ("How do other families remember Rose Albright?", [ROSE_E], "cross_legacy"),
    ],
)
def test_each_intent_from_rules(question: str, entities: list[Entity], intent: str) -> None:
    assert rule_intent(question, categorise(entities)) == intent
    route = rule_route(question, entities)
    assert route.intent == intent and route.source == "rules"
    assert route.ids() == [e.id for e in entities]


def test_entities_by_category() -> None:
    time = _entity("1985", "Time")
    mill = _entity("Bellweather Mills", "Organization")
    idea = _entity("Catholicism", "Concept")
    found = categorise([JIM, LAKE, time, REUNION, WATCH, mill, idea])
    assert found == {
        "people": ["Uncle Jim"],
        "places": ["Lake Winnecook", "Bellweather Mills"],
        "time_periods": ["1985"],
        "events": ["Summer reunion"],
        "objects": ["pocket watch"],
        "other": ["Catholicism"],
    }


@pytest.mark.parametrize(
    ("text", "period"),
    [
        ("life in the 1970s", (1970, 1979)),
        ("back in the '80s", (1980, 1989)),
        ("the fifties and sixties", (1950, 1969)),
        ("between 1962 and 1975", (1962, 1975)),
        ("in 1985", (1985, 1985)),
        ("no dates here", None),
        ("when she was in her twenties", None),
        ("room 2500 and 42 chairs", None),
    ],
)
def test_the_period_a_question_names(text: str, period: tuple[int, int] | None) -> None:
    assert question_period(text) == period


def test_references_stand_for_the_last_entity_of_their_kind() -> None:
    walter = _entity("Walter Albright", "Person")
    turns = [[ROSE_E, LAKE], [walter, REUNION]]
    found = resolve_references("Was she happy there?", turns)
    assert found == {"she": walter, "there": LAKE}
    assert resolve_references("What did he bring to that party?", turns)["that party"] == REUNION
    # an entity the question names itself is never the reference
    assert resolve_references("Did he meet Walter?", turns, named=[walter]) == {"he": ROSE_E}
    assert resolve_references("Tell me more about her", []) == {}
    # only the last three turns are read
    old = [[JIM], [], [], []]
    assert resolve_references("And him?", old) == {}


async def test_turns_resolve_her_and_that_place_in_the_store(family: AsyncGraph) -> None:
    routing = Routing(None, history=["Who was Rose Albright?", "Tell me about Lake Winnecook"])
    analysis = await routing("Was she happy at that place?", family.store, ROSE)
    assert routing.route is not None
    assert routing.route.references == {"she": "Rose Albright", "that place": "Lake Winnecook"}
    assert {"Rose Albright", "Lake Winnecook"} <= set(analysis.matched)
    assert routing.route.entities["people"] == ["Rose Albright"]
    assert routing.route.intent == "spatial"


async def test_turns_change_what_is_retrieved(family: AsyncGraph) -> None:
    without = await family.retrieve("What did he like to cook?")
    with_turns = await family.retrieve(
        "What did he like to cook?", history=["Tell me about Jim Kowalski"]
    )
    assert "Jim Kowalski" not in {s.entity.name for s in without.start_entities}
    assert "Jim Kowalski" in {s.entity.name for s in with_turns.start_entities}
    assert with_turns.persona is None  # turns alone do not ask through a persona
