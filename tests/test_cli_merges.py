"""``loregraph merges``, ``unmerge``, ``merge``, ``rename``, ``retype`` and ``audit`` on the
command line: output, JSON, the audit log's principal, and one clear message with a
non-zero exit for what cannot be done."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_runs import as_json, run
from loregraph.cli.merges import principal
from loregraph.errors import InputError, NotFoundError

NOTES = (
    "Bob Jones lives in Paris. Bob Jones works for Acme Corporation.",
    "Robert Jones met Alice Smith in Berlin. Robert Jones plays chess.",
)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "m.db"
    for note in NOTES:
        assert run(path, "remember", note).exit_code == 0
    return path


def test_merge_by_hand_is_listed_undone_and_audited(db: Path) -> None:
    made = as_json(db, "merge", "Bob Jones", "Robert Jones")
    assert made["rule"] == "manual" and made["entity"] == "Bob Jones"
    assert made["surface"] == "Robert Jones" and made["principal"] == principal()
    listed = as_json(db, "merges", "--entity", "Bob Jones")
    assert [m["id"] for m in listed] == [made["id"]]
    text = run(db, "merges")
    assert made["id"] in text.output and "'Robert Jones' -> 'Bob Jones'" in text.output
    names = {e["name"] for e in as_json(db, "entities")}
    assert "Robert Jones" not in names

    undone = run(db, "unmerge", made["id"])
    assert undone.exit_code == 0 and "unmerged 'Robert Jones'" in undone.output
    names = {e["name"] for e in as_json(db, "entities")}
    assert {"Bob Jones", "Robert Jones"} <= names
    assert as_json(db, "merges") == []
    [gone] = as_json(db, "merges", "--all")
    assert gone["undone"] and gone["id"] == made["id"]

    again = run(db, "unmerge", made["id"])
    assert again.exit_code == NotFoundError.exit_code
    assert again.output.count("already undone") == 1
    unknown = run(db, "unmerge", "mrg_nothing")
    assert unknown.exit_code == NotFoundError.exit_code and "no merge" in unknown.output

    log = as_json(db, "audit")
    assert [(e["action"], e["subject"]) for e in log] == [
        ("unmerge", made["id"]),
        ("merge", made["id"]),
    ]
    assert all(e["principal"] == principal() for e in log)
    assert len(as_json(db, "audit", "-n", "1")) == 1


def test_rename_and_retype(db: Path) -> None:
    renamed = as_json(db, "rename", "Alice Smith", "Alice Jones")
    assert renamed["name"] == "Alice Jones"
    entity = as_json(db, "entity", "Alice Jones")
    assert entity["name"] == "Alice Jones"
    retyped = run(db, "retype", "Berlin", "organisation")
    assert retyped.exit_code == 0 and "retyped 'Berlin' (Organization" in retyped.output
    taken = run(db, "rename", "Alice Jones", "Bob Jones")
    assert taken.exit_code == InputError.exit_code and "merge them" in taken.output
    same = run(db, "merge", "Bob Jones", "bob jones")
    assert same.exit_code == InputError.exit_code and "already one entity" in same.output
    missing = run(db, "rename", "Nobody Anywhere At All", "X")
    assert missing.exit_code == NotFoundError.exit_code
    actions = [e["action"] for e in as_json(db, "audit")]
    assert actions == ["retype", "rename"]


def test_forget_is_audited(db: Path) -> None:
    [first, _] = as_json(db, "memories")
    assert run(db, "forget", first["id"]).exit_code == 0
    [entry] = as_json(db, "audit")
    assert (entry["action"], entry["subject"], entry["principal"]) == (
        "forget",
        first["id"],
        principal(),
    )


def test_delete_is_audited(db: Path, tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("Ada Moreno works for Globex in Lisbon.\n", encoding="utf-8")
    assert run(db, "ingest", str(note)).exit_code == 0
    [document] = [d for d in as_json(db, "documents") if d["source"].endswith("note.md")]
    assert run(db, "delete", document["id"]).exit_code == 0
    [entry] = as_json(db, "audit")
    assert (entry["action"], entry["subject"], entry["principal"]) == (
        "delete",
        document["id"],
        principal(),
    )


def test_merge_rename_and_retype_take_exact_names_never_a_guess(db: Path) -> None:
    assert run(db, "remember", "Marco Rossi and Priya Shah run the Redis cluster.").exit_code == 0
    guessed = run(db, "merge", "Marco Rossi", "Priya")
    assert guessed.exit_code == NotFoundError.exit_code, guessed.output
    assert "no entity named 'Priya'; did you mean: Priya Shah" in guessed.output
    for args in (("rename", "Priya", "P. Shah"), ("retype", "Priya", "Person")):
        refused = run(db, *args)
        assert refused.exit_code == NotFoundError.exit_code and "did you mean" in refused.output
    names = {e["name"]: e for e in as_json(db, "entities")}
    assert {"Marco Rossi", "Priya Shah"} <= set(names) and as_json(db, "merges") == []
    # exact: any case, an alias, or the id
    made = as_json(db, "merge", "marco rossi", names["Priya Shah"]["id"])
    assert (made["entity"], made["surface"]) == ("Marco Rossi", "Priya Shah")
    assert run(db, "unmerge", made["id"]).exit_code == 0


def test_retype_refuses_an_unknown_type_unless_it_is_new(db: Path) -> None:
    assert run(db, "remember", "Marco Rossi and Priya Shah run the Redis cluster.").exit_code == 0
    unknown = run(db, "retype", "Redis", "Banana")
    assert unknown.exit_code == InputError.exit_code, unknown.output
    assert "unknown entity type 'Banana'; known types: Person, Organization," in unknown.output
    assert "--new-type" in unknown.output
    assert {e["name"]: e["type"] for e in as_json(db, "entities")}["Redis"] != "Banana"
    made = as_json(db, "retype", "Redis", "Banana", "--new-type")
    assert made["type"] == "Banana"
    again = as_json(db, "retype", "Marco Rossi", "banana")  # now a type the scope has
    assert again["type"] == "Banana"
    assert as_json(db, "retype", "Marco Rossi", "human")["type"] == "Person"  # a word for one
    assert "must not be empty" in run(db, "retype", "Redis", " ").output
    assert "ErrorPattern, Banana (to create it" in run(db, "retype", "Redis", "Kiwi").output
