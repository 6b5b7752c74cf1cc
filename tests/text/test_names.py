"""Name rules: cleaning surfaces, honorifics, name parts, compatibility guards."""

from __future__ import annotations

import pytest

from loregraph.text import names


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("the Count’s", "Count"),
        ("Harker's", "Harker"),
        ("“Bistritz,”", "Bistritz"),
        ("Van\nHelsing", "Van Helsing"),
        ("The Golden Krone Hotel", "Golden Krone Hotel"),
        ("Dr.", "Dr."),
        ("Jones’", "Jones"),
        ("Seward:--", "Seward"),
        ("Washington, D.C.", "Washington, D.C."),
        ("St.", "St."),
    ],
)
def test_clean_surface(raw: str, clean: str) -> None:
    assert names.clean_surface(raw) == clean


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("Lucy", True),
        ("van Gogh", True),
        ("iPhone", True),
        ("1984 Summer Olympics", True),
        ("wolf", False),  # a common noun
        ("chapter II", False),
        ("1897", False),
        ("X", False),
        ("I.", False),
        ("Herr", False),  # a bare honorific
        ("Mr. Dr.", False),
        ("Count", True),  # a title noun: kept, as a title reference
    ],
)
def test_is_valid_name(name: str, valid: bool) -> None:
    assert names.is_valid_name(name) is valid


@pytest.mark.parametrize(
    ("name", "titles", "core"),
    [
        ("Dr. John Seward", ["dr"], "John Seward"),
        ("Count Dracula", ["count"], "Dracula"),
        ("Mrs Harker", ["mrs"], "Harker"),
        ("Grand Duke Michael", ["grand duke"], "Michael"),
        ("Lord Godalming", ["lord"], "Godalming"),
        ("Count", [], "Count"),  # nothing left: returned whole
        ("Professor", [], "Professor"),
        ("Jonathan Harker", [], "Jonathan Harker"),
        ("Doctor who", [], "Doctor who"),  # the next word is not capitalised
    ],
)
def test_split_title(name: str, titles: list[str], core: str) -> None:
    assert names.split_title(name) == (titles, core)


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("the Count", "count"),
        ("The Professor", "professor"),
        ("Captain", "captain"),
        ("the Mr", None),
        ("Count Dracula", None),
        ("the count", None),
        ("Lucy", None),
    ],
)
def test_title_reference(name: str, title: str | None) -> None:
    assert names.title_reference(name) == title


def test_gender_conflicts() -> None:
    male, mrs, miss = names.gender_of(["mr"]), names.gender_of(["mrs"]), names.gender_of(["miss"])
    madam = names.gender_of(["madam"])
    assert names.genders_conflict(male, mrs)
    assert names.genders_conflict(mrs, miss)  # a married and an unmarried woman
    assert not names.genders_conflict(madam, mrs)
    assert not names.genders_conflict(set(), male)
    assert names.gender_of(["dr", "professor"]) == set()


@pytest.mark.parametrize(
    ("short", "long", "part"),
    [
        ("Harker", "Jonathan Harker", True),
        ("Mina", "Mina Harker", True),
        ("Van Helsing", "Abraham Van Helsing", True),
        ("Helsing Van", "Abraham Van Helsing", False),
        ("Jonathan Harker", "Jonathan Harker", False),
        ("Abraham", "Van Helsing", False),
    ],
)
def test_is_name_part(short: str, long: str, part: bool) -> None:
    assert names.is_name_part(names.tokens(short), names.tokens(long)) is part


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("Castle Dracula", "Location"),
        ("University of Oxford", "Organization"),
        ("Battle of Hastings", "Event"),
        ("Baker Street", "Location"),
        ("Lunatic Asylum", "Location"),
        ("Michael Bay", None),  # surnames that are also place nouns are left alone
        ("Dracula", None),
    ],
)
def test_head_type(name: str, kind: str | None) -> None:
    assert names.head_type(name) == kind


@pytest.mark.parametrize(
    ("a", "b", "ok"),
    [
        ("Jonathan Harker", "Mina Harker", False),
        ("Louis XIV", "Louis XV", False),
        ("World War I", "World War II", False),
        ("J. Harker", "Jonathan Harker", True),
        ("Van Helsing", "Abraham Van Helsing", True),
        ("Dr. Seward", "Seward", True),
        ("Quincey Morris", "Quincy Morris", False),  # different first names
    ],
)
def test_names_compatible(a: str, b: str, ok: bool) -> None:
    assert names.names_compatible(a, b) is ok


def test_non_person_names_ignore_the_first_name_rule() -> None:
    assert names.names_compatible("North Sea", "Irish Sea", person=False)
    assert not names.names_compatible("Apollo 11", "Apollo 13", person=False)


@pytest.mark.parametrize(
    ("title", "parts"),
    [
        ("Coney Island Baby (film)", ("Coney Island Baby", "film")),
        ("Lambert, Margrave of Tuscany", ("Lambert", "Margrave of Tuscany")),
        ("Lothair II", ("Lothair II", "")),
        ("(film)", ("(film)", "")),
    ],
)
def test_split_qualifier(title: str, parts: tuple[str, str]) -> None:
    assert names.split_qualifier(title) == parts


def test_looks_like_person_name() -> None:
    assert names.looks_like_person_name("Ludwig van Beethoven")
    assert not names.looks_like_person_name("Arthur Holmwood to Seward")
    assert not names.looks_like_person_name("Van Helsing, Art")


@pytest.mark.parametrize(
    ("a", "b", "one"),
    [
        ("Harker", "Jonathan Harker", True),
        ("Mr. Morris", "Quincey Morris", True),
        ("Van Helsing", "Abraham Van Helsing", True),
        ("Mina Harker", "Jonathan Harker", False),
        ("Mrs. Harker", "Mr. Jonathan Harker", False),
        ("Paul Desmarais Jr.", "Desmarais", False),
        ("Lucy Westenra", "Arthur Holmwood", False),
    ],
)
def test_may_name_one_person(a: str, b: str, one: bool) -> None:
    assert names.may_name_one_person(a, b) is one
    assert names.may_name_one_person(b, a) is one
