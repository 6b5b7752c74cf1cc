"""Core-entity selection (the most mentioned and most salient, per type) with explicit numbers."""

from __future__ import annotations

import random

from loregraph.ingest.extract.select import entity_score, select_entities
from loregraph.ingest.types import CandidateEntity
from loregraph.settings import ExtractionSettings


def cand(
    name: str, mentions: int, salience: float, kind: str = "Person", *, is_title: bool = False
) -> CandidateEntity:
    return CandidateEntity(
        name=name, type=kind, mentions=mentions, salience=salience, is_title=is_title
    )


def names(items: list[CandidateEntity]) -> list[str]:
    return [c.name for c in items]


def test_score_is_twice_the_mentions_plus_salience() -> None:
    assert entity_score(cand("A", 10, 4.0)) == 24.0


def test_core_needs_both_minimums_and_nodes_need_one() -> None:
    settings = ExtractionSettings(min_entity_mentions=2, min_entity_salience=3.0)
    both = cand("Both", 2, 3.0)
    mentions_only = cand("MentionsOnly", 5, 1.0)
    salience_only = cand("SalienceOnly", 1, 4.0)
    neither = cand("Neither", 1, 2.9)
    selection = select_entities([neither, salience_only, mentions_only, both], settings)
    assert names(selection.core) == ["Both"]
    # scores: MentionsOnly 11, Both 7, SalienceOnly 6; Neither is dropped
    assert names(selection.nodes) == ["MentionsOnly", "Both", "SalienceOnly"]


def test_core_is_capped_per_type_and_overall() -> None:
    settings = ExtractionSettings(core_entity_limit=5, core_entity_per_type=2)
    people = [cand(f"P{i}", 10 - i, 4.0, "Person") for i in range(4)]
    places = [cand(f"L{i}", 10 - i, 4.0, "Location") for i in range(4)]
    events = [cand(f"E{i}", 3, 4.0, "Event") for i in range(4)]
    selection = select_entities(people + places + events, settings)
    assert names(selection.core) == ["L0", "P0", "L1", "P1", "E0"]
    assert len(selection.nodes) == 12  # every candidate passes a minimum


def test_per_type_counts_use_normalised_types() -> None:
    settings = ExtractionSettings(core_entity_per_type=1)
    selection = select_entities([cand("A", 9, 4, "PERSON"), cand("B", 8, 4, "character")], settings)
    assert names(selection.core) == ["A"]


def test_title_entity_is_always_kept_and_in_the_core() -> None:
    settings = ExtractionSettings(core_entity_limit=2, max_document_nodes=2)
    title = cand("Lothair II", 1, 1.0, is_title=True)  # passes no minimum
    others = [cand(f"X{i}", 9, 5.0) for i in range(5)]
    selection = select_entities([*others, title], settings)
    assert names(selection.core) == ["Lothair II", "X0"]
    assert names(selection.nodes) == ["X0", "Lothair II"]


def test_node_cap_drops_the_lowest_scores_but_keeps_the_core() -> None:
    settings = ExtractionSettings(max_document_nodes=3, core_entity_limit=2)
    items = [cand(f"E{i}", 10 - i, 3.0) for i in range(6)]
    selection = select_entities(items, settings)
    assert names(selection.core) == ["E0", "E1"]
    assert names(selection.nodes) == ["E0", "E1", "E2"]


def test_ties_are_broken_by_name_whatever_the_input_order() -> None:
    settings = ExtractionSettings()
    items = [cand(n, 3, 3.0) for n in ["Delta", "alpha", "Charlie", "Bravo"]]
    expected = sorted(n.name for n in items)
    for seed in range(5):
        random.Random(seed).shuffle(items)
        selection = select_entities(items, settings)
        assert names(selection.nodes) == expected
        assert names(selection.core) == expected


def test_empty_input_gives_empty_selection() -> None:
    selection = select_entities([], ExtractionSettings())
    assert selection.nodes == [] and selection.core == []
