"""A folder's git history, read with the ``git`` program (nothing touches the network).

:class:`GitFolder` lists the commits that changed files below a folder of a work tree,
newest first (merges left out), each with the files it touched (paths relative to the
folder, as the code graph names files); for one commit, the lines each file's new version
changed (the hunks of ``git show --unified=0``); and a file's text as a commit left it.
Renames are followed (a renamed file is touched under its new path).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from loregraph.errors import InputError

_RECORD, _FIELD, _END = "\x1e", "\x1f", "\x1d"
_FORMAT = f"--format={_RECORD}%H{_FIELD}%aN{_FIELD}%aE{_FIELD}%aI{_FIELD}%s{_FIELD}%b{_END}"
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_DIFF = ("--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", "-M")
TIMEOUT = 60.0
"""Seconds one git command may take."""


@dataclass(frozen=True, slots=True)
class Touched:
    """A file a commit touched: its ``path`` (the new one when renamed) and how (``added``,
    ``modified``, ``deleted``, ``renamed``; ``former`` is a renamed file's old path)."""

    path: str
    how: str
    former: str = ""


@dataclass(frozen=True, slots=True)
class Commit:
    """A commit: its ``sha``, author (``author`` as written, ``email``), author time
    (``at``), ``subject`` and ``body``, and the files below the folder it ``touched``."""

    sha: str
    author: str
    email: str
    at: datetime
    subject: str
    body: str = ""
    touched: tuple[Touched, ...] = field(default_factory=tuple)


_STATUS = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "C": "added"}


class GitFolder:
    """A folder inside a git work tree (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def open(cls, folder: str | Path) -> GitFolder:
        """The folder's history. Raises :class:`~loregraph.errors.InputError` when
        ``folder`` is not a folder of a git work tree or the ``git`` program is missing."""
        path = Path(folder)
        if not path.is_dir():
            raise InputError(f"--git reads a folder's history: {folder} is not a folder")
        found = cls(path)
        inside = found._git("rev-parse", "--is-inside-work-tree", check=False)
        if inside.strip() != "true":
            raise InputError(
                f"--git: {folder} is not inside a git work tree (no repository found above it)"
            )
        return found

    def commits(self, limit: int) -> list[Commit]:
        """The newest ``limit`` commits that changed files below the folder, newest first
        (none for a repository without commits)."""
        if not self._git("rev-parse", "--verify", "--quiet", "HEAD", check=False).strip():
            return []
        log = ("log", "--no-merges", f"-n{limit}", "--name-status", "--relative", "-M")
        out = self._git(*log, _FORMAT, "--", ".")
        return [commit for record in out.split(_RECORD)[1:] if (commit := _commit(record))]

    def changed_lines(self, sha: str) -> dict[str, list[tuple[int, int]]]:
        """The lines commit ``sha`` changed in each file below the folder, as the new
        version's ``(first, count)`` ranges; a count of 0 means lines were removed after
        line ``first``."""
        out = self._git("show", "--unified=0", "--format=", "--relative", *_DIFF, sha, "--", ".")
        ranges: dict[str, list[tuple[int, int]]] = {}
        current: list[tuple[int, int]] | None = None
        for line in out.splitlines():
            if line.startswith("+++ "):
                name = line[4:]
                current = ranges.setdefault(name[2:], []) if name.startswith("b/") else None
            elif current is not None and (hunk := _HUNK.match(line)):
                current.append((int(hunk.group(1)), int(hunk.group(2) or "1")))
        return ranges

    def text_at(self, sha: str, path: str) -> str | None:
        """The text of ``path`` (relative to the folder) as commit ``sha`` left it; ``None``
        for a file that is not UTF-8 text or not there."""
        data = self._run("show", f"{sha}:./{path}", check=False)
        if data is None:
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        return None if "\x00" in text else text

    def exists(self, path: str) -> bool:
        """Whether the file ``path`` (relative to the folder) is in the folder now."""
        return (self.folder / path).is_file()

    def _git(self, *args: str, check: bool = True) -> str:
        """What ``git args`` writes; when it fails, empty unless ``check``."""
        out = self._run(*args, check=check)
        return "" if out is None else out.decode("utf-8", "replace")

    def _run(self, *args: str, check: bool = True) -> bytes | None:
        """What ``git args`` writes, run in the folder; when it fails,
        :class:`~loregraph.errors.InputError` (``None`` unless ``check``). A missing git
        program or a command that hangs raises whatever ``check`` says."""
        command = ["git", "-c", "core.quotepath=off", "-c", "log.showSignature=false", *args]
        try:
            done = subprocess.run(
                command, cwd=self.folder, capture_output=True, timeout=TIMEOUT, check=False
            )
        except FileNotFoundError:
            raise InputError("--git needs the git program, which was not found") from None
        except subprocess.TimeoutExpired:
            raise InputError(f"git {args[0]} took longer than {TIMEOUT:.0f} s") from None
        if done.returncode == 0:
            return bytes(done.stdout)
        if not check:
            return None
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError(f"git {args[0]} failed in {self.folder}: {said[-1] if said else ''}")


def _commit(record: str) -> Commit | None:
    """One record of :meth:`GitFolder.commits`' log."""
    head, _, names = record.partition(_END)
    parts = head.split(_FIELD)
    if len(parts) != 6:
        return None
    sha, author, email, when, subject, body = parts
    touched: list[Touched] = []
    for line in names.splitlines():
        status, *paths = line.split("\t")
        how = _STATUS.get(status[:1])
        if how is None or not paths:
            continue
        former = paths[0] if how == "renamed" and len(paths) > 1 else ""
        touched.append(Touched(paths[-1], how, former))
    at = datetime.fromisoformat(when.strip())
    return Commit(
        sha, author.strip(), email.strip(), at, subject.strip(), body.strip(), tuple(touched)
    )
