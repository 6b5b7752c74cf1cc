"""Prompt templates: packaged ``*.txt`` files, each overridable from a directory.

A prompt ``NAME`` is the file ``NAME.user.txt`` and, optionally, ``NAME.system.txt``.
Placeholders are ``{{param}}``. A user directory passed as ``PromptLibrary(directory)``
replaces any packaged file that has a file of the same name there; the others keep their
packaged text. Prompts shipped: ``extract_entities``, ``extract_relationships``,
``glean``, ``correct_json``, ``query_analysis``, ``intent_analysis``, ``answer``, ``merge_confirm``,
``contradiction``.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from loregraph.errors import ConfigError
from loregraph.llm.base import Message

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")

PROMPT_NAMES = (
    "extract_entities",
    "extract_relationships",
    "glean",
    "correct_json",
    "query_analysis",
    "intent_analysis",
    "answer",
    "merge_confirm",
    "contradiction",
)


def render(template: str, params: dict[str, object], *, name: str = "prompt") -> str:
    """Fill ``{{param}}`` placeholders; a placeholder with no value raises ConfigError."""
    missing = sorted({m.group(1) for m in _PLACEHOLDER.finditer(template)} - set(params))
    if missing:
        raise ConfigError(f"prompt {name!r} uses unknown placeholders: {', '.join(missing)}")
    return _PLACEHOLDER.sub(lambda m: str(params[m.group(1)]), template)


class PromptLibrary:
    """Loads prompt files, from ``directory`` first, then from the package.

    Args:
        directory: a directory of override files (``answer.system.txt``...); ``None``
            uses the packaged prompts only. A missing directory raises ConfigError.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else None
        if self.directory is not None and not self.directory.is_dir():
            raise ConfigError(f"prompt directory {str(self.directory)!r} does not exist")
        self._cache: dict[str, str | None] = {}

    def text(self, filename: str) -> str | None:
        """The text of one prompt file (override first), or ``None`` if there is none."""
        if filename not in self._cache:
            self._cache[filename] = self._load(filename)
        return self._cache[filename]

    def _load(self, filename: str) -> str | None:
        if self.directory is not None:
            path = self.directory / filename
            if path.is_file():
                return path.read_text(encoding="utf-8")
        packaged = resources.files(__name__).joinpath(filename)
        if packaged.is_file():
            return packaged.read_text(encoding="utf-8")
        return None

    def overridden(self) -> list[str]:
        """The prompt files the directory overrides."""
        if self.directory is None:
            return []
        return sorted(p.name for p in self.directory.glob("*.txt") if p.is_file())

    def messages(self, name: str, **params: object) -> list[Message]:
        """The system (if any) and user messages of prompt ``name``, filled in."""
        user = self.text(f"{name}.user.txt")
        if user is None:
            raise ConfigError(f"unknown prompt {name!r} (no file {name}.user.txt)")
        out: list[Message] = []
        system = self.text(f"{name}.system.txt")
        if system is not None and system.strip():
            out.append(Message("system", render(system, params, name=name).strip()))
        out.append(Message("user", render(user, params, name=name).strip()))
        return out
