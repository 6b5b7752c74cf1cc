"""A directory replaced by a new one that is complete or not used at all.

A store that rewrites itself into a new directory (a ``surrealkv`` store dropping what was
removed) builds it beside the old one (:func:`fresh_beside`), then moves the old one aside,
the new one into its place and deletes the old one (:func:`swap_in`). A process stopped at
any point leaves either a complete new directory or none; :func:`recover`, before the store
opens again, finishes the swap or drops what was left.
"""

from __future__ import annotations

import shutil
from pathlib import Path

NEW = ".rewrite"
OLD = ".old"


def _beside(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def fresh_beside(path: Path) -> Path:
    """An empty place beside ``path`` to build its replacement in."""
    new = _beside(path, NEW)
    if new.exists():
        shutil.rmtree(new)
    return new


def swap_in(path: Path) -> None:
    """Put the complete replacement built beside ``path`` in its place."""
    old = _beside(path, OLD)
    path.rename(old)
    _beside(path, NEW).rename(path)
    shutil.rmtree(old)


def recover(path: Path) -> None:
    """Finish or drop a swap that stopped part-way (before the store opens)."""
    new, old = _beside(path, NEW), _beside(path, OLD)
    if not path.exists() and new.exists():
        new.rename(path)  # it was complete: the old one had been moved aside
    for leftover in (new, old):
        if leftover.exists():
            shutil.rmtree(leftover)
