"""What a coding agent needs about a question on an indexed repository, assembled in one
piece (``graph.explore.code``): the definitions the question names or its best passages
show, each at ``path:first-last`` with its code, what calls it and what it calls (a call
linked by name only says so), and the notes beside them — the documents and memories the
question's retrieval found.

Symbols come two ways, named ones first:

* *by name*: a word of the question written as code (``reconnect()``, ``Cart.total``,
  ``parse_args``, ``HTTPAdapter``) that is the name or short name of a function, class or
  module of the graph: symbol-level questions ("what calls ``Cart.total``?");
* *by passage*: the definitions that start in the passages retrieval ranks best for the
  question, in their order: module-level questions ("how are prices computed?").
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from loregraph.ingest.code.stage import CODE_PATH, LANGUAGE
from loregraph.models import (
    CODE_LINES,
    Chunk,
    DocKind,
    Document,
    DocumentBundle,
    Entity,
    Relation,
    chunk_id,
    name_key,
)
from loregraph.retrieve.results.result import Passage, RetrievalResult
from loregraph.serial import Record
from loregraph.store.base import Store
from loregraph.text.tokens import count_tokens

SYMBOL_TYPES = frozenset({"Function", "Class"})
NAMED_TYPES = SYMBOL_TYPES | {"Module"}
MAX_CODE_LINES = 40
"""Lines of a definition's code shown at most (the rest is elided)."""
MAX_LINKS = 12
"""Callers and callees listed at most, each."""
NOTE_CHARS = 400
_LOCATION = re.compile(r"^(?P<path>.+?):(?P<first>\d+)-(?P<last>\d+) (?P<rest>.*)$", re.S)
_CODE_WORD = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\(\))?")


@dataclass(slots=True)
class CodeSymbol(Record):
    """A definition: where it is, its signature and docstring, its code (at most
    :data:`MAX_CODE_LINES` lines; a class's up to its first member), what contains it and
    what it contains (short names), what calls it and what it calls
    (``name (by name only)`` for a candidate link), and how it was found (``named`` or
    ``passage``)."""

    name: str
    type: str
    location: str
    signature: str
    code: str = ""
    within: str = ""
    members: list[str] = field(default_factory=list)
    callers: list[str] = field(default_factory=list)
    callees: list[str] = field(default_factory=list)
    found_by: str = "passage"


@dataclass(slots=True)
class CodeNote(Record):
    """A passage beside the code: a document's (``path:line`` for a source file) or a
    memory's, with its time."""

    title: str
    kind: str
    text: str
    at: datetime | None = None


@dataclass(slots=True)
class CodeContext(Record):
    """The definitions and notes for a question, and the whole as markdown (``text``,
    within the token budget asked for)."""

    question: str
    symbols: list[CodeSymbol] = field(default_factory=list)
    notes: list[CodeNote] = field(default_factory=list)
    text: str = ""


class Retrieves(Protocol):
    """What retrieves for a question (the engine's ``retrieve``)."""

    async def retrieve(
        self, question: str, *, scope: str | None = None, as_of: datetime | None = None
    ) -> RetrievalResult:
        """Passages, entities and relations for ``question``."""
        ...


def location_of(entity: Entity) -> tuple[str, int, int, str] | None:
    """A code entity's path, first and last line and the rest of its description
    (signature and docstring), read from its description; ``None`` when it has none."""
    found = _LOCATION.match(entity.description)
    if found is None:
        return None
    return found["path"], int(found["first"]), int(found["last"]), found["rest"]


def code_words(question: str) -> list[str]:
    """The words of ``question`` written as code: with a dot, an underscore, call
    parentheses or a capital inside (``Cart.total``, ``parse_args``, ``run()``,
    ``HTTPAdapter``), without the parentheses, in order, once each."""
    words: list[str] = []
    for match in _CODE_WORD.finditer(question):
        word = match.group()
        inner = word[1:]
        if "." in word or "_" in word or word.endswith("()") or inner != inner.lower():
            word = word.removesuffix("()").strip(".")
            if word and word not in words:
                words.append(word)
    return words


class _Reader:
    """The store's documents and bundles, each read once."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.documents: dict[str, Document | None] = {}
        self.bundles: dict[str, DocumentBundle | None] = {}

    async def document(self, document_id: str) -> Document | None:
        if document_id not in self.documents:
            self.documents[document_id] = await self.store.get_document(document_id)
        return self.documents[document_id]

    async def bundle(self, document_id: str) -> DocumentBundle | None:
        if document_id not in self.bundles:
            self.bundles[document_id] = await self.store.read_bundle(document_id)
        return self.bundles[document_id]

    async def lines(self, relation: Relation, first: int, last: int) -> str:
        """Lines ``first`` to ``last`` of the source file whose chunk states ``relation``
        first, read from the chunks those lines lie in only."""
        stated = await self.store.get_chunks([e.chunk_id for e in relation.evidence[:1]])
        document = await self.document(stated[0].document_id) if stated else None
        starts = document.metadata.get(CODE_LINES) if document is not None else None
        if document is None or not isinstance(starts, list) or not starts:
            return ""
        lowest = max(bisect_right(starts, first) - 1, 0)
        seqs = range(lowest, max(bisect_right(starts, last), lowest + 1))
        chunks = await self.store.get_chunks([chunk_id(document.id, seq) for seq in seqs])
        return code_lines(starts, chunks, first, last)


def code_lines(starts: list[int], chunks: list[Chunk], first: int, last: int) -> str:
    """Lines ``first`` to ``last`` of a stored source file, from its chunks (``starts``:
    the line each chunk starts on, by chunk number)."""
    lines: dict[int, str] = {}
    for chunk in sorted(chunks, key=lambda c: c.seq):
        if chunk.seq >= len(starts):
            continue
        pieces = chunk.text.split("\n")
        if chunk.text.endswith("\n"):  # the next line starts the next chunk
            pieces.pop()
        for offset, line in enumerate(pieces):
            number = int(starts[chunk.seq]) + offset
            if first <= number <= last and number not in lines:
                lines[number] = line
    return "\n".join(lines.get(n, "") for n in range(first, last + 1)).strip("\n")


async def code_context(
    store: Store,
    scope: str,
    question: str,
    result: RetrievalResult,
    *,
    limit: int = 5,
    budget: int = 2000,
) -> CodeContext:
    """The code context for ``question`` (see the module docstring), from the
    ``result`` of its retrieval: at most ``limit`` definitions, written within
    ``budget`` tokens."""
    reader = _Reader(store)
    found = CodeContext(question)
    chosen: dict[str, tuple[Entity, str]] = {}
    for entity in await _named(store, scope, question):
        chosen.setdefault(entity.id, (entity, "named"))
    for passage in result.passages:
        document = await reader.document(passage.document_id)
        if document is None:
            continue
        lines = passage.lines if LANGUAGE in document.metadata else None
        if lines is None:
            found.notes.append(_note(document, passage))
            continue
        defined = await _defined_in(reader, document, lines, _words(question))
        for entity in defined:
            chosen.setdefault(entity.id, (entity, "passage"))
        if not defined:  # code between definitions: shown as it is
            found.notes.append(_note(document, passage, lines[0]))
    found.notes = found.notes[:limit]
    for entity, how in list(chosen.values())[:limit]:
        found.symbols.append(await _symbol(store, reader, entity, how))
    found.text = render(found, budget)
    return found


async def _named(store: Store, scope: str, question: str) -> list[Entity]:
    """The functions, classes and modules the question names as code (a word called,
    ``code_context()``, or named as its module is, ``AxiosError`` in ``AxiosError.js``,
    is the module's definition of that name rather than the module, when there is one)."""
    words = code_words(question)
    keys = {name_key(word): word for word in words}
    found = await store.find_entities_by_key(scope, list(keys)) if keys else {}
    named: list[Entity] = []
    for key, word in keys.items():
        entity = found.get(key)
        short = word.rsplit(".", 1)[-1]
        module_named = entity is not None and re.split(r"[./]", entity.name)[-1] == short
        if (
            entity is not None
            and entity.type == "Module"
            and (module_named or f"{word}()" in question)
        ):
            inner = f"{entity.name}.{short}"
            entity = (await store.find_entities_by_key(scope, [name_key(inner)])).get(
                name_key(inner), entity
            )
        if entity is not None and entity.type in NAMED_TYPES:
            named.append(entity)
    return named


async def _defined_in(
    reader: _Reader, document: Document, lines: tuple[int, int], asked: set[str]
) -> list[Entity]:
    """The functions and classes whose definition starts within ``lines`` of a source
    file, those sharing the most words with the question (``asked``) first, then in line
    order."""
    bundle = await reader.bundle(document.id)
    if bundle is None:
        return []
    starts: list[tuple[int, int, Entity]] = []
    path = document.metadata.get(CODE_PATH, document.title)
    for write in bundle.entities:
        entity = write.entity
        where = location_of(entity) if entity.type in SYMBOL_TYPES else None
        if where and where[0] == path and lines[0] <= where[1] <= lines[1]:
            shared = len(asked & _words(f"{entity.name} {where[3]}"))
            starts.append((-shared, where[1], entity))
    return [entity for *_, entity in sorted(starts, key=lambda item: item[:2])]


def _words(text: str) -> set[str]:
    """The words of ``text`` (identifiers split at underscores and inner capitals), lower
    case, of three letters or more."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return {w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if len(w) >= 3}


async def _symbol(store: Store, reader: _Reader, entity: Entity, how: str) -> CodeSymbol:
    symbol = CodeSymbol(entity.name, entity.type, "", entity.description, found_by=how)
    relations = await store.entity_relations(
        entity.id, direction="both", types=["CALLS", "CONTAINS"]
    )
    ends = {e.id: e for e in await store.get_entities(_ends(relations, entity.id))}
    where = location_of(entity)
    members: list[tuple[int, str]] = []
    for relation in relations:
        incoming = relation.target_id == entity.id
        end = ends.get(relation.source_id if incoming else relation.target_id)
        if end is None:
            continue
        if relation.type == "CONTAINS":
            if not incoming:
                members.append(((location_of(end) or ("", 0))[1], end.name))
            elif not symbol.within:  # stated where it is defined
                symbol.within = end.name
                if where is not None:
                    await _show_code(symbol, where, reader, relation)
            continue
        said = end.name + (" (by name only)" if "by name only" in relation.fact else "")
        listed = symbol.callers if incoming else symbol.callees
        if len(listed) < MAX_LINKS:
            listed.append(said)
    symbol.members = [name.rsplit(".", 1)[-1] for _, name in sorted(members)][:MAX_LINKS]
    starts = [line for line, _ in members if line]
    if symbol.code and starts and where is not None:  # the header: its members listed
        symbol.code = "\n".join(symbol.code.split("\n")[: min(starts) - where[1]]).rstrip()
    return symbol


async def _show_code(
    symbol: CodeSymbol, where: tuple[str, int, int, str], reader: _Reader, relation: Relation
) -> None:
    path, first, last, symbol.signature = where
    symbol.location = f"{path}:{first}-{last}"
    shown = min(last, first + MAX_CODE_LINES - 1)
    code = await reader.lines(relation, first, shown)
    symbol.code = code + ("\n..." if code and shown < last else "")


def _ends(relations: list[Relation], own: str) -> list[str]:
    return sorted({r.source_id for r in relations} | {r.target_id for r in relations} - {own})


def _note(document: Document, passage: Passage, line: int = 0) -> CodeNote:
    memory = document.kind == DocKind.MEMORY
    title = f"{document.title}:{line}" if line else document.title
    text = passage.text.strip()
    text = text if len(text) <= NOTE_CHARS else text[: NOTE_CHARS - 1].rstrip() + "…"
    return CodeNote(title, "memory" if memory else "document", text, passage.document_at)


def render(found: CodeContext, budget: int) -> str:
    """The context as markdown: each definition with its place, links and code, then the
    notes, while they fit in ``budget`` tokens (at least the first definition is kept)."""
    parts = [f"# Code for: {found.question}"]
    if not found.symbols and not found.notes:
        parts.append("Nothing indexed matches the question.")
    for symbol in found.symbols:
        place = f" — {symbol.location}" if symbol.location else ""
        lines = [f"## {symbol.name} ({symbol.type}){place}"]
        if symbol.signature:
            lines.append(symbol.signature)
        if symbol.within:
            lines.append(f"- in: {symbol.within}")
        if symbol.members:
            lines.append(f"- members: {', '.join(symbol.members)}")
        if symbol.callers:
            lines.append(f"- called by: {', '.join(symbol.callers)}")
        if symbol.callees:
            lines.append(f"- calls: {', '.join(symbol.callees)}")
        if symbol.code:
            lines.append(f"```\n{symbol.code}\n```")
        _add(parts, "\n".join(lines), budget)
    notes = found.notes
    if notes:
        _add(parts, "## Notes", budget)
        for note in notes:
            when = f" ({note.at.date().isoformat()})" if note.at else ""
            said = note.text if note.kind == "memory" else f"{note.title}: {note.text}"
            _add(parts, f"- [{note.kind}{when}] {said}", budget)
    return "\n\n".join(parts)


def _add(parts: list[str], piece: str, budget: int) -> None:
    if len(parts) <= 1 or count_tokens("\n\n".join([*parts, piece])) <= budget:
        parts.append(piece)
