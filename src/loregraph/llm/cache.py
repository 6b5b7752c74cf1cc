"""The response cache: prompt hash → reply, in an SQLite file.

A re-run of an ingest costs no model calls, and an interrupted ingest resumes without
repeating any: every reply is committed as soon as it arrives (WAL journal, one short
transaction per reply), so a kill loses at most the calls that were in flight. Keys are
:meth:`~loregraph.llm.base.ChatRequest.cache_key` (sha256 of model + messages + parameters).

The file is separate from the store (``<store>.llm-cache.sqlite`` by convention, see
:meth:`loregraph.location.Location.llm_cache_path`): deleting it only costs money, never data.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Protocol, runtime_checkable

from loregraph.llm.base import Completion, TokenUsage

_SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    stage TEXT NOT NULL,
    reply TEXT NOT NULL,
    created_at REAL NOT NULL
)
"""


@runtime_checkable
class ResponseCache(Protocol):
    """Where replies are kept between runs."""

    async def get(self, key: str) -> Completion | None:
        """The reply stored under ``key``, marked ``cached``, or ``None``."""
        ...

    async def put(self, key: str, completion: Completion, *, stage: str = "") -> None:
        """Store a reply (durably, before returning)."""
        ...

    async def delete(self, key: str) -> None:
        """Forget a reply (one that turned out unusable, so the next run asks again)."""
        ...


def _encode(completion: Completion) -> str:
    return json.dumps(
        {
            "text": completion.text,
            "model": completion.model,
            "finish_reason": completion.finish_reason,
            "structured": completion.structured,
            "prompt_tokens": completion.usage.prompt_tokens,
            "completion_tokens": completion.usage.completion_tokens,
        },
        ensure_ascii=False,
    )


def _decode(raw: str, key: str) -> Completion:
    data = json.loads(raw)
    return Completion(
        text=str(data.get("text", "")),
        usage=TokenUsage(int(data.get("prompt_tokens", 0)), int(data.get("completion_tokens", 0))),
        model=str(data.get("model", "")),
        finish_reason=data.get("finish_reason"),
        structured=bool(data.get("structured", False)),
        cached=True,
        key=key,
    )


class SqliteResponseCache:
    """A :class:`ResponseCache` in an SQLite file (``":memory:"`` for a throw-away one).

    Safe for concurrent tasks and threads: one connection guarded by a lock, each operation
    run in a worker thread.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30.0)
        if self.path != ":memory:":
            self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute(_SCHEMA)
        self._conn.commit()

    def get_sync(self, key: str) -> Completion | None:
        """Blocking :meth:`get`."""
        with self._lock:
            row = self._conn.execute("SELECT reply FROM llm_cache WHERE key = ?", (key,)).fetchone()
        return _decode(row[0], key) if row else None

    def put_sync(self, key: str, completion: Completion, *, stage: str = "") -> None:
        """Blocking :meth:`put`."""
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO llm_cache (key, model, stage, reply, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (key, completion.model, stage, _encode(completion), time.time()),
            )
            self._conn.commit()

    def delete_sync(self, key: str) -> None:
        """Blocking :meth:`delete`."""
        with self._lock:
            self._conn.execute("DELETE FROM llm_cache WHERE key = ?", (key,))
            self._conn.commit()

    async def get(self, key: str) -> Completion | None:
        """The reply stored under ``key``, or ``None``."""
        return await asyncio.to_thread(self.get_sync, key)

    async def put(self, key: str, completion: Completion, *, stage: str = "") -> None:
        """Store a reply and commit."""
        await asyncio.to_thread(self.put_sync, key, completion, stage=stage)

    async def delete(self, key: str) -> None:
        """Forget a reply."""
        await asyncio.to_thread(self.delete_sync, key)

    def __len__(self) -> int:
        with self._lock:
            row = self._conn.execute("SELECT COUNT(*) FROM llm_cache").fetchone()
        return int(row[0])

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._conn.close()
