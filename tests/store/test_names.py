"""The in-memory name index behind the SQLite store's fuzzy entity search."""

from __future__ import annotations

import pytest

from loregraph.store.names import NameIndex, split_keys, trigram_similarity, trigrams


def test_trigram_similarity_is_pg_trgm_like() -> None:
    assert trigrams("ab") == {"  a", " ab", "ab "}
    assert trigram_similarity(trigrams("van helsing"), trigrams("van helsing")) == 1.0
    assert trigram_similarity(trigrams("van helsin"), trigrams("van helsing")) == pytest.approx(
        10 / 13
    )
    assert trigram_similarity(trigrams("abc"), trigrams("xyz")) == 0.0
    assert split_keys("  van helsing \n  dr van helsing ") == ["van helsing", "dr van helsing"]


def test_best_key_per_entity_and_type_filter() -> None:
    index = NameIndex.build(
        [
            ("e1", "person", "  van helsing \n  professor van helsing "),
            ("e2", "person", "  vance hale "),
            ("e3", "ship", "  van helsing "),
        ]
    )
    hits = index.search("van helsin", 3)
    assert [item for item, _ in hits][:2] in (["e1", "e3"], ["e3", "e1"])
    assert hits[0][1] == pytest.approx(10 / 13)
    assert [item for item, _ in index.search("professor van helsing", 1)] == ["e1"]
    assert [item for item, _ in index.search("van helsing", 5, "ship")] == ["e3"]
    assert index.search("van helsing", 5, "unknown") == []
    assert index.search("", 5) == []


def test_upsert_and_remove_keep_results_current() -> None:
    index = NameIndex.build([(f"e{i}", "t", f"  name {i} ") for i in range(2000)])
    index.upsert("e1", "t", ["renamed one"])
    assert [item for item, _ in index.search("renamed one", 1)] == ["e1"]
    assert index.search("name 1", 1)[0][0] != "e1"
    index.remove([f"e{i}" for i in range(2, 1800)])  # enough to trigger compaction
    assert len(index) == 202
    assert [item for item, _ in index.search("name 1900", 1)] == ["e1900"]
    assert [item for item, _ in index.search("renamed one", 1)] == ["e1"]
    assert all(int(item[1:]) < 2 or int(item[1:]) >= 1800 for item, _ in index.search("name", 50))
    index.upsert("e1900", "t", ["other"])
    assert [item for item, _ in index.search("other", 1)] == ["e1900"]
