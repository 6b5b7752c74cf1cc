"""Forgetting forgets (issue 29, Found 1): after ``forget``, nothing the forgotten memory said
shows in any read, in ``export``, in the audit log or in the store's bytes, and the relation
it shared with a remaining memory takes that memory's fact and date."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_runs import as_json, run

SECRET = "Dana Scully told Fox Mulder the safe code is 8841."
KEPT = "Dana Scully and Fox Mulder met at the Hoover Building."

CODE = re.compile(r"(?<![0-9a-f.])8841(?![0-9a-f])")
"""The secret's number as it is said, not a run of digits inside a time or a hex id."""
CODE_BYTES = re.compile(rb"(?<![0-9a-f.])8841(?![0-9a-f])")

READS = (
    ("context", "What is the safe code?"),
    ("ask", "What is the safe code?"),
    ("search", "Scully safe code"),
    ("relations", "Dana Scully"),
    ("entity", "Fox Mulder"),
    ("neighbors", "Dana Scully"),
    ("history", "Dana Scully"),
    ("memories",),
    ("documents",),
    ("audit",),
    ("export", "-"),
)


def _remember_and_forget(db: Path) -> None:
    first = as_json(db, "remember", SECRET, "--at", "2026-01-03")
    as_json(db, "remember", KEPT, "--at", "2026-01-05")
    before = run(db, "relations", "Dana Scully", "--json")
    assert "8841" in before.stdout  # what the forget must take away
    forgot = run(db, "forget", first["id"])
    assert forgot.exit_code == 0, forgot.output
    audit = as_json(db, "audit")
    assert any(e["action"] == "forget" and e["subject"] == first["id"] for e in audit)


@pytest.mark.parametrize("name", ["store.db", "context.json"])
def test_a_forgotten_memory_leaves_no_trace(tmp_path: Path, name: str) -> None:
    db = tmp_path / name
    _remember_and_forget(db)
    for args in READS:
        result = run(db, *args)
        assert result.exit_code == 0, (args, result.output)
        assert not CODE.search(result.output), args
        assert "told Fox" not in result.output, args
    relations = as_json(db, "relations", "Dana Scully")["relations"]
    mulder = [r for r in relations if r["other"] == "Fox Mulder"]
    assert mulder and all(r["fact"] == KEPT for r in mulder)
    for path in tmp_path.iterdir():  # the store and its sidecars: WAL, vectors, the JSON file
        assert not CODE_BYTES.search(path.read_bytes()), path.name


def test_the_surviving_relation_takes_the_remaining_memorys_date(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    _remember_and_forget(db)
    result = run(db, "export", "-")
    assert result.exit_code == 0, result.output
    relations = json.loads(result.stdout)["relations"]
    assert relations and {r["valid_at"][:10] for r in relations} == {"2026-01-05"}


def test_a_deleted_document_leaves_no_trace(tmp_path: Path) -> None:
    db, notes = tmp_path / "store.db", tmp_path / "notes.txt"
    notes.write_text(SECRET + "\n", encoding="utf-8")
    assert run(db, "ingest", str(notes)).exit_code == 0
    as_json(db, "remember", KEPT)
    deleted = run(db, "delete", str(notes))
    assert deleted.exit_code == 0, deleted.output
    for args in READS:
        result = run(db, *args)
        assert not CODE.search(result.output), args
    assert not any(CODE_BYTES.search(path.read_bytes()) for path in tmp_path.glob("store.db*"))
    entries = as_json(db, "audit")
    assert [e["detail"].startswith("sha256:") for e in entries if e["action"] == "delete"] == [True]
