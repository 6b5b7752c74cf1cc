"""Agent memories on the command line: components become entities a path can join,
software is typed as libraries, and a title that is no name makes no entity."""

from __future__ import annotations

from pathlib import Path

from cli_runs import as_json, run


def test_path_between_a_person_and_a_component_named_in_lower_case(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    as_json(db, "remember", "Nadia Brook owns the invoicing service.")
    as_json(db, "remember", "The invoicing service depends on the API server.")
    found = as_json(db, "path", "Nadia Brook", "API server")
    assert found, "no path from the owner to the API server"
    assert found[0]["entities"][0] == "Nadia Brook"
    assert found[0]["entities"][-1].casefold() == "api server"
    assert any(e.casefold() == "invoicing service" for e in found[0]["entities"])
    text = run(db, "path", "Nadia Brook", "API server")
    assert text.exit_code == 0


def test_migrated_frameworks_are_libraries(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    as_json(db, "remember", "We moved the web server from Express to Hono.")
    types = {e["name"]: e["type"] for e in as_json(db, "entities")}
    assert types.get("Express") == "Library"
    assert types.get("Hono") == "Library"
    assert types.get("web server") == "Service"


def test_a_title_that_is_no_name_makes_no_entity(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    text = "Olga Petrova reviews the public API changes before each release.\n"
    result = run(db, "ingest", "-", "--title", "public", stdin=text)
    assert result.exit_code == 0, result.output
    names = {e["name"].casefold() for e in as_json(db, "entities")}
    assert "public" not in names
    assert "olga petrova" in names
    relations = as_json(db, "relations", "Olga Petrova")["relations"]
    assert relations, "the sentence's own relations are kept"
    assert all(str(r["other"]).casefold() != "public" for r in relations)
    assert all(r["type"] != "ABOUT" for r in relations)
