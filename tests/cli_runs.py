"""Running the command line in tests: one invocation against a store, and its JSON output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from loregraph.cli.app import main


def run(db: Path | str, *args: str, stdin: str | None = None) -> Result:
    """``loregraph --db DB ARGS...`` with ``stdin`` as its standard input."""
    return CliRunner().invoke(main, ["--db", str(db), *args], input=stdin)


def as_json(db: Path | str, *args: str, stdin: str | None = None) -> Any:
    """The parsed ``--json`` output of a command that must succeed."""
    result = run(db, *args, "--json", stdin=stdin)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)
