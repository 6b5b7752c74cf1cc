"""Token counting with cl100k_base, offline and exact."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from loregraph.text.tokens import (
    count_tokens,
    decode,
    encode,
    token_ends,
    truncate_to_tokens,
)


def test_known_cl100k_ids() -> None:
    assert encode("hello world") == [15339, 1917]
    assert decode([15339, 1917]) == "hello world"
    assert count_tokens("hello world") == 2
    assert count_tokens("") == 0


def test_special_token_text_is_counted_as_ordinary_text() -> None:
    assert count_tokens("<|endoftext|>") > 1


def test_lone_surrogates_do_not_crash() -> None:
    assert count_tokens("abc\ud800def") >= 2


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=200), st.integers(0, 60))
def test_truncate_gives_a_prefix_within_the_budget(text: str, limit: int) -> None:
    cut = truncate_to_tokens(text, limit)
    assert text.startswith(cut)
    assert count_tokens(cut) <= max(limit, 0) or cut == text
    if count_tokens(text) <= limit:
        assert cut == text


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=200))
def test_token_ends_tile_the_text(text: str) -> None:
    ends = token_ends(text)
    assert len(ends) == count_tokens(text)
    assert ends == sorted(ends)
    if ends:
        assert ends[-1] == len(text)
        assert all(0 <= e <= len(text) for e in ends)


def test_token_ends_on_ascii() -> None:
    assert token_ends("hello world") == [5, 11]
