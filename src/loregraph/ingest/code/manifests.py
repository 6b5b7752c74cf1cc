"""Declared dependencies: a project's manifest names the libraries it depends on.

Read: ``pyproject.toml`` (``[project]`` dependencies and optional dependencies, Poetry's
``[tool.poetry.dependencies]``), ``requirements.txt``, ``package.json`` (dependencies,
devDependencies, peerDependencies), ``go.mod`` (``require``), ``Cargo.toml``
(dependencies, dev-dependencies, build-dependencies). A manifest that does not parse names
nothing (its text is still searched). A library is named as the manifest writes it (the
store matches names without regard to case). Lockfiles, what each locked library depends
on, are read by :mod:`.lockfiles`.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

MANIFESTS = frozenset(
    {
        "pyproject.toml",
        "requirements.txt",
        "package.json",
        "go.mod",
        "Cargo.toml",
    }
)
"""The file names read as manifests."""

_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*?)\s*(;.*)?$")


@dataclass(slots=True)
class Dependency:
    """A library the project depends on, with the version it asks for and the text that
    says so."""

    name: str
    version: str = ""
    said: str = ""


@dataclass(slots=True)
class Manifest:
    """What a manifest declares: the project it names and its dependencies."""

    path: str
    project: str
    dependencies: list[Dependency] = field(default_factory=list)


def is_manifest(path: str) -> bool:
    """Whether ``path`` is a manifest read for its dependencies."""
    return PurePosixPath(path).name in MANIFESTS


def parse_manifest(path: str, text: str) -> Manifest:
    """The project and dependencies a manifest declares (nothing when it does not
    parse)."""
    name = PurePosixPath(path).name
    folder = str(PurePosixPath(path).parent)
    found = Manifest(path, folder if folder != "." else "")
    try:
        if name.endswith(".toml"):
            _toml(found, name, tomllib.loads(text))
        elif name.endswith(".json"):
            _json(found, json.loads(text))
        elif name == "go.mod":
            _go(found, text)
        else:
            found.dependencies = [d for line in text.splitlines() if (d := _requirement(line))]
    except (ValueError, TypeError, AttributeError):
        found.dependencies = []
    found.project = found.project or PurePosixPath(path).parent.name or name
    return found


def _requirement(line: str) -> Dependency | None:
    line = line.split("#", 1)[0].strip()
    if not line or line.startswith(("-", "git+", "http")):
        return None
    match = _REQUIREMENT.match(line)
    return Dependency(match.group(1), match.group(3), said=line) if match else None


def _toml(found: Manifest, name: str, data: dict[str, Any]) -> None:
    if name == "pyproject.toml":
        project = data.get("project", {})
        found.project = str(project.get("name") or found.project)
        lines = list(project.get("dependencies", []))
        for extra in project.get("optional-dependencies", {}).values():
            lines.extend(extra)
        found.dependencies = [d for line in lines if (d := _requirement(str(line)))]
        poetry = data.get("tool", {}).get("poetry", {})
        for dep, spec in poetry.get("dependencies", {}).items():
            if dep != "python":
                found.dependencies.append(Dependency(dep, _version(spec), said=f"{dep} ="))
    else:  # Cargo.toml
        found.project = str(data.get("package", {}).get("name") or found.project)
        for section in ("dependencies", "dev-dependencies", "build-dependencies"):
            for dep, spec in data.get(section, {}).items():
                found.dependencies.append(Dependency(dep, _version(spec), said=f"{dep} ="))


def _json(found: Manifest, data: dict[str, Any]) -> None:
    found.project = str(data.get("name") or found.project)
    for section in ("dependencies", "devDependencies", "peerDependencies"):
        for dep, spec in (data.get(section) or {}).items():
            found.dependencies.append(Dependency(dep, str(spec), said=f'"{dep}": "{spec}"'))


def _go(found: Manifest, text: str) -> None:
    block = False
    for line in text.splitlines():
        line = line.split("//", 1)[0].strip()
        if line.startswith("module "):
            found.project = line.split()[1]
        elif line.startswith("require ("):
            block = True
        elif block and line == ")":
            block = False
        elif (block or line.startswith("require ")) and line:
            parts = line.removeprefix("require ").split()
            if len(parts) >= 2:
                found.dependencies.append(Dependency(parts[0], parts[1], said=line))


def _version(spec: Any) -> str:
    if isinstance(spec, dict):
        return str(spec.get("version", ""))
    return str(spec)
