"""Bytes to text for the readers: binary detection and strict UTF-8 decoding.

Text must be UTF-8 (a byte-order mark is fine); it is decoded strictly, so a file in another
encoding is reported with the offset of its first bad byte instead of being silently garbled.
"""

from __future__ import annotations

from pathlib import Path

from loregraph.errors import InputError

SNIFF_BYTES = 8192
BOM = b"\xef\xbb\xbf"
# leading bytes of common binary formats, with a name users recognise
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "PDF"),
    (b"PK\x03\x04", "ZIP archive (also DOCX, XLSX, EPUB)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "legacy Office document"),
    (b"{\\rtf", "RTF document"),
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"\x1f\x8b", "gzip archive"),
    (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ\x00", "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"\x7fELF", "executable"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\xff\xfe", "UTF-16 text"),
    (b"\xfe\xff", "UTF-16 text"),
)


class BinaryFileError(InputError):
    """A binary file where text was expected (an :class:`InputError`)."""


class NotUtf8Error(InputError):
    """Text that is not valid UTF-8 (an :class:`InputError`)."""


def missing(path: str | Path) -> InputError:
    """The error for a path that does not exist."""
    return InputError(f"no such file or directory: {path}; check the path and try again.")


def binary_kind(data: bytes) -> str | None:
    """What kind of binary file ``data`` starts like, or None for text."""
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            return kind
    if b"\x00" in data[:SNIFF_BYTES]:
        return "contains NUL bytes"
    return None


def decode(data: bytes, name: str, offset: int = 0) -> str:
    """Strict UTF-8 decoding; a leading BOM is dropped and line ends become LF (a
    file saved on Windows, CRLF, or with lone CRs reads as the same text, so paragraphs,
    headings and sentences are found alike). ``offset`` shifts reported offsets."""
    skip = len(BOM) if data.startswith(BOM) else 0
    try:
        text = data[skip:].decode("utf-8")
    except UnicodeDecodeError as error:
        position = offset + skip + error.start
        raise NotUtf8Error(
            f"{name} is not valid UTF-8 (first bad byte at offset {position}); "
            "re-save it as UTF-8 (for example with iconv -t utf-8) and try again."
        ) from None
    return one_line_end(text)


def one_line_end(text: str) -> str:
    """``text`` with CRLF and lone CR line ends turned into LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def has_surrogates(value: str) -> bool:
    """True when ``value`` holds a lone surrogate (U+D800..U+DFFF), which is not text.

    JSON can carry one as a ``"\\ud800"`` escape, and a command-line argument holds one for
    each byte that is not UTF-8; no store can keep it.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def check_unicode(value: str, what: str) -> str:
    """``value`` if it is valid Unicode text; else :class:`NotUtf8Error` naming ``what``."""
    if has_surrogates(value):
        raise NotUtf8Error(
            f"{what} is not valid Unicode text (it holds a lone surrogate such as \\ud800, "
            "from a bad escape or bytes that are not UTF-8); fix it and try again."
        )
    return value


def path_text(path: str | Path) -> str:
    """A path as text any store and terminal can keep.

    A file name whose bytes are not UTF-8 reaches Python with a lone surrogate for each bad
    byte; those bytes are written as ``\\xNN`` escapes (``café`` in Latin-1 becomes
    ``caf\\xe9``), so such a file still has a stable, readable identity.
    """
    text = str(path)
    if not has_surrogates(text):
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file system name decodes to
        raw = text.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "backslashreplace")
