"""SQLite's substring index (FTS5 trigram): what it holds, and the migration that adds it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from loregraph.store.base import SCHEMA_VERSION
from loregraph.store.sqlite import SqliteStore

from .builders import Book, unit
from .engine_scripts import engine_finds_words_of_every_script

CHINESE = "北京是中华人民共和国的首都，也是全国的政治和文化中心。"
ENGLISH = "The captain wrote to the harbour master about the storm."


def raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def indexed_chunks(path: Path) -> int:
    """How many chunks the trigram index holds."""
    conn = raw(path)
    try:
        return int(conn.execute("SELECT count(*) FROM chunks_trigram").fetchone()[0])
    finally:
        conn.close()


async def write(store: SqliteStore, doc_id: str, text: str, title: str = "") -> str:
    book = Book(doc_id, title=title or doc_id)
    chunk = book.chunk(text, unit(0))
    await store.write_document(book.bundle())
    return chunk.id


async def test_only_text_in_substring_scripts_is_indexed(tmp_path: Path) -> None:
    db = tmp_path / "kg.db"
    store = SqliteStore(db)
    await store.open()
    try:
        await write(store, "en", ENGLISH)
        assert indexed_chunks(db) == 0  # an English store pays nothing for the index
        zh = await write(store, "zh", CHINESE)
        assert indexed_chunks(db) == 1
        # an English chunk of a document titled in Japanese is found by its title
        titled = await write(store, "guide", ENGLISH.replace("storm", "tide"), "東京ガイド")
        found = await store.search_chunks_text("default", "ガイド", 5)
        assert [hit.id for hit in found] == [titled] and indexed_chunks(db) == 2
        assert [hit.id for hit in await store.search_chunks_text("default", "政治", 5)] == [zh]
        # replacing a document re-indexes it; the old text is gone from the index
        await store.delete_document("zh")
        await write(store, "zh", "上海是中国最大的城市。")
        assert await store.search_chunks_text("default", "政治", 5) == []
        assert len(await store.search_chunks_text("default", "上海", 5)) == 1
    finally:
        await store.close()
    conn = raw(db)
    try:
        conn.execute("INSERT INTO chunks_trigram(chunks_trigram) VALUES ('integrity-check')")
    finally:
        conn.close()


async def test_version_1_store_gets_the_index_when_opened(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    store = SqliteStore(db)
    await store.open()
    zh = await write(store, "zh", CHINESE)
    await write(store, "en", ENGLISH)
    await store.close()
    # make it a version 1 store: the same file without the trigram and later tables and
    # columns
    conn = raw(db)
    conn.execute("DROP TABLE ledger")
    conn.execute("DROP TABLE chunks_trigram_vocab")
    conn.execute("DROP TABLE chunks_trigram")
    conn.execute("DROP INDEX relations_invalidated_by")
    conn.execute("ALTER TABLE relations DROP COLUMN invalidated_by")
    conn.execute("ALTER TABLE entity_descriptions DROP COLUMN salience")
    conn.execute("ALTER TABLE entity_descriptions DROP COLUMN confidence")
    conn.execute("UPDATE meta SET value = 1 WHERE key = 'schema_version'")
    conn.close()

    reopened = SqliteStore(db)
    await reopened.open()
    try:
        assert (await reopened.stats("default")).schema_version == SCHEMA_VERSION
        assert [hit.id for hit in await reopened.search_chunks_text("default", "首都", 5)] == [zh]
        assert indexed_chunks(db) == 1
        await reopened.delete_document("zh")  # rows the migration indexed unindex cleanly
        assert await reopened.search_chunks_text("default", "首都", 5) == []
    finally:
        await reopened.close()
    conn = raw(db)
    try:
        conn.execute("INSERT INTO chunks_trigram(chunks_trigram) VALUES ('integrity-check')")
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        assert version == (SCHEMA_VERSION,)
    finally:
        conn.close()


async def test_engine_search_finds_words_of_every_script(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "engine.db")
    await store.open()
    try:
        await engine_finds_words_of_every_script(store)
    finally:
        await store.close()
