"""Parsing a Python file: its classes, functions and methods (qualified names, spans,
signatures, docstrings, bases), its imports (relative ones made absolute), the calls in
each definition and the environment variables it reads.

The module a file defines comes from its path: ``src/click/core.py`` defines
``click.core`` (a leading ``src``, ``lib`` or ``python`` folder is a source root, not a
package) and ``click/__init__.py`` defines ``click``.
"""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import PurePosixPath
from typing import Any

import numpy as np

from loregraph.ingest.code.languages import grammar, text_of
from loregraph.ingest.code.model import Call, CodeFile, Import, Symbol

SOURCE_ROOTS = frozenset({"src", "lib", "python"})
_DEFINITIONS = {"class_definition": "class", "function_definition": "function"}
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_ENV_CALLS = frozenset({"os.getenv", "getenv", "os.environ.get", "environ.get"})
_STATEMENTS = frozenset(
    {
        "block",
        "if_statement",
        "elif_clause",
        "else_clause",
        "try_statement",
        "except_clause",
        "finally_clause",
        "with_statement",
    }
)
"""What a names-only parse looks inside: where a module's definitions and imports are."""


def module_name(path: str) -> str:
    """The dotted module ``path`` defines (see the module docstring)."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if len(parts) > 1 and parts[0] in SOURCE_ROOTS:
        parts = parts[1:]
    if len(parts) > 1 and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


class Offsets:
    """Character offsets of a text's byte offsets (tree-sitter counts bytes)."""

    def __init__(self, text: str) -> None:
        self._chars = None
        if not text.isascii():  # the characters before each byte: count the leading bytes
            data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
            self._chars = np.concatenate(([0], np.cumsum((data & 0xC0) != 0x80)))

    def char(self, byte: int) -> int:
        """The character offset at byte offset ``byte``."""
        return byte if self._chars is None else int(self._chars[byte])


def parse_python(path: str, text: str, bodies: bool = True) -> CodeFile:
    """Parse one Python file (syntax errors are tolerated: what parses is kept).

    ``bodies=False`` reads names only, several times faster: the classes, methods and
    functions and the imports of the module and its classes, not what function bodies
    hold (calls, nested definitions, local imports, settings read)."""
    tree = grammar("python").parse(text)
    module = module_name(path)
    is_package = PurePosixPath(path).stem == "__init__"
    found = CodeFile(path, "python", module, doc=_docstring(tree.root_node))
    walker = _Walker(found, text, Offsets(text), is_package, bodies)
    walker.visit(tree.root_node, module, None)
    return found


def _docstring(node: Any) -> str:
    """The first paragraph of the docstring of a module, class or function body."""
    body = node if node.type in ("module", "block") else node.child_by_field_name("body")
    first = body.named_children[0] if body is not None and body.named_children else None
    if first is None or first.type != "expression_statement":
        return ""
    value = first.named_children[0] if first.named_children else None
    if value is None or value.type != "string":
        return ""
    content = "".join(text_of(c) for c in value.named_children if c.type == "string_content")
    return " ".join(content.strip().split("\n\n", 1)[0].split())


class _Walker:
    """One pass over a file's tree, keeping the definition each node is inside."""

    def __init__(
        self, found: CodeFile, text: str, offsets: Offsets, is_package: bool, bodies: bool
    ) -> None:
        self.found = found
        self.text = text
        self.offsets = offsets
        self.is_package = is_package
        self.bodies = bodies

    def visit(self, node: Any, scope: str, owner: Symbol | None) -> None:
        for child in node.named_children:
            kind = child.type
            target = (
                child.child_by_field_name("definition") if kind == "decorated_definition" else child
            )
            if target is not None and target.type in _DEFINITIONS:
                symbol = self._symbol(child, target, scope, owner)
                self.found.symbols.append(symbol)
                if self.bodies or symbol.kind == "class":
                    body = target.child_by_field_name("body") or target
                    self.visit(body, symbol.qualified, symbol)
                continue
            if kind == "import_statement":
                self._imports(child)
            elif kind == "import_from_statement":
                self._from_imports(child)
            elif kind == "call":
                self._call(child, scope)
            elif kind == "subscript":
                self._environ(child)
            if self.bodies or kind in _STATEMENTS:
                self.visit(child, scope, owner)

    @cached_property
    def lines(self) -> list[bytes]:
        """The file's lines as bytes (tree-sitter's columns count bytes)."""
        return self.text.encode("utf-8").split(b"\n")

    def _symbol(self, outer: Any, node: Any, scope: str, owner: Symbol | None) -> Symbol:
        name = text_of(node.child_by_field_name("name"))
        kind = _DEFINITIONS[node.type]
        if kind == "function" and owner is not None and owner.kind == "class":
            kind = "method"
        body = node.child_by_field_name("body")
        header_end = body.start_byte if body is not None else node.end_byte
        header = text_of(node)[: header_end - node.start_byte].rstrip().rstrip(":").strip()
        bases = []
        if kind == "class" and (supers := node.child_by_field_name("superclasses")) is not None:
            bases = [
                text_of(b) for b in supers.named_children if b.type in ("identifier", "attribute")
            ]
        return Symbol(
            name=name,
            qualified=f"{scope}.{name}",
            kind=kind,  # type: ignore[arg-type]
            start=self.offsets.char(outer.start_byte),
            end=self.offsets.char(outer.end_byte),
            lines=(outer.start_point[0] + 1, outer.end_point[0] + 1),
            signature=" ".join(header.split()),
            doc=_docstring(node),
            parent=owner.qualified if owner is not None else None,
            bases=bases,
        )

    def _absolute(self, node: Any) -> tuple[str, bool]:
        """A ``from`` import's module made absolute, and whether it is relative."""
        if node.type != "relative_import":
            return text_of(node), False
        dots = sum(len(text_of(c)) for c in node.children if c.type == "import_prefix")
        named = [text_of(c) for c in node.named_children if c.type == "dotted_name"]
        package = self.found.module.split(".")
        if not self.is_package:
            package = package[:-1]
        base = package[: max(len(package) - (dots - 1), 0)]
        return ".".join(base + named), True

    def _internal(self, module: str) -> bool:
        return module.split(".")[0] == self.found.module.split(".")[0]

    def _imports(self, node: Any) -> None:
        line = node.start_point[0] + 1
        for item in node.named_children:
            if item.type == "aliased_import":
                module = text_of(item.child_by_field_name("name"))
                bound = text_of(item.child_by_field_name("alias"))
            else:
                module = text_of(item)
                bound = module.split(".")[0]
            self.found.imports.append(Import(module, None, bound, self._internal(module), line))

    def _from_imports(self, node: Any) -> None:
        line = node.start_point[0] + 1
        module, relative = self._absolute(node.child_by_field_name("module_name"))
        internal = relative or self._internal(module)
        names = [c for c in node.children_by_field_name("name")]
        if not names:  # a wildcard import: the module itself
            self.found.imports.append(Import(module, None, "*", internal, line))
        for item in names:
            if item.type == "aliased_import":
                name = text_of(item.child_by_field_name("name"))
                bound = text_of(item.child_by_field_name("alias"))
            else:
                name = bound = text_of(item)
            self.found.imports.append(Import(module, name, bound, internal, line))

    def _call(self, node: Any, scope: str) -> None:
        function = node.child_by_field_name("function")
        if function is None or function.type not in ("identifier", "attribute"):
            return
        callee = text_of(function)
        if not _DOTTED.fullmatch(callee):  # Cmd(1).run: the receiver is computed
            return
        last = function.child_by_field_name("attribute") or function
        column = len(
            self.lines[last.start_point[0]][: last.start_point[1]].decode("utf-8", "replace")
        )
        self.found.calls.append(Call(scope, callee, node.start_point[0] + 1, column))
        if callee in _ENV_CALLS:
            arguments = node.child_by_field_name("arguments")
            first = arguments.named_children[0] if arguments and arguments.named_children else None
            self._setting(first, node)

    def _environ(self, node: Any) -> None:
        value = node.child_by_field_name("value")
        if value is not None and text_of(value) in ("os.environ", "environ"):
            self._setting(node.child_by_field_name("subscript"), node)

    def _setting(self, key: Any, node: Any) -> None:
        if key is None or key.type != "string":
            return
        name = "".join(text_of(c) for c in key.named_children if c.type == "string_content")
        if name:
            self.found.settings.setdefault(name, node.start_point[0] + 1)
