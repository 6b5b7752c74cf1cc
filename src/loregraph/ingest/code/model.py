"""What parsing one source file finds: its definitions, imports, calls and settings read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

SymbolKind = Literal["class", "function", "method"]


@dataclass(slots=True)
class Symbol:
    """A class, function or method, named by its qualified name (``pkg.mod.Class.method``).

    ``start``/``end`` are character offsets of the whole definition in the file's text,
    ``lines`` its first and last line (1-based); ``signature`` is its header as written
    (``def run(self, x: int) -> str``), ``doc`` the first paragraph of its docstring;
    ``bases`` the names its class derives from, as written.
    """

    name: str
    qualified: str
    kind: SymbolKind
    start: int
    end: int
    lines: tuple[int, int]
    signature: str = ""
    doc: str = ""
    parent: str | None = None
    bases: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Import:
    """One imported name: ``module`` is the absolute module (dotted for Python, a path
    without its suffix for a relative JavaScript import), ``name`` the member taken from it
    (``None``: the module itself), ``bound`` the local name it is bound to, ``internal``
    whether it belongs to the repository (a relative import, or the file's own package)."""

    module: str
    name: str | None
    bound: str
    internal: bool
    line: int

    @property
    def target(self) -> str:
        """What the bound name stands for: the member, the module, or (``import a.b``
        binds ``a``) the top-level package."""
        if self.name is not None:
            return f"{self.module}.{self.name}"
        top = self.module.split(".")[0]
        return top if "." in self.module and self.bound == top else self.module


@dataclass(slots=True)
class Call:
    """A call in ``caller`` (a qualified symbol, or the module for top-level code) of
    ``callee`` as written (``self.fail``, ``Command``, ``os.path.join``), at ``line``
    (1-based) where ``column`` (0-based, in characters) starts the callee's last name."""

    caller: str
    callee: str
    line: int
    column: int = 0


@dataclass(slots=True)
class CodeFile:
    """A parsed source file: ``path`` relative to the folder ingested, ``module`` the module
    it defines (``click.core``; for other languages its path without the suffix)."""

    path: str
    language: str
    module: str
    doc: str = ""
    symbols: list[Symbol] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    settings: dict[str, int] = field(default_factory=dict)
    """Environment variables the file reads, with the first line that reads each."""
    default: str = ""
    """What a JavaScript or TypeScript module exports by default (``export default``), by
    qualified name, when it is a definition of the file."""
