"""A repository's Python, JavaScript and TypeScript names, read before its files are
ingested, so that a file's calls resolve across files: through re-exports (``from click
import Command`` where ``click/__init__.py`` imports it from ``click.core``), inheritance
(``self.fail()`` in a subclass of a class in another file that defines ``fail``) and, in
JavaScript and TypeScript, default exports (``import mergeConfig from './mergeConfig.js'``
names what that module exports by default).

:meth:`RepoIndex.resolve` takes a name as one file sees it (``click.Command``,
``shop.cart.VipCart.total``) and gives the definition it names, and how it got there;
:meth:`RepoIndex.settings_named` gives the settings of the repository's settings files an
environment variable names (``DATABASE_URL``: ``database.url``).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass, field

from loregraph.ingest.code.model import CodeFile
from loregraph.ingest.code.settings_files import env_name

MAX_STEPS = 8
"""Re-exports and bases followed at most, for one name (a cycle ends there)."""
BUILTIN_METHODS = frozenset(
    name
    for kind in (object, str, bytes, list, dict, set, tuple, int, float, io.TextIOWrapper)
    for name in dir(kind)
    if not name.startswith("_")
)
"""Methods of Python's built-in types and files (``append``, ``update``, ``read``,
``flush``): called on a receiver of unknown type, such a name says nothing about which
class's method it is, the receiver being as likely a list, a dict or a file."""


@dataclass(slots=True)
class RepoIndex:
    """Every Python definition of a repository, each module's imported names, and each
    class's bases (as written in its file)."""

    defined: set[str] = field(default_factory=set)
    modules: set[str] = field(default_factory=set)
    bound: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per module: a name it imports → what it is (``Command`` → ``click.core.Command``)."""
    bases: dict[str, list[str]] = field(default_factory=dict)
    """Per class: its bases, qualified as its module's imports and definitions say."""
    defaults: dict[str, str] = field(default_factory=dict)
    """Per JavaScript or TypeScript module: the definition it exports by default."""
    methods: dict[str, list[str]] = field(default_factory=dict)
    """Per method name: the methods of the repository's classes by that name."""
    settings: dict[str, set[str]] = field(default_factory=dict)
    """Per environment variable: the settings known by it (:func:`.settings_files.env_name`)."""

    def add(self, code: CodeFile) -> None:
        """Index one parsed file."""
        self.modules.add(code.module)
        if code.default:
            self.defaults[code.module] = code.default
        own = self.bound.setdefault(code.module, {})
        for item in code.imports:
            if item.internal and item.bound != "*":
                own[item.bound] = item.target
        tops = {s.name: s.qualified for s in code.symbols if s.parent is None}
        for symbol in code.symbols:
            self.defined.add(symbol.qualified)
            if symbol.kind == "method":
                self.methods.setdefault(symbol.name, []).append(symbol.qualified)
            if symbol.kind == "class":
                self.bases[symbol.qualified] = [
                    self._qualify(base, code.module, tops) for base in symbol.bases
                ]

    def add_settings(self, names: Iterable[str]) -> None:
        """Index the names of one settings file's settings."""
        for name in names:
            self.settings.setdefault(env_name(name), set()).add(name)

    def _qualify(self, name: str, module: str, tops: dict[str, str]) -> str:
        head, _, rest = name.partition(".")
        if head in tops:
            target = tops[head]
        elif head in self.bound.get(module, {}):
            target = self.bound[module][head]
        else:
            return name
        return f"{target}.{rest}" if rest else target

    def resolve(self, name: str) -> tuple[str, str] | None:
        """The definition ``name`` refers to and how (``defined``, ``re-export``,
        ``inherited``, ``default export``); ``None`` when the repository defines nothing by
        that name."""
        how = "defined"
        for _ in range(MAX_STEPS):
            if name in self.defined:
                return name, how
            if name in self.defaults:  # a module imported by default: what it exports
                name, how = self.defaults[name], "default export"
                continue
            module, member = self._split(name)
            if module is None:
                return None
            first, _, rest = member.partition(".")
            target = self.bound.get(module, {}).get(first)
            if target is not None:  # a name the module imports: follow it
                name, how = (f"{target}.{rest}" if rest else target), "re-export"
                continue
            owner, _, attribute = name.rpartition(".")
            inherited = self._inherited(owner, attribute)
            return (inherited, "inherited") if inherited else None
        return None

    def _split(self, name: str) -> tuple[str | None, str]:
        """The longest module of the repository ``name`` starts with, and the rest."""
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in self.modules:
                return module, ".".join(parts[cut:])
        return None, name

    def _inherited(self, owner: str, attribute: str) -> str | None:
        """``attribute`` as a base of class ``owner`` defines it (breadth first)."""
        queue, seen = list(self.bases.get(owner, [])), {owner}
        while queue and len(seen) < 64:
            base = queue.pop(0)
            resolved = self.resolve(base) if base not in self.defined else (base, "defined")
            if resolved is None or resolved[0] in seen:
                continue
            seen.add(resolved[0])
            if f"{resolved[0]}.{attribute}" in self.defined:
                return f"{resolved[0]}.{attribute}"
            queue.extend(self.bases.get(resolved[0], []))
        return None

    def methods_named(self, name: str) -> list[str]:
        """The methods of the repository's classes called ``name``, in sorted order."""
        return sorted(self.methods.get(name, []))

    def settings_named(self, variable: str) -> list[str]:
        """The settings known by the environment variable ``variable``, in sorted order."""
        return sorted(self.settings.get(env_name(variable), ()))
