"""Creating and revoking a key is recorded in the audit log of each scope the key opens,
by its name and role, never its secret."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from loregraph.cli.app import main


def ok(db: Path, *args: str) -> Result:
    result = CliRunner().invoke(main, ["--db", str(db), *args])
    assert result.exit_code == 0, result.output
    return result


def audit(db: Path, scope: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(ok(db, "--scope", scope, "audit", "--json").stdout)
    return found


def test_keys_created_and_revoked_are_audited_without_their_secret(tmp_path: Path) -> None:
    db = tmp_path / "keys.db"
    (tmp_path / "note.txt").write_text("Grandma Rose planted the orchard.", encoding="utf-8")
    ok(db, "ingest", str(tmp_path / "note.txt"), "--scope", "family")
    made = json.loads(
        ok(db, "keys", "create", "ann-laptop", "--scope", "family", "--role", "writer",
           "--json").stdout
    )  # fmt: skip
    ok(db, "keys", "revoke", "ann-laptop")
    entries = audit(db, "family")
    assert [(e["action"], e["subject"], e["detail"]) for e in entries[:2]] == [
        ("revoke key", "ann-laptop", "was writer"),
        ("create key", "ann-laptop", "writer"),
    ]
    assert made["key"] not in json.dumps(entries)
    assert audit(db, "default") == []  # a scope the key did not open
