"""A folder's git history as memories and people (``loregraph ingest PATH --git``).

Each commit (read by :mod:`.gitlog`) becomes a memory at its author time, its text one
passage: ``Ann Lee changed src/shop/cart.py (Cart.total, Cart.add) and README.md on
2024-03-01 (commit 1a2b3c4d5e): Round totals`` and the message's body. Its graph, known
rather than extracted: the author is a ``Person`` who ``AUTHORED`` each file the commit
touched (a deleted one excepted) and each definition whose lines it changed — the
innermost class or function around each changed line of the file as the commit left it
(parsed as the code graph parses files, so that the names are the code graph's:
``shop.cart.Cart.total``); lines removed count for the definition around both lines they
were removed between. Every name is exact (never merged with a close one); the code the
message names (``Cart.add``, ``price_of()``) is resolved as a memory's names are, so a name
written as code links to the code graph's definition.

Ownership: of each file still in the folder, the author of most of the commits read that
touched it (a tie: who touched it last) ``OWNS`` it, stated by one line of a generated
document (``src/shop/cart.py: Ann Lee (3 of 4 commits)``) that each run replaces.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from loregraph.ingest.code.gitlog import Commit, GitFolder, Touched
from loregraph.ingest.code.graph import CHUNK_CHARS, Builder, code_chunks
from loregraph.ingest.code.languages import LOCKFILE, MANIFEST, available, language_of
from loregraph.ingest.code.model import CodeFile, Symbol
from loregraph.ingest.code.stage import parse_code
from loregraph.ingest.extract.components import code_words
from loregraph.ingest.types import (
    CandidateEntity,
    ExtractionResult,
    Occurrence,
    SourceDocument,
    TextChunk,
)
from loregraph.text.entity_types import CLASS, FILE, FUNCTION, PERSON

AUTHORED = "AUTHORED"
OWNS = "OWNS"
COMMIT_TAG = "commit"
"""The tag of every commit memory."""
FILES_NAMED = 12
"""The files a commit's passage names (the others counted); its graph links them all."""
DEFINITIONS_NAMED = 8
"""The definitions of one file a commit's passage names (the others counted)."""


@dataclass(slots=True)
class FileChange:
    """A file a commit touched and the definitions whose lines it changed."""

    touched: Touched
    module: str = ""
    definitions: list[Symbol] = field(default_factory=list)


@dataclass(slots=True)
class CommitRead:
    """A commit as a memory: its ``text`` (one passage), chunks and graph."""

    commit: Commit
    text: str
    chunks: list[TextChunk]
    extracted: ExtractionResult


def commit_source(sha: str) -> str:
    """The identity of a commit's memory: reading the commit again finds it."""
    return f"git:{sha}"


def read_commit(folder: GitFolder, commit: Commit, size: int = CHUNK_CHARS) -> CommitRead:
    """``commit`` as a memory (see the module docstring), in chunks of at most ``size``
    characters."""
    ranges = folder.changed_lines(commit.sha)
    changes = [
        _definitions_changed(folder, commit.sha, touched, ranges.get(touched.path, []))
        for touched in commit.touched
    ]
    text = commit_text(commit, changes)
    chunks = code_chunks(CodeFile(commit.sha, "git", commit.sha), text, size)
    b = Builder(CodeFile(commit.sha, "git", commit.sha), text, chunks)
    person = b.entity(commit.author, PERSON, _person(commit), 1)
    for change in changes:
        if change.touched.how == "deleted":
            continue
        b.relate(person, b.entity(change.touched.path, FILE, line=1), AUTHORED, 1)
        for symbol in change.definitions:
            kind = CLASS if symbol.kind == "class" else FUNCTION
            shown = _shown(symbol, change.module)
            b.relate(person, b.entity(symbol.qualified, kind, line=1, surface=shown), AUTHORED, 1)
    _named_in_message(b, text, text.index(f"(commit {commit.sha[:10]})"))
    for relation in b.relations:  # at the commit's time, whatever dates its message gives
        relation.at = commit.at
    extracted = ExtractionResult(list(b.entities.values()), b.relations, {"files": len(changes)})
    return CommitRead(commit, text, chunks, extracted)


def _named_in_message(b: Builder, text: str, start: int) -> None:
    """The code its message names (``Cart.add``, ``price_of()``, ``src/app.py``): names
    resolved as a memory's are, so that one written as code links to the code graph's
    definition known by it (:mod:`loregraph.ingest.resolve.codenames`)."""
    for first, end, kind in code_words(text[start:]):
        word = text[start + first : start + end]
        if word in b.entities:
            continue
        seq = b.chunk_of_line(text.count("\n", 0, start + first) + 1)
        b.entities[word] = CandidateEntity(
            word, kind, salience=3.0, occurrences=[Occurrence(seq, word)]
        )


def commit_text(commit: Commit, changes: Sequence[FileChange]) -> str:
    """The commit's passage: who changed what, when, and its message."""
    named = [_file_part(change) for change in changes[:FILES_NAMED]]
    if len(changes) > FILES_NAMED:
        named.append(f"{len(changes) - FILES_NAMED} more files")
    what = _listed(named) or "files"
    said = f": {commit.subject}" if commit.subject else ""
    head = f"{commit.author} changed {what} on {commit.at.date().isoformat()} "
    head += f"(commit {commit.sha[:10]}){said}"
    return f"{head}\n\n{commit.body}".strip() if commit.body else head.strip()


def changed_definitions(
    symbols: Sequence[Symbol], ranges: Sequence[tuple[int, int]]
) -> list[Symbol]:
    """The definitions whose own lines (not those of a definition inside them) the new
    version's line ranges ``(first, count)`` changed, in the file's order; a range of
    count 0 (lines removed after ``first``) changes the innermost definition holding both
    ``first`` and the line after it."""
    inner: dict[str, list[Symbol]] = {}
    for symbol in symbols:
        if symbol.parent is not None:
            inner.setdefault(symbol.parent, []).append(symbol)
    hit: set[str] = set()
    for first, count in ranges:
        if count == 0:
            around = [s for s in symbols if s.lines[0] <= first and first + 1 <= s.lines[1]]
            if around:
                hit.add(min(around, key=lambda s: s.lines[1] - s.lines[0]).qualified)
            continue
        last = first + count - 1
        for symbol in symbols:
            start, end = max(first, symbol.lines[0]), min(last, symbol.lines[1])
            if start > end:
                continue
            covered = sum(
                max(0, min(end, c.lines[1]) - max(start, c.lines[0]) + 1)
                for c in inner.get(symbol.qualified, [])
            )
            if covered < end - start + 1:
                hit.add(symbol.qualified)
    return [s for s in sorted(symbols, key=lambda s: s.lines) if s.qualified in hit]


@dataclass(frozen=True, slots=True)
class Owner:
    """The author who owns a file: ``commits`` of the ``total`` read that touched it."""

    path: str
    author: str
    commits: int
    total: int


def owners(commits: Sequence[Commit], exists: Callable[[str], bool]) -> list[Owner]:
    """Who owns each file that ``exists`` (see the module docstring), by path; ``commits``
    newest first."""
    counts: dict[str, Counter[str]] = {}
    latest: dict[tuple[str, str], int] = {}
    for age, commit in enumerate(commits):
        for touched in commit.touched:
            counts.setdefault(touched.path, Counter())[commit.author] += 1
            latest.setdefault((touched.path, commit.author), age)
    found = []
    for path in sorted(counts):
        if not exists(path):
            continue
        tally = counts[path]
        author = min(tally, key=lambda a: (-tally[a], latest[(path, a)]))
        found.append(Owner(path, author, tally[author], sum(tally.values())))
    return found


def owners_document(
    label: str, commits: Sequence[Commit], exists: Callable[[str], bool], size: int = CHUNK_CHARS
) -> SourceDocument | None:
    """The generated document that states who owns each file of the folder ``label`` (an
    absolute path: its identity is ``git:owners:<label>``), valid at the newest commit's
    time; ``None`` when no file has an owner."""
    found = owners(commits, exists)
    if not found:
        return None
    lines = [
        f"Who owns each file of {label}: the author of most of its {len(commits)} latest "
        "commits read from git.",
        *(f"{o.path}: {o.author} ({o.commits} of {o.total} commits)" for o in found),
    ]
    text = "\n".join(lines)
    chunks = code_chunks(CodeFile(label, "git", label), text, size)
    b = Builder(CodeFile(label, "git", label), text, chunks)
    for number, owner in enumerate(found, 2):
        person = b.entity(owner.author, PERSON, line=number)
        b.relate(person, b.entity(owner.path, FILE, line=number), OWNS, number)
    newest = max(c.at for c in commits)
    for relation in b.relations:
        relation.at = newest
    extracted = ExtractionResult(list(b.entities.values()), b.relations, {"owners": len(found)})
    return SourceDocument(
        title=f"Owners of the files of {label}",
        text=text,
        source=f"git:owners:{label}",
        metadata={"generated": "git owners", "commits": len(commits)},
        valid_at=newest,
        prepared=(chunks, extracted),
    )


def _definitions_changed(
    folder: GitFolder, sha: str, touched: Touched, ranges: list[tuple[int, int]]
) -> FileChange:
    """The definitions of a touched file whose lines the commit changed (none for a file
    that is not source code, or without the ``code`` extra)."""
    language = language_of(touched.path)
    code = language is not None and language not in (MANIFEST, LOCKFILE) and available()
    if touched.how == "deleted" or not ranges or not code or language is None:
        return FileChange(touched)
    text = folder.text_at(sha, touched.path)
    if text is None:
        return FileChange(touched)
    parsed = parse_code(touched.path, text, language)
    return FileChange(touched, parsed.module, changed_definitions(parsed.symbols, ranges))


def _file_part(change: FileChange) -> str:
    """A file in a commit's passage, with the definitions changed in it."""
    names = [_shown(s, change.module) for s in change.definitions[:DEFINITIONS_NAMED]]
    if len(change.definitions) > DEFINITIONS_NAMED:
        names.append(f"{len(change.definitions) - DEFINITIONS_NAMED} more")
    touched = change.touched
    notes = {
        "added": ["new file"],
        "deleted": ["deleted"],
        "renamed": [f"renamed from {touched.former}"],
    }.get(touched.how, [])
    notes += [", ".join(names)] if names else []
    return f"{touched.path} ({'; '.join(notes)})" if notes else touched.path


def _shown(symbol: Symbol, module: str) -> str:
    """A definition as a passage names it: its name within its module (``Cart.total``)."""
    return symbol.qualified.removeprefix(f"{module}.") if module else symbol.qualified


def _listed(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _person(commit: Commit) -> str:
    return f"author of commits (git, {commit.email})" if commit.email else "author of commits (git)"
