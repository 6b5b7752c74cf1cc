"""How right the code graph's Python call edges are, against ``jedi``'s goto-definition.

For each Python repository of the code benchmark, the package's own source files (those
below ``src/``, else outside ``tests``, ``docs`` and ``examples``) are parsed as ingest
parses them, with the repository's index (:mod:`loregraph.ingest.code.index`), and their
``CALLS`` edges taken as the engine makes them: ``(caller, callee)`` by qualified name.
The gold is jedi's: every call site the parser found, asked of ``jedi.Script.goto`` (imports
followed) at the callee's last name; a site whose definition is a function or class of the
repository gives the edge ``(caller, jedi's full name)``. Precision is the share of the
engine's edges that are gold, recall the share of gold edges the engine has (edges counted
once, as the graph stores them). The edges linked *by name only* (confidence at most
:data:`~loregraph.ingest.code.resolver.BY_NAME`) are candidates, not resolved edges: they are
counted apart, with the share of them and of the first-ranked ones that jedi confirms and
the recall resolved edges and candidates reach together. Needs the ``bench`` extra (jedi).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from loregraph.ingest.code.graph import code_extraction
from loregraph.ingest.code.python import parse_python
from loregraph.ingest.code.resolver import BY_NAME
from loregraph.ingest.code.stage import index_repository

SKIPPED_FOLDERS = frozenset({"tests", "test", "docs", "examples", "scripts", "benchmarks"})


def package_files(files: dict[str, str]) -> dict[str, str]:
    """The Python files of the package itself (see the module docstring)."""
    python = {p: t for p, t in files.items() if p.endswith(".py")}
    under_src = {p: t for p, t in python.items() if p.startswith("src/")}
    if under_src:
        return under_src
    return {
        p: t for p, t in python.items() if not SKIPPED_FOLDERS & set(PurePosixPath(p).parts[:-1])
    }


def engine_edges(files: dict[str, str]) -> dict[tuple[str, str], str]:
    """The ``CALLS`` edges ingest makes of ``files``, with the repository's index, each
    with how it was linked: ``resolved``, or a candidate by name only (``first`` ranked or
    ``other``)."""
    index = index_repository(files.items())
    edges: dict[tuple[str, str], str] = {}
    for path, text in files.items():
        code = parse_python(path, text)
        for relation in code_extraction(code, text, [], index).relations:
            if relation.type == "CALLS":
                kind = "resolved" if relation.confidence > BY_NAME else "other"
                if kind == "other" and _first(relation.fact):
                    kind = "first"
                edges[(relation.source, relation.target)] = kind
    return edges


def jedi_edges(root: Path, files: dict[str, str]) -> set[tuple[str, str]]:
    """The call edges jedi's goto-definition gives at the parser's call sites."""
    import jedi

    paths = [root / "src"] if (root / "src").is_dir() else [root]
    # the tree first, not an installed copy of the same package
    project = jedi.Project(root, sys_path=[str(p) for p in paths], smart_sys_path=False)
    inside = str(root.resolve())
    edges: set[tuple[str, str]] = set()
    for path, text in files.items():
        code = parse_python(path, text)
        defined = {s.qualified for s in code.symbols}
        script = jedi.Script(text, path=str(root / path), project=project)
        for call in code.calls:
            caller = call.caller if call.caller in defined else code.module
            try:
                found = script.goto(call.line, call.column, follow_imports=True)
            except Exception:  # jedi's own failures on odd code
                continue
            for name in found:
                module = str(name.module_path or "")
                ours = name.type in ("function", "class") and module.startswith(inside)
                if ours and name.full_name and name.full_name != caller:
                    edges.add((caller, name.full_name))
    return edges


def measure(root: Path, files: dict[str, str]) -> dict[str, Any]:
    """Precision and recall of the engine's call edges against jedi's, over ``files``
    (the repository's tree, written below ``root``)."""
    package = package_files(files)
    edges, gold = engine_edges(package), jedi_edges(root, package)
    ours = {e for e, kind in edges.items() if kind == "resolved"}
    candidates = set(edges) - ours
    first = {e for e, kind in edges.items() if kind == "first"}
    return {
        "files": len(package),
        "engine_edges": len(ours),
        "jedi_edges": len(gold),
        "precision": _share(ours & gold, ours),
        "recall": _share(ours & gold, gold),
        "candidate_edges": len(candidates),
        "candidate_precision": _share(candidates & gold, candidates),
        "first_candidate_precision": _share(first & gold, first),
        "recall_with_candidates": _share(set(edges) & gold, gold),
    }


def _first(fact: str) -> bool:
    return "candidate 1 " in fact or fact.endswith("(by name only)")


def _share(part: set[Any], whole: set[Any]) -> float | None:
    return round(len(part) / len(whole), 3) if whole else None
