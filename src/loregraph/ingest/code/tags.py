"""Parsing a JavaScript, TypeScript, Go, Rust or Java file through its grammar's tags
query: definitions (nested by their spans: a method is named ``Class.method``; a Go
method by its receiver's type, a Rust method by its ``impl``'s; a Java class within its
package), calls by name, and imports.

Imports: JavaScript and TypeScript ``import … from`` and ``require()`` (a relative path is
a module of the repository, resolved against the file's folder; any other is a library,
``@scope/name`` or its first segment; what a module exports by default is noted, so that
the repository's index follows a default import to it); Go import paths (each a library:
the repository's own module path is not known from one file); Rust ``use``
(``crate``/``self``/``super`` paths are the repository's, others name a crate); Java
imports (the repository's when they share the file's top-level package).
"""

from __future__ import annotations

import posixpath
from pathlib import PurePosixPath
from typing import Any

from loregraph.ingest.code.languages import grammar, text_of
from loregraph.ingest.code.model import Call, CodeFile, Import, Symbol
from loregraph.ingest.code.python import Offsets

_CONTAINERS = ("class", "interface", "type", "module")
_INDEX_NAMES = {"index", "mod", "lib", "main"}
_STRIP = {".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".rs"}


def module_path(path: str, language: str) -> str:
    """The module a file defines: its path without the suffix (an ``index``, ``mod``,
    ``lib`` or ``main`` file is its folder's module); a Go file, its folder."""
    pure = PurePosixPath(path)
    if language == "go":
        return str(pure.parent) if str(pure.parent) != "." else pure.stem
    stem = pure.with_suffix("")
    if stem.name in _INDEX_NAMES and str(stem.parent) != ".":
        return str(stem.parent)
    return str(stem)


def parse_tagged(path: str, text: str, language: str) -> CodeFile:
    """Parse one non-Python source file (syntax errors are tolerated)."""
    found = CodeFile(path, language, module_path(path, language))
    if language == "java":
        found.module = _java_module(text) or found.module
    g = grammar(language)
    tree = g.parse(text)
    offsets = Offsets(text)
    defs: dict[tuple[int, int], tuple[Any, Any, str]] = {}
    calls: list[tuple[Any, str]] = []
    for _, captures in g.matches(tree.root_node):
        names = captures.get("name", [])
        for capture, nodes in captures.items():
            if capture.startswith("definition.") and names:
                node, kind = nodes[0], capture.removeprefix("definition.")
                key = (node.start_byte, node.end_byte)
                if key not in defs or kind == "method":
                    defs[key] = (node, names[0], kind)
            elif capture == "reference.call" and names:
                calls.append((nodes[0], text_of(names[0])))
    open_: list[Symbol] = []
    spans: list[tuple[int, int, Symbol]] = []
    for (start, end), (node, name_node, kind) in sorted(
        defs.items(), key=lambda i: (i[0][0], -i[0][1])
    ):
        while open_ and open_[-1].end <= offsets.char(start):
            open_.pop()
        parent = open_[-1] if open_ else None
        owner = _owner(node, language)
        scope = (
            f"{found.module}.{owner}" if owner else (parent.qualified if parent else found.module)
        )
        container = kind in _CONTAINERS
        symbol = Symbol(
            name=text_of(name_node),
            qualified=f"{scope}.{text_of(name_node)}",
            kind="class"
            if container
            else "method"
            if owner or kind == "method" or (parent and parent.kind == "class")
            else "function",
            start=offsets.char(start),
            end=offsets.char(end),
            lines=(node.start_point[0] + 1, node.end_point[0] + 1),
            signature=" ".join(text_of(node).split("{", 1)[0].split("\n", 1)[0].split()),
            parent=parent.qualified if parent else (f"{found.module}.{owner}" if owner else None),
        )
        found.symbols.append(symbol)
        spans.append((symbol.start, symbol.end, symbol))
        if container or symbol.kind in ("function", "method"):
            open_.append(symbol)
    for node, callee in calls:
        at = offsets.char(node.start_byte)
        inside = [s for start, end, s in spans if start <= at < end]
        caller = min(inside, key=lambda s: s.end - s.start).qualified if inside else found.module
        found.calls.append(Call(caller, callee, node.start_point[0] + 1))
    _imports(found, tree.root_node)
    return found


def _owner(node: Any, language: str) -> str | None:
    """The type a Go method (its receiver) or a Rust method (its ``impl``) belongs to."""
    place = None
    if language == "go":
        place = node.child_by_field_name("receiver")
    elif language == "rust":
        parent = node.parent
        while parent is not None and parent.type != "impl_item":
            parent = parent.parent
        place = parent.child_by_field_name("type") if parent is not None else None
    for child in _walk(place) if place is not None else []:
        if child.type == "type_identifier":
            return text_of(child)
    return None


def _walk(node: Any) -> list[Any]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(reversed(current.children))
    return found


def _java_module(text: str) -> str | None:
    """A Java file's package (its classes are named in it)."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("package ") and line.endswith(";"):
            return line[8:-1].strip()
    return None


def _string(node: Any) -> str:
    return text_of(node).strip("\"'`")


def _imports(found: CodeFile, root: Any) -> None:
    for node in _walk(root):
        line = node.start_point[0] + 1
        if node.type == "export_statement" and any(c.type == "default" for c in node.children):
            _default_export(found, node)
        if node.type == "import_statement" and found.language in (
            "javascript",
            "typescript",
            "tsx",
        ):
            source = node.child_by_field_name("source")
            if source is not None:
                _js_import(found, _string(source), node, line)
        elif node.type == "call_expression" and found.language in (
            "javascript",
            "typescript",
            "tsx",
        ):
            function, arguments = (
                node.child_by_field_name("function"),
                node.child_by_field_name("arguments"),
            )
            if function is not None and text_of(function) == "require" and arguments is not None:
                first = arguments.named_children[0] if arguments.named_children else None
                if first is not None and first.type == "string":
                    _js_import(found, _string(first), None, line)
        elif node.type == "import_spec" and found.language == "go":
            path_node = node.child_by_field_name("path")
            if path_node is not None:
                path = _string(path_node)
                alias = node.child_by_field_name("name")
                bound = text_of(alias) if alias is not None else path.rsplit("/", 1)[-1]
                found.imports.append(Import(path, None, bound, False, line))
        elif node.type == "use_declaration" and found.language == "rust":
            argument = text_of(node.child_by_field_name("argument") or node)
            head = argument.split("::", 1)[0]
            internal = head in ("crate", "self", "super")
            module = argument.split("::{", 1)[0] if internal else head
            found.imports.append(Import(module, None, argument.rsplit("::", 1)[-1], internal, line))
        elif node.type == "import_declaration" and found.language == "java":
            name = (
                text_of(node)
                .removeprefix("import")
                .removesuffix(";")
                .replace("static ", "")
                .strip()
            )
            top = found.module.split(".")[0]
            internal = name.split(".")[0] == top and "." in found.module
            module = name if internal else ".".join(name.split(".")[:2])
            found.imports.append(Import(module, None, name.rsplit(".", 1)[-1], internal, line))


def _default_export(found: CodeFile, node: Any) -> None:
    """``export default`` of a function or class declared there, or of a name."""
    declared = node.child_by_field_name("declaration")
    named = declared.child_by_field_name("name") if declared is not None else None
    value = node.child_by_field_name("value")
    if named is None and value is not None and value.type == "identifier":
        named = value
    if named is not None:
        found.default = f"{found.module}.{text_of(named)}"


def _js_import(found: CodeFile, source: str, node: Any, line: int) -> None:
    """One JavaScript or TypeScript import of ``source``, with the names it binds."""
    if source.startswith("."):
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(found.path), source))
        stem = PurePosixPath(joined)
        if stem.suffix in _STRIP:
            stem = stem.with_suffix("")
        module = str(stem.parent) if stem.name in _INDEX_NAMES else str(stem)
        internal = True
    else:
        parts = source.split("/")
        module = "/".join(parts[:2]) if source.startswith("@") else parts[0]
        internal = False
    bound: list[tuple[str | None, str]] = []
    if node is not None:
        for child in _walk(node):
            if child.type == "import_specifier":
                name = child.child_by_field_name("name")
                alias = child.child_by_field_name("alias") or name
                bound.append((text_of(name), text_of(alias)))
            elif (
                child.type == "identifier"
                and child.parent is not None
                and child.parent.type == "import_clause"
            ):
                bound.append((None, text_of(child)))
            elif child.type == "namespace_import":
                ids = [c for c in child.named_children if c.type == "identifier"]
                if ids:
                    bound.append((None, text_of(ids[0])))
    for name, local in bound or [(None, module.rsplit("/", 1)[-1])]:
        found.imports.append(Import(module, name, local, internal, line))
