"""The package keeps the shape docs/DEVELOPMENT.md describes: small modules, short functions,
and no references to design documents in what users read."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "loregraph"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80


def _exceptions() -> set[str]:
    """The units docs/DEVELOPMENT.md lists, with a reason, under "Size exceptions"."""
    text = (ROOT / "docs" / "DEVELOPMENT.md").read_text(encoding="utf-8")
    section = (
        text.split("## Size exceptions", 1)[1].split("\n## ", 1)[0]
        if ("## Size exceptions" in text)
        else ""
    )
    return set(re.findall(r"^- `([^`]+)` — \S", section, re.MULTILINE))


def _units() -> list[tuple[str, int, int]]:
    """``(name, lines, limit)`` for every module and function of the package."""
    units: list[tuple[str, int, int]] = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC.parent).as_posix()
        text = path.read_text(encoding="utf-8")
        units.append((rel, len(text.splitlines()), MAX_MODULE_LINES))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                units.append((f"{rel}:{node.name}", length, MAX_FUNCTION_LINES))
    return units


def test_modules_and_functions_stay_small_or_are_listed_with_a_reason() -> None:
    allowed = _exceptions()
    too_long = [
        f"{name} ({lines} lines > {limit})"
        for name, lines, limit in _units()
        if lines > limit and name not in allowed
    ]
    assert not too_long, "split these or list them under 'Size exceptions' in DEVELOPMENT.md"


def test_listed_exceptions_still_exist_and_are_still_long() -> None:
    long_units = {name for name, lines, limit in _units() if lines > limit}
    stale = sorted(_exceptions() - long_units)
    assert not stale, f"remove from 'Size exceptions' in DEVELOPMENT.md: {stale}"


def test_no_source_file_refers_to_design_documents_by_number() -> None:
    pattern = re.compile(r"\bseeds? ?0\d\d\b", re.IGNORECASE)
    found = [
        f"{path.relative_to(SRC.parent)}:{number}"
        for path in sorted(SRC.rglob("*"))
        if path.suffix in (".py", ".txt", ".md") and "data" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, found
