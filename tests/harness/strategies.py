"""Hypothesis strategies for the fuzz targets: file bytes, texts, JSON records, questions."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

# Text of every kind: any code point (lone surrogates included: JSON can carry them as
# "\ud800" escapes, and a str handed to the API may hold them), whitespace, punctuation,
# scripts without spaces, combining marks and line separators.
ANY_CHAR = st.characters(codec=None, exclude_categories=())
WORDISH = st.sampled_from(
    [
        "Dracula",
        "Jonathan Harker",
        "the",
        "Count",
        "Bistritz",
        "Mina's",
        "O'Brien",
        "St. Mary",
        "Lothair II",
        "über",
        "Ἀθῆναι",
        "東京",
        "日本語の文章",
        "مرحبا",
        "שלום",
        "Привет",
        "x" * 300,
        "a-b-c",
        "don't",
        "1897",
        "3.14",
        "_",
        "…",
        "—",
        "\u200b",
        "\u0301",
        "\ufeff",
        "\x00",
        "\ud800",
        "\udfff tail",
        "\r\n",
        "\n\n",
        "\t",
        " ",
        '"',
        "'",
        "“quoted”",
        "(",
        ")",
        "*",
        "NEAR",
        "AND",
        "OR",
        "NOT",
        "^",
        ":",
        "-",
        "+",
        "{",
        "}",
        "[",
        "]",
        "\\",
        "%",
        "$1",
        ";",
        "--",
        "/*",
        "' OR 1=1 --",
        "<script>",
        "&",
        "|",
        "!",
        "?",
        ".",
        ",",
    ]
)
TEXT = st.one_of(
    st.text(max_size=120),
    st.text(ANY_CHAR, max_size=60),
    st.lists(WORDISH, max_size=24).map(" ".join),
    st.lists(st.one_of(WORDISH, st.text(max_size=6)), max_size=16).map("".join),
)
"""Any text, biased towards words, names, operators and odd characters."""

SIGNATURES = [
    b"%PDF-1.4\n",
    b"PK\x03\x04",
    b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
    b"{\\rtf1",
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",
    b"GIF89a",
    b"\x1f\x8b",
    b"BZh",
    b"\xff\xfe",
    b"\xfe\xff",
    b"\xef\xbb\xbf",
    b"SQLite format 3\x00",
    b"\x7fELF",
]

FILE_BYTES = st.one_of(
    TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.binary(max_size=400),
    st.tuples(st.sampled_from(SIGNATURES), st.binary(max_size=100)).map(b"".join),
    st.tuples(TEXT, st.binary(max_size=4), TEXT).map(
        lambda parts: (
            parts[0].encode("utf-8", "surrogatepass")
            + parts[1]
            + parts[2].encode("utf-8", "surrogatepass")
        )
    ),
)
"""File contents: UTF-8 text (with surrogates encoded as the invalid bytes they make),
arbitrary bytes, binary signatures, and text with a few bad bytes inside."""

_COMMON_EXTENSIONS = [".txt", ".md", ".markdown", ".text", ".TXT", ".Md", ".json", ".jsonl"]
_COMMON_EXTENSIONS += [".JSON", ".csv", ".bin", "", ".tar.gz", ".py"]
_CONVERTED_EXTENSIONS = [".pdf", ".docx", ".html", ".htm"]
EXTENSIONS = st.sampled_from(_COMMON_EXTENSIONS * 4 + _CONVERTED_EXTENSIONS)
"""File extensions; those read through the (slow, third-party) converter about 1 in 15."""

JSON_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**20, max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
)
JSON_VALUE = st.recursive(
    JSON_SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=4,
)


def _record(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not _MISSING}


_MISSING = object()
RECORD = st.one_of(
    # mostly well-formed records
    st.fixed_dictionaries(
        {
            "text": TEXT,
            "title": st.one_of(st.just(_MISSING), TEXT),
            "id": st.one_of(st.just(_MISSING), st.integers(-5, 30), TEXT),
        },
        optional={"tags": JSON_VALUE, "date": JSON_SCALAR, "meta": JSON_VALUE},
    ).map(_record),
    # any fields of any type
    st.fixed_dictionaries(
        {},
        optional={"text": JSON_VALUE, "title": JSON_VALUE, "id": JSON_VALUE, "x": JSON_VALUE},
    ),
    JSON_VALUE,
)
"""A JSON record: usually an object with text, title and id, sometimes anything."""


def _dumps(value: Any, ascii_only: bool) -> str:
    return json.dumps(value, ensure_ascii=ascii_only)


@st.composite
def record_file(draw: st.DrawFn) -> bytes:
    """The bytes of a JSON array, a JSON object, or JSON Lines of records, sometimes damaged
    (cut short, a byte changed, a blank or garbage line, a BOM, CRLF line ends)."""
    records = draw(st.lists(RECORD, max_size=4))
    ascii_only = draw(st.booleans())
    shape = draw(st.sampled_from(["array", "lines", "object", "lines-crlf"]))
    if shape == "array":
        text = _dumps(records, ascii_only)
    elif shape == "object":
        text = _dumps(records[0] if records else {}, ascii_only)
    else:
        end = "\r\n" if shape == "lines-crlf" else "\n"
        lines = [_dumps(r, ascii_only) for r in records]
        if lines and draw(st.booleans()):
            lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", "  ", "x"])))
        text = end.join(lines) + draw(st.sampled_from(["", end]))
    data = text.encode("utf-8", "surrogatepass")
    damage = draw(st.sampled_from(["none", "none", "none", "cut", "byte", "bom", "deep"]))
    if damage == "cut" and data:
        data = data[: draw(st.integers(0, len(data) - 1))]
    elif damage == "byte" and data:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1 :]
    elif damage == "bom":
        data = b"\xef\xbb\xbf" + data
    elif damage == "deep":
        depth = draw(st.sampled_from([50, 2_000, 100_000]))
        data = b'{"text": "deep nesting", "x": ' + b"[" * depth + b"]" * depth + b"}\n" + data
    return data


QUESTION = st.one_of(
    TEXT,
    st.lists(WORDISH, min_size=1, max_size=12).map(lambda w: " ".join(w) + "?"),
    st.tuples(
        st.sampled_from(["Who is", "What is", "Tell me about", "How are", "what else"]),
        st.lists(WORDISH, max_size=8).map(" ".join),
        st.sampled_from(["?", "", "'s mother?", " and Mina related?"]),
    ).map(" ".join),
)
"""Questions: any text, or question-shaped strings made of names and operators."""
