"""Locked dependencies: what each library a lockfile pins depends on.

Read: ``poetry.lock`` and ``uv.lock`` (``[[package]]`` tables: name, version,
dependencies), ``Cargo.lock`` (``[[package]]``, each dependency ``"name"`` or ``"name
version"``), ``package-lock.json`` (lockfile versions 2 and 3: the ``packages`` map, a key
``node_modules/a/node_modules/b`` locking ``b``). A package of the project itself (uv's
editable or virtual root, a Cargo package with no registry ``source``, package-lock's root
and workspace folders, a Poetry directory dependency) is the project's, not a library's.
Left out: ``go.sum`` (checksums only: no graph; ``go.mod`` names the libraries), an npm
lockfile of version 1, ``yarn.lock`` and ``pnpm-lock.yaml``.

A lockfile of a few megabytes is mostly checksums and URLs: the reader keeps
:func:`summarise`'s text instead, one line a package (``requests 2.32.3: certifi, idna``,
about sixty characters where the lockfile spends one or two thousand), which is what is
stored, chunked and quoted as each relation's evidence; :func:`read_summary` reads it
back. A lockfile that does not parse locks nothing (its summary says so).
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

LOCKFILES = frozenset({"poetry.lock", "uv.lock", "Cargo.lock", "package-lock.json"})
"""The file names read as lockfiles."""
OWN = "(project)"
"""What marks a package of the project itself in a summary line."""

_SEPARATORS = re.compile(r"[-_.]+")


@dataclass(slots=True)
class Locked:
    """A locked package: its name, version, whether it is the project's own, and the names
    of the packages it depends on."""

    name: str
    version: str = ""
    own: bool = False
    dependencies: list[str] = field(default_factory=list)

    def line(self) -> str:
        """The package's summary line: ``name version: dependency, dependency``."""
        head = " ".join(part for part in (self.name, self.version, OWN if self.own else "") if part)
        return f"{head}: {', '.join(self.dependencies)}" if self.dependencies else head


def is_lockfile(path: str) -> bool:
    """Whether ``path`` is a lockfile read for its dependency graph."""
    return PurePosixPath(path).name in LOCKFILES


def parse_lockfile(path: str, text: str) -> list[Locked]:
    """The packages a lockfile locks, in order, each once (nothing when it does not
    parse)."""
    name = PurePosixPath(path).name
    found: list[Locked | None] = []
    try:
        if name == "package-lock.json":
            found.extend(_npm(json.loads(text)))
        else:
            found.extend(_toml(name, table) for table in tomllib.loads(text).get("package", []))
    except (ValueError, TypeError, AttributeError, KeyError, IndexError):
        return []
    return _named_alike([p for p in found if p is not None])


def summarise(path: str, text: str) -> str:
    """The text kept for a lockfile: a heading line, then one line a locked package."""
    name = PurePosixPath(path).name
    packages = parse_lockfile(path, text)
    if not packages:
        return f"# {name}: no locked packages read (it does not parse, or locks nothing)\n"
    lines = [p.line() for p in packages]
    heading = f"# {name}: {len(lines)} locked packages, each with what it depends on"
    return "\n".join([heading, *lines]) + "\n"


def read_summary(text: str) -> list[tuple[int, Locked]]:
    """The packages of a :func:`summarise` text, each with its line number (1-based)."""
    found: list[tuple[int, Locked]] = []
    for number, line in enumerate(text.splitlines(), 1):
        head, _, after = line.partition(": ")
        parts = head.split()
        if not parts or line.startswith("#") or len(parts) > 3:
            continue
        own = parts[-1] == OWN
        version = parts[1] if len(parts) > 1 + own else ""
        dependencies = [d for d in (s.strip() for s in after.split(",")) if d]
        found.append((number, Locked(parts[0], version, own, dependencies)))
    return found


def _toml(name: str, package: dict[str, Any]) -> Locked | None:
    """A ``[[package]]`` table of ``poetry.lock``, ``uv.lock`` or ``Cargo.lock``."""
    if not isinstance(package, dict) or not package.get("name"):
        return None
    locked = Locked(str(package["name"]), str(package.get("version", "")))
    source = package.get("source")
    if name == "Cargo.lock":
        locked.own = source is None
        locked.dependencies = [str(d).split()[0] for d in package.get("dependencies", [])]
    elif name == "uv.lock":
        locked.own = isinstance(source, dict) and bool({"editable", "virtual"} & set(source))
        groups = [package.get("dependencies", [])]
        if locked.own:
            for key in ("optional-dependencies", "dev-dependencies"):
                groups.extend(package.get(key, {}).values())
        locked.dependencies = [str(d["name"]) for group in groups for d in group]
    else:  # poetry.lock
        locked.own = isinstance(source, dict) and source.get("type") == "directory"
        declared = package.get("dependencies", {}).items()
        optional = {d for d, spec in declared if isinstance(spec, dict) and spec.get("optional")}
        locked.dependencies = [d for d, _ in declared if d not in optional]
    return locked


def _npm(data: dict[str, Any]) -> list[Locked]:
    """The ``packages`` map of a ``package-lock.json`` of version 2 or 3."""
    found: list[Locked] = []
    for key, entry in data["packages"].items():
        if not isinstance(entry, dict) or entry.get("link"):
            continue  # a link's folder has an entry of its own
        library = "node_modules/" in key
        name = key.rsplit("node_modules/", 1)[-1] if library else entry.get("name")
        name = name or (data.get("name") if key == "" else PurePosixPath(key).name)
        sections = ["dependencies", "optionalDependencies", "peerDependencies"]
        sections += [] if library else ["devDependencies"]
        dependencies = [d for s in sections for d in (entry.get(s) or {})]
        found.append(Locked(str(name), str(entry.get("version", "")), not library, dependencies))
    return found


def _named_alike(packages: list[Locked]) -> list[Locked]:
    """Each package once (by name and version), and each dependency named as the package
    the lockfile locks by that name (``typing_extensions`` is ``typing-extensions``)."""
    key = {_SEPARATORS.sub("-", p.name).lower(): p.name for p in packages}
    seen: set[tuple[str, str]] = set()
    kept: list[Locked] = []
    for package in packages:
        if (package.name, package.version) in seen:
            continue
        seen.add((package.name, package.version))
        named = (key.get(_SEPARATORS.sub("-", d).lower(), d) for d in package.dependencies)
        package.dependencies = list(dict.fromkeys(named))
        kept.append(package)
    return kept
