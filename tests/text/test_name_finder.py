"""Known entities' names found in a text: whole words, longest first, any case."""

from __future__ import annotations

from loregraph.models import Entity
from loregraph.text.name_finder import NameFinder


def _person(entity_id: str, name: str, *aliases: str) -> Entity:
    return Entity(id=entity_id, name=name, type="Person", aliases=list(aliases))


def test_the_longest_name_wins_and_a_shared_name_is_the_first_entity_s() -> None:
    quincey = _person("q", "Quincey P. Morris", "Morris")
    other = _person("o", "Tom Morris", "Morris")
    finder = NameFinder([quincey, other])
    text = "Mr. Quincey P. Morris came; later MORRIS left, and Tom Morris stayed."
    found = [(text[a:b], e) for a, b, e in finder.find(text)]
    assert found == [("Quincey P. Morris", "q"), ("MORRIS", "q"), ("Tom Morris", "o")]


def test_names_are_whole_words_and_emphasis_joins_none() -> None:
    ship = Entity(id="d", name="Demeter", type="Product")
    finder = NameFinder([ship])
    assert [e for _, _, e in finder.find("the _Demeter_ arrived")] == ["d"]
    assert finder.find("the Demeterian coast") == []


def test_a_match_whose_case_folding_changes_is_left_out_not_an_error() -> None:
    finder = NameFinder([_person("i", "Ismail")])
    assert finder.find("İsmail came at noon.") == []
    assert finder.find("Ismail came at noon.", 0, 6) == [(0, 6, "i")]
