"""Persona files: the packaged four, a user directory, and errors naming file and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from loregraph import Settings
from loregraph.errors import ConfigError, InputError
from loregraph.retrieve.personas.library import PersonaLibrary, TemporalRange, read_persona
from loregraph.retrieve.results.categories import category_of

GOOD = """
name: archivist
description: "Dates and documents."
system_prompt: |
  You are an archivist.
traversal:
  max_hops: 2
  relationship_weights: {family: 0.3, colleague: 0.9, other: 0.1}
  max_graph_results: 7
  include_cross_legacy: false
  temporal_range: 1970-1985
"""


def test_the_packaged_personas_are_those_of_the_design() -> None:
    found = PersonaLibrary().all()
    assert set(found) == {"biographer", "friend", "colleague", "family"}
    biographer, friend = found["biographer"], found["friend"]
    colleague, family = found["colleague"], found["family"]
    assert (biographer.max_hops, friend.max_hops, colleague.max_hops, family.max_hops) == (
        2,
        1,
        1,
        2,
    )
    assert dict(friend.relationship_weights) == {
        "family": 0.5,
        "acquaintance": 1.0,
        "colleague": 0.4,
        "friend": 1.0,
        "other": 0.4,
    }
    assert colleague.weight("colleague") == 1.0 and colleague.weight("family") == 0.2
    assert family.weight("family") == 1.0 and family.weight("acquaintance") == 0.3
    assert (biographer.max_graph_results, friend.max_graph_results) == (20, 15)
    assert not colleague.include_cross_legacy and family.include_cross_legacy
    assert str(friend.temporal_range) == "recent" and str(colleague.temporal_range) == "career"
    assert all(p.system_prompt for p in found.values())


def test_a_directory_adds_personas_and_replaces_packaged_ones(tmp_path: Path) -> None:
    (tmp_path / "archivist.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "friend.yml").write_text(
        "system_prompt: A closer friend.\ntraversal: {max_hops: 2}\n", encoding="utf-8"
    )
    library = PersonaLibrary(tmp_path)
    archivist = library.get("archivist")
    assert archivist.max_hops == 2 and archivist.max_graph_results == 7
    assert archivist.temporal_range == TemporalRange("years", 1970, 1985)
    assert archivist.weight("colleague") == 0.9 and archivist.weight("friend") == 0.1  # other
    assert not archivist.include_cross_legacy
    friend = library.get("friend")  # named by its file
    assert friend.system_prompt == "A closer friend." and friend.max_hops == 2
    assert set(library.all()) == {"archivist", "biographer", "colleague", "family", "friend"}


def test_an_unknown_name_lists_the_personas_and_reads_no_file(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(GOOD, encoding="utf-8")
    with pytest.raises(InputError, match="biographer, colleague, family, friend"):
        PersonaLibrary().get(str(path))
    assert read_persona(path).name == "archivist"  # a path is read only when asked


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (GOOD.replace("max_hops: 2", "max_hops: 3"), "traversal.max_hops"),
        (GOOD.replace("max_hops: 2", "max_hops: two"), "traversal.max_hops"),
        (GOOD.replace("family: 0.3", "cousins: 0.3"), "traversal.relationship_weights.cousins"),
        (GOOD.replace("family: 0.3", "family: 1.5"), "traversal.relationship_weights.family"),
        (GOOD.replace("1970-1985", "someday"), "traversal.temporal_range"),
        (GOOD.replace("1970-1985", "1990-1980"), "traversal.temporal_range"),
        (GOOD.replace("results: 7", "results: 0"), "traversal.max_graph_results"),
        (GOOD.replace("legacy: false", "legacy: 2"), "traversal.include_cross_legacy"),
        (GOOD.replace("  max_hops: 2", "  max_hop: 2"), "traversal.max_hop"),
        (GOOD.replace("|\n  You are an archivist.", "''"), "system_prompt"),
        (GOOD.replace("name: archivist", "name: 'two words'"), "name"),
        (GOOD + "colour: blue\n", "colour"),
        (GOOD.split("traversal:")[0] + "traversal: 5\n", "traversal"),
    ],
)  # fmt: skip
def test_a_bad_file_names_itself_and_the_field(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        PersonaLibrary(tmp_path).all()
    assert str(path) in str(caught.value)
    assert f"field {field!r}" in str(caught.value)


def test_broken_yaml_and_a_missing_directory(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("name: [unclosed\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"broken\.yaml: not valid YAML at line"):
        read_persona(path)
    with pytest.raises(ConfigError, match="does not exist"):
        PersonaLibrary(tmp_path / "nowhere")


def test_the_directory_comes_from_the_environment(tmp_path: Path) -> None:
    env = {"LOREGRAPH_PERSONAS_DIR": str(tmp_path)}
    assert Settings.from_env(env).personas_dir == str(tmp_path)
    assert Settings.from_env({}).personas_dir is None


@pytest.mark.parametrize(
    ("relation_type", "category"),
    [
        ("MARRIED_TO", "family"),
        ("IS_BROTHER_OF", "family"),
        ("FRIENDS_WITH", "friend"),
        ("WORKS_WITH", "colleague"),
        ("WORKS_FOR", "colleague"),
        ("KNEW", "acquaintance"),
        ("MET", "acquaintance"),
        ("LIVES_IN", "place"),
        ("ATTENDED", "event"),
        ("CO_OCCURS_WITH", "other"),
        ("DEPENDS_ON", "other"),
        ("worked-with", "colleague"),
    ],
)
def test_relation_types_map_onto_categories(relation_type: str, category: str) -> None:
    assert category_of(relation_type) == category
