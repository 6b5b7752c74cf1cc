"""Asking a search for more until enough of its hits are kept.

A shared index (a graph database's vector index holds every scope) or a filter applied
after the search (the visibility view) can leave fewer hits than asked for. :func:`widening`
asks again for four times as many until enough are kept, the search has no more, or it has
asked for ``most``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
K = TypeVar("K")

GROWTH = 4
"""How many times more each round asks for."""


async def widening(
    search: Callable[[int], Awaitable[Sequence[T]]],
    keep: Callable[[Sequence[T]], Awaitable[list[K]]],
    limit: int,
    *,
    first: int,
    most: int,
) -> list[K]:
    """What ``keep`` keeps of ``search(n)``, for ``n`` from ``first`` growing
    :data:`GROWTH` times a round while fewer than ``limit`` are kept, the search gave all
    it was asked for, and ``n`` is below ``most``."""
    n = first
    while True:
        found = await search(n)
        kept = await keep(found)
        if len(kept) >= limit or len(found) < n or n >= most:
            return kept
        n *= GROWTH
