"""Splitting text queries by script: words for word indexes, substrings for the rest."""

from __future__ import annotations

import re
import sqlite3

from loregraph.models import Scored
from loregraph.store.scripts import (
    SUBSTRING_SCRIPT_GLOB,
    SUBSTRING_SCRIPT_REGEX,
    fuse_rankings,
    split_query,
)


def test_spaced_scripts_give_words() -> None:
    terms = split_query("The Count's castle — Привет, हिन्दी!")
    assert terms.words == ["the", "count", "s", "castle", "привет", "हिन्दी"]
    assert terms.substrings == []


def test_unsegmented_runs_give_their_three_character_pieces() -> None:
    assert split_query("東京の猫").substrings == ["東京の", "京の猫"]
    short = split_query("猫 北京")
    assert short.substrings == ["猫", "北京"] and short.short == ["猫", "北京"]
    assert split_query("กรุงเทพ").substrings == ["กรุ", "รุง", "ุงเ", "งเท", "เทพ"]


def test_affixing_scripts_give_whole_words_as_substrings() -> None:
    terms = split_query("عاصمة مصر في 서울에서")
    assert terms.words == [] and terms.substrings == ["عاصمة", "مصر", "في", "서울에서"]
    assert terms.long == ["عاصمة", "مصر", "서울에서"] and terms.short == ["في"]


def test_mixed_runs_split_where_the_script_changes() -> None:
    terms = split_query("Dracula在伦敦 iPhone")
    assert terms.words == ["dracula", "iphone"] and terms.substrings == ["在伦敦"]


def test_sql_patterns_select_the_same_text_as_python() -> None:
    conn = sqlite3.connect(":memory:")
    samples = ["plain English", "Ελληνικά", "中文", "にほんご", "العربية", "עברית", "한국어", "ไทย"]
    for text in samples:
        in_sql = conn.execute("SELECT ? GLOB ?", (text, SUBSTRING_SCRIPT_GLOB)).fetchone()[0]
        assert bool(in_sql) == bool(re.search(SUBSTRING_SCRIPT_REGEX, text)), text


def test_fusion_ranks_what_both_rankings_hold_first() -> None:
    words = [Scored("a", 9.0), Scored("b", 5.0)]
    subs = [Scored("b", 3.0), Scored("c", 2.0)]
    fused = fuse_rankings([words, subs], 10)
    assert [hit.id for hit in fused] == ["b", "a", "c"]
    assert fuse_rankings([words, subs], 1)[0].id == "b"
    assert fuse_rankings([], 5) == []
