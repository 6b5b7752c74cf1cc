"""A parsed source file as the pipeline takes a document: its chunks (one a definition)
and the entities and relations it states.

Entities (each named so that every file names it alike, and matched only by that name):

* ``File``: the file's path; ``Module``: the module it defines (``click.core``) and, for
  Python, each package above it (``click``); ``Class``, ``Function`` (functions and
  methods): qualified names (``click.core.Command.invoke``), described by their location
  (``src/click/core.py:120-180``), signature and docstring, with their short name (and a
  method's ``Class.method``) as aliases; ``Library``: a package imported from outside the
  repository (``requests``, ``@scope/pkg``); ``Config``: an environment variable the file
  reads, or a setting a settings file sets (``database.url``, described by its value's
  type and value).

Relations: ``File DEFINES Module``; ``Module CONTAINS`` its top-level definitions and each
package its modules; ``Class CONTAINS`` its methods (a function its nested functions);
``File IMPORTS`` a module or library; ``Class INHERITS`` a base; ``CALLS`` from the
definition a call is in (or the module) to what it calls; ``File CONFIGURED_BY`` an environment
variable it reads;
from a manifest, ``File DEFINES Module`` (the project) and ``Module DEPENDS_ON Library``;
from a lockfile, ``Library DEPENDS_ON Library`` (a package of the project itself is its
``Module``), each locked package described by its version; from a settings file, ``File
DEFINES Config`` for each setting. A file that reads an environment variable is also
``CONFIGURED_BY`` each setting of the folder's settings files known by that variable's
name (``DATABASE_URL`` is ``database.url``; :func:`.settings_files.env_name`), with
confidence :data:`BY_ENV_NAME`.
A call or base is linked when it resolves: a definition of the same file or ``self``'s
class (*exact*, confidence 1), or a name imported from a module of the repository. When
the folder's Python files were indexed first (:mod:`.index`), such a name is followed to
its definition — defined where imported (0.95), re-exported (0.9), or inherited by
``self``'s class from a base in another file (0.9) — and not linked when the repository
defines nothing by it; without the index (a file read alone) it is linked as written (*via
import*, 0.8). A method called on a receiver whose type is not known (``resp.json()``,
``self.adapter.send()``) is linked *by name only* to the repository's methods of that
name when there are at most three (:data:`.resolver.MAX_CANDIDATES`), ranked by whether
the receiver's name and the method's class name contain one another (``adapter`` and
``HTTPAdapter``), then by how near their module is, each with a low confidence (0.5 for
the only one; 0.25 and 0.17 for two) and its rank in the fact (``candidate 1 of 2``):
candidates, not facts. A method of Python's built-in types and files (``read``,
``update``) gets none: the receiver may well be one. Calls of names the file imports from
outside (libraries) or that nothing defines (built-ins) are not linked. Each relation's
evidence is the line that states it.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from loregraph.ingest.code.lockfiles import Locked
from loregraph.ingest.code.manifests import Manifest
from loregraph.ingest.code.model import CodeFile, Symbol
from loregraph.ingest.code.resolver import EXACT, Resolver
from loregraph.ingest.code.settings_files import Setting
from loregraph.ingest.types import (
    CandidateEntity,
    CandidateRelation,
    CodeIndex,
    ExtractionResult,
    Occurrence,
    RelationEvidence,
    TextChunk,
)
from loregraph.models import name_key
from loregraph.text.entity_types import CLASS, CONFIG, FILE, FUNCTION, LIBRARY, MODULE
from loregraph.text.tokens import count_tokens

CHUNK_CHARS = 1000
"""The default longest chunk of code, in characters (the prose chunks' default size)."""
BY_ENV_NAME = 0.9
"""The confidence of a setting linked to a file by the environment variable it reads."""


def code_chunks(code: CodeFile, text: str, size: int = CHUNK_CHARS) -> list[TextChunk]:
    """The file cut at its definitions into chunks of at most ``size`` characters: the
    definitions (a class too long for one chunk cut into its header and methods) and the
    code between them, each whole, packed in order while they fit; a piece longer than
    ``size`` alone cut at line ends. Together the chunks cover the text."""
    pieces: list[tuple[int, int]] = []
    at = 0
    for start, end in _units([s for s in code.symbols if s.parent is None], code.symbols, text):
        if start > at:
            pieces.append((at, start))
        pieces.append((start, end))
        at = max(at, end)
    pieces.append((at, len(text)))
    spans: list[tuple[int, int]] = []
    for start, end in pieces:
        for span in _lines_within(text, start, end, size):
            if spans and span[1] - spans[-1][0] <= size:
                spans[-1] = (spans[-1][0], span[1])
            else:
                spans.append(span)
    chunks: list[TextChunk] = []
    for start, end in spans:
        piece = text[start:end]
        if piece.strip():
            chunks.append(TextChunk(len(chunks), start, end, piece, count_tokens(piece)))
    return chunks


def _units(tops: list[Symbol], symbols: list[Symbol], text: str) -> list[tuple[int, int]]:
    """The definitions to keep whole where they fit, in order, each from the start of its
    line (a class longer than :data:`CHUNK_CHARS` as its header and its members)."""

    def line_start(offset: int) -> int:
        return text.rfind("\n", 0, offset) + 1

    units: list[tuple[int, int]] = []
    for symbol in sorted(tops, key=lambda s: s.start):
        inner = [s for s in symbols if s.parent == symbol.qualified]
        if symbol.end - symbol.start <= CHUNK_CHARS or symbol.kind != "class" or not inner:
            units.append((line_start(symbol.start), symbol.end))
            continue
        at = line_start(symbol.start)
        for member in sorted(inner, key=lambda s: s.start):
            start = max(line_start(member.start), at)
            if start > at:
                units.append((at, start))
            units.append((start, member.end))
            at = member.end
        if symbol.end > at:
            units.append((at, symbol.end))
    return units


def _lines_within(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    """``text[start:end]`` in pieces of at most ``size`` characters, cut after a line where
    one fits (a single longer line is cut at ``size``)."""
    spans: list[tuple[int, int]] = []
    while end - start > size:
        cut = text.rfind("\n", start, start + size)
        cut = cut + 1 if cut >= start else start + size
        spans.append((start, cut))
        start = cut
    if end > start:
        spans.append((start, end))
    return spans


class Builder:
    """The candidates of one file (or of another text whose graph is known, a commit read
    from git: :mod:`.history`), each named exactly (never merged by a close name), each
    relation with the line that states it."""

    def __init__(self, code: CodeFile, text: str, chunks: list[TextChunk]) -> None:
        self.code, self.text, self.chunks = code, text, chunks
        self._lines = text.splitlines()
        self.entities: dict[str, CandidateEntity] = {}
        self.relations: list[CandidateRelation] = []
        lengths = (len(line) + 1 for line in text.split("\n"))
        self._line_starts = list(accumulate(lengths, initial=0))[:-1]
        self._chunk_starts = [chunk.start for chunk in chunks]  # in order, not overlapping

    def chunk_of_line(self, line: int) -> int:
        """The chunk that holds line ``line`` (1-based)."""
        offset = self._line_starts[min(max(line - 1, 0), len(self._line_starts) - 1)]
        at = bisect_right(self._chunk_starts, offset) - 1
        if at >= 0 and offset < self.chunks[at].end:
            return self.chunks[at].seq
        return 0

    def line(self, number: int) -> str:
        """Line ``number`` (1-based) without the blank space around it."""
        return self._lines[number - 1].strip() if 0 < number <= len(self._lines) else ""

    def entity(
        self, name: str, kind: str, description: str = "", line: int = 0, surface: str = ""
    ) -> str:
        """The entity ``name`` of type ``kind`` (made on first use), mentioned as
        ``surface`` on ``line`` when given; returns ``name``."""
        if name not in self.entities:
            self.entities[name] = CandidateEntity(
                name, kind, description, salience=3.0, mentions=0, exact=True
            )
        found = self.entities[name]
        if description and not found.description:
            found.description = description
        if line:
            found.mentions += 1
            found.occurrences.append(Occurrence(self.chunk_of_line(line), surface or name))
        return name

    def known_as(self, name: str, line: int, surface: str) -> None:
        """Another name ``name`` is known by (an alias), not another mention of it."""
        self.entities[name].occurrences.append(Occurrence(self.chunk_of_line(line), surface))

    def relate(
        self,
        source: str,
        target: str,
        kind: str,
        line: int,
        confidence: float = EXACT,
        how: str = "",
    ) -> None:
        """``source`` ``kind`` ``target``, stated by ``line``."""
        fact = f"{source} {kind.lower().replace('_', ' ')} {target}" + (f" ({how})" if how else "")
        sentence = self.line(line) or fact
        evidence = [RelationEvidence(self.chunk_of_line(line), sentence, 0, 0)]
        self.relations.append(CandidateRelation(source, target, kind, fact, confidence, evidence))


def code_extraction(
    code: CodeFile, text: str, chunks: list[TextChunk], index: CodeIndex | None = None
) -> ExtractionResult:
    """The entities and relations of a parsed file (see the module docstring), names from
    other files resolved through the repository's ``index`` when given."""
    b = Builder(code, text, chunks)
    lines = text.count("\n") + 1
    file = b.entity(code.path, FILE, f"{code.language} source file, {lines} lines", 1)
    module = b.entity(code.module, MODULE, code.doc, 1)
    b.relate(file, module, "DEFINES", 1)
    if code.language == "python":
        parts = code.module.split(".")
        for depth in range(len(parts) - 1, 0, -1):
            package = b.entity(".".join(parts[:depth]), MODULE)
            b.relate(package, ".".join(parts[: depth + 1]), "CONTAINS", 1)
    by_name = {s.qualified: s for s in code.symbols}
    for symbol in code.symbols:
        kind = CLASS if symbol.kind == "class" else FUNCTION
        description = f"{code.path}:{symbol.lines[0]}-{symbol.lines[1]} {symbol.signature}"
        description += f": {symbol.doc}" if symbol.doc else ""
        b.entity(symbol.qualified, kind, description, symbol.lines[0], symbol.name)
        if symbol.parent in by_name:  # a method is also known as Class.method
            owner = symbol.parent.rsplit(".", 1)[-1]
            b.known_as(symbol.qualified, symbol.lines[0], f"{owner}.{symbol.name}")
        parent = symbol.parent if symbol.parent in by_name else module
        if symbol.parent is not None and symbol.parent not in by_name:  # a Go/Rust owner type
            parent = b.entity(
                symbol.parent, CLASS, line=symbol.lines[0], surface=symbol.parent.rsplit(".", 1)[-1]
            )
        b.relate(parent, symbol.qualified, "CONTAINS", symbol.lines[0])
    imported = _imports(b, file)
    resolve = Resolver(code, imported, index)
    for symbol in code.symbols:
        for base in symbol.bases:
            target = resolve(base, symbol)
            if target is not None:
                b.entity(target[0], CLASS, line=symbol.lines[0], surface=base)
                b.relate(symbol.qualified, target[0], "INHERITS", symbol.lines[0], *target[1:])
    seen: set[tuple[str, str]] = set()
    for call in code.calls:
        caller = call.caller if call.caller in by_name else module
        where = by_name.get(call.caller)
        target = resolve(call.callee, where)
        for name, confidence, how in [target] if target else resolve.by_name(call.callee, where):
            if name == caller or (caller, name) in seen:
                continue
            seen.add((caller, name))
            known = by_name.get(name)
            short = name.rsplit(".", 1)[-1]
            is_class = known.kind == "class" if known else short[:1].isupper()
            b.entity(name, CLASS if is_class else FUNCTION, line=call.line, surface=short)
            b.relate(caller, name, "CALLS", call.line, confidence, how)
    for variable, line in code.settings.items():
        b.entity(variable, CONFIG, "an environment variable", line)
        b.relate(file, variable, "CONFIGURED_BY", line)
        for setting in index.settings_named(variable) if index is not None else []:
            if name_key(setting) != name_key(variable):
                b.entity(setting, CONFIG, line=line)
                b.relate(file, setting, "CONFIGURED_BY", line, BY_ENV_NAME, f"as {variable}")
    return ExtractionResult(list(b.entities.values()), b.relations, {"symbols": len(code.symbols)})


def manifest_extraction(manifest: Manifest, text: str, chunks: list[TextChunk]) -> ExtractionResult:
    """A manifest's ``File DEFINES Module`` (the project) and ``Module DEPENDS_ON
    Library`` for each declared dependency, with the line that declares it."""
    b = Builder(CodeFile(manifest.path, "manifest", manifest.project), text, chunks)
    file = b.entity(manifest.path, FILE, "a manifest of declared dependencies", 1)
    project = b.entity(manifest.project, MODULE, line=1)
    b.relate(file, project, "DEFINES", 1)
    lines = [line.strip() for line in text.splitlines()]
    for dep in manifest.dependencies:
        line = next((n for n, said in enumerate(lines, 1) if dep.said and dep.said in said), 1)
        target = b.entity(dep.name, LIBRARY, line=line)
        b.relate(project, target, "DEPENDS_ON", line, how=dep.version)
    return ExtractionResult(list(b.entities.values()), b.relations, {})


def lockfile_extraction(
    packages: list[tuple[int, Locked]], path: str, text: str, chunks: list[TextChunk]
) -> ExtractionResult:
    """A lockfile's ``DEPENDS_ON`` from each locked package (given with its line of the
    summary ``text``) to each package it depends on, with that line as evidence."""
    b = Builder(CodeFile(path, "lockfile", path), text, chunks)
    own = {p.name for _, p in packages if p.own}
    versions: dict[str, list[str]] = {}
    for _, package in packages:
        known = versions.setdefault(package.name, [])
        if package.version:
            known.append(package.version)
    seen: set[tuple[str, str]] = set()
    for line, package in packages:
        locked = ", ".join(versions[package.name])
        about = f"locked at {locked} ({path.rsplit('/', 1)[-1]})" if locked else ""
        source = b.entity(package.name, MODULE if package.own else LIBRARY, about, line)
        for name in package.dependencies:
            if (source, name) not in seen and name != source:
                seen.add((source, name))
                target = b.entity(name, MODULE if name in own else LIBRARY, line=line)
                b.relate(source, target, "DEPENDS_ON", line)
    return ExtractionResult(list(b.entities.values()), b.relations, {"locked": len(packages)})


def settings_extraction(
    settings: list[Setting], path: str, text: str, chunks: list[TextChunk]
) -> ExtractionResult:
    """A settings file's ``File DEFINES Config`` for each setting it sets, described by
    :meth:`~.settings_files.Setting.describe`, with the line that sets it."""
    b = Builder(CodeFile(path, "settings", path), text, chunks)
    file = b.entity(path, FILE, f"a settings file, {len(settings)} settings", 1)
    for setting in settings:
        name = b.entity(setting.name, CONFIG, setting.describe(path), setting.line)
        b.relate(file, name, "DEFINES", setting.line)
    return ExtractionResult(list(b.entities.values()), b.relations, {"settings": len(settings)})


def _imports(b: Builder, file: str) -> dict[str, str]:
    """Link the file to what it imports; returns each bound name's qualified target for
    names imported from the repository."""
    bound: dict[str, str] = {}
    for item in b.code.imports:
        if item.internal:
            short = item.module.rsplit("/", 1)[-1].rsplit(".", 1)[-1]
            target = b.entity(item.module, MODULE, line=item.line, surface=short)
            if item.bound != "*":
                bound[item.bound] = item.target
        else:
            top = item.module if item.module.startswith("@") else item.module.split(".")[0]
            target = b.entity(top, LIBRARY, line=item.line, surface=top)
        b.relate(file, target, "IMPORTS", item.line)
    return bound
