"""What a name a source file uses refers to: the rules of :mod:`.graph`'s module
docstring (a definition of the same file or ``self``'s class, a name imported from the
repository followed through its index, or ranked candidates by name only)."""

from __future__ import annotations

from loregraph.ingest.code.index import BUILTIN_METHODS
from loregraph.ingest.code.model import CodeFile, Symbol
from loregraph.ingest.types import CodeIndex

EXACT, VIA_IMPORT, BY_NAME = 1.0, 0.8, 0.5
FOLLOWED = {"defined": 0.95, "re-export": 0.9, "inherited": 0.9, "default export": 0.9}
"""The confidence of a name from another file the repository's index resolved, by how."""
MAX_CANDIDATES = 3
"""A method call on a receiver of unknown type (``session.send()``) is linked, by name
only, to the repository's methods of that name when there are at most this many; more is
a guess, and none is linked."""


class Resolver:
    """What a name used in a definition refers to: ``(qualified, confidence, how)``; with
    the repository's index, a name from another file is followed to its definition (see
    the module docstring), and one the repository does not define is not linked."""

    def __init__(
        self, code: CodeFile, imported: dict[str, str], index: CodeIndex | None = None
    ) -> None:
        self.code = code
        self.imported = imported
        self.index = index
        self.top = {s.name: s.qualified for s in code.symbols if s.parent is None}
        self.outside = {i.bound for i in code.imports if not i.internal}
        self.symbols = {s.qualified: s for s in code.symbols}
        self.members: dict[str, dict[str, str]] = {}
        for s in code.symbols:
            if s.parent is not None:
                self.members.setdefault(s.parent, {})[s.name] = s.qualified

    def __call__(self, name: str, where: Symbol | None) -> tuple[str, float, str] | None:
        found = self._local(name, where)
        if found is None or found[2] == "exact" or self.index is None:
            return found
        target = self.index.resolve(found[0])
        if target is None:
            return None
        return target[0], FOLLOWED[target[1]], f"via import, {target[1]}"

    def _local(self, name: str, where: Symbol | None) -> tuple[str, float, str] | None:
        head, _, rest = name.partition(".")
        if head in ("self", "cls", "this") and rest and "." not in rest:
            owner = self._class_of(where)
            member = self.members.get(owner or "", {}).get(rest)
            if member:
                return member, EXACT, "exact"
            return (f"{owner}.{rest}", VIA_IMPORT, "inherited") if owner and self.index else None
        if not rest:
            scoped = self.members.get(where.qualified, {}).get(name) if where else None
            if scoped or name in self.top:
                return scoped or self.top[name], EXACT, "exact"
            if name in self.imported:
                return self.imported[name], VIA_IMPORT, "via import"
            return None
        if head in self.top and "." not in rest:
            member = self.members.get(self.top[head], {}).get(rest)
            return (member, EXACT, "exact") if member else None
        if head in self.imported:
            return f"{self.imported[head]}.{rest}", VIA_IMPORT, "via import"
        return None

    def by_name(self, name: str, where: Symbol | None) -> list[tuple[str, float, str]]:
        """Ranked candidates for a method called on a receiver of unknown type (a local
        variable, an attribute of ``self``): the repository's methods of that name, those
        of modules nearest the caller's first, when there are at most
        :data:`MAX_CANDIDATES`. Calls on what the file names itself or imports, and
        special methods, get none."""
        receiver, _, method = name.rpartition(".")
        head = receiver.partition(".")[0]
        known = head in self.top or head in self.imported or head in self.outside
        own = head in ("self", "cls", "this") and "." not in receiver
        common = method.startswith("__") or method in BUILTIN_METHODS
        if self.index is None or not receiver or known or own or common:
            return []
        found = self.index.methods_named(method)
        if not found or len(found) > MAX_CANDIDATES:
            return []
        here = self.code.module.split(".")
        called = receiver.rpartition(".")[2].replace("_", "").lower()

        def rank(qualified: str) -> tuple[bool, int, str]:
            owner = qualified.rsplit(".", 2)[-2].lower()
            named = bool(called) and (called in owner or owner in called)
            return not named, -_shared(qualified.split("."), here), qualified

        ranked = sorted(found, key=rank)
        n = len(ranked)
        return [
            (q, round(BY_NAME / (n + rank), 2), "by name only" + _of(rank, n))
            for rank, q in enumerate(ranked)
        ]

    def _class_of(self, where: Symbol | None) -> str | None:
        while where is not None and where.kind != "class":
            where = self.symbols.get(where.parent or "")
        return where.qualified if where is not None else None


def _shared(one: list[str], other: list[str]) -> int:
    """How many leading parts two dotted names share."""
    count = 0
    for a, b in zip(one, other, strict=False):
        if a != b:
            break
        count += 1
    return count


def _of(rank: int, count: int) -> str:
    return f", candidate {rank + 1} of {count}" if count > 1 else ""
