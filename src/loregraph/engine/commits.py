"""A folder's git history ingested with its files (``AsyncGraph.ingest(..., git=True)``).

Each commit not read before becomes a memory (written as ``remember`` writes one, its
identity ``git:<sha>`` so that a commit is read once), with its author and what it
changed as its graph (:mod:`loregraph.ingest.code.history`); then the folder's owners
document, generated again each run, replaces the one before.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from loregraph.access import Principal
from loregraph.engine.memories import PLANNED_SKEW, NewMemory, memory_document
from loregraph.errors import InputError
from loregraph.ingest.code.gitlog import Commit, GitFolder
from loregraph.ingest.code.history import (
    COMMIT_TAG,
    commit_source,
    owners_document,
    read_commit,
)
from loregraph.ingest.types import SourceDocument
from loregraph.models import utcnow
from loregraph.store.base import Store

GIT_LIMIT = 300
"""The newest commits of a folder read by default."""


@dataclass(slots=True)
class History:
    """A folder's commits to read, newest first."""

    folder: GitFolder
    label: str
    commits: list[Commit]


def open_histories(paths: Sequence[str | Path], limit: int) -> list[History]:
    """The newest ``limit`` commits of each folder of ``paths`` (stdin, ``-``, has none).
    Raises :class:`~loregraph.errors.InputError` for a limit below 1, a path that is not a
    folder of a git work tree, or no ``git`` program: before anything is written."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InputError(f"the git limit must be a whole number of commits from 1, not {limit!r}")
    histories = []
    for path in paths:
        if str(path) == "-":
            continue
        folder = GitFolder.open(path)
        histories.append(History(folder, str(Path(path).resolve()), folder.commits(limit)))
    return histories


async def known_commits(store: Store, scope: str) -> set[str]:
    """The identities of the commits the scope holds already."""
    return {d.source for d in await store.list_documents(scope) if d.source.startswith("git:")}


def commit_documents(
    histories: Sequence[History],
    known: set[str],
    size: int,
    acting: Principal | None = None,
) -> Iterator[SourceDocument]:
    """Each commit of ``histories`` not ``known`` as a memory, oldest first, in chunks of
    at most ``size`` characters; after each folder's commits, its owners document."""
    for history in histories:
        for commit in reversed(history.commits):
            if commit_source(commit.sha) not in known:
                yield _memory(history.folder, commit, size, acting)
        owners = owners_document(history.label, history.commits, history.folder.exists, size)
        if owners is not None:
            yield owners


def _memory(
    folder: GitFolder, commit: Commit, size: int, acting: Principal | None
) -> SourceDocument:
    made = read_commit(folder, commit, size)
    new = NewMemory(
        made.text,
        at=commit.at,
        source=commit_source(commit.sha),
        tags=[COMMIT_TAG],
        metadata={
            "commit": commit.sha,
            "author": commit.author,
            "email": commit.email,
            "files": [t.path for t in commit.touched],
        },
        planned=commit.at > utcnow() + PLANNED_SKEW,  # a clock ahead: not refused
    )
    document = memory_document(new, acting)
    if document.text != made.text:  # the chunks are of the text as remembered
        raise InputError(f"commit {commit.sha}: its passage changed when remembered")
    document.source = commit_source(commit.sha)
    document.prepared = (made.chunks, made.extracted)
    return document
