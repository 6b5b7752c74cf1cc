"""PDF, Word, PowerPoint and HTML files to Markdown, through ``markitdown``.

The converter is an optional extra (``pip install 'loregraph[docs]'``). Without it, such a
file given directly is an :class:`~loregraph.errors.InputError` naming the extra, and inside
a folder it is skipped and reported with the same hint. Conversion runs offline.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from loregraph.errors import InputError

CONVERTIBLE: dict[str, str] = {
    ".pdf": "PDF document",
    ".docx": "Word document",
    ".pptx": "PowerPoint presentation",
    ".html": "HTML page",
    ".htm": "HTML page",
}
"""File extensions read through the converter, with the name users know them by."""

EXTRA_HINT = "install the converter with: pip install 'loregraph[docs]'"


_SIGNATURES: dict[str, bytes] = {
    ".pdf": b"%PDF-",
    ".docx": b"PK\x03\x04",
    ".pptx": b"PK\x03\x04",
}


class ConverterMissingError(InputError):
    """A file needs the optional converter, which is not installed."""


class ConversionError(InputError):
    """The converter could not read a file (damaged, encrypted, or not what it claims)."""


def is_convertible(path: Path) -> bool:
    """Whether ``path`` is a document type read through the converter."""
    return path.suffix.lower() in CONVERTIBLE


@lru_cache(maxsize=1)
def _converter() -> Any:
    try:
        from markitdown import MarkItDown
    except ImportError:
        return None
    return MarkItDown(enable_plugins=False)


def convert_file(path: Path) -> tuple[str, str | None]:
    """The Markdown text of ``path`` and the title the document declares (or ``None``).

    Raises :class:`ConverterMissingError` when the converter is not installed and
    :class:`ConversionError` when it cannot read the file.
    """
    suffix = path.suffix.lower()
    kind = CONVERTIBLE.get(suffix, "document")
    converter = _converter()
    if converter is None:
        raise ConverterMissingError(f"{path} is a {kind}; to read it, {EXTRA_HINT}")
    try:
        result = converter.convert_local(str(path))
    except Exception as exc:  # the converter raises many kinds; all mean "unreadable"
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConversionError(
            f"{path} could not be read as a {kind} ({reason[:200]}); "
            "check that the file opens, or convert it to text yourself"
        ) from None
    text = str(getattr(result, "text_content", "") or "")
    if suffix in _SIGNATURES and _fell_back_to_raw(path, text, _SIGNATURES[suffix]):
        raise ConversionError(
            f"{path} could not be read as a {kind} (the file is damaged or is not one); "
            "check that the file opens, or convert it to text yourself"
        )
    title = getattr(result, "title", None)
    return text, (str(title).strip() or None) if title else None


def _fell_back_to_raw(path: Path, text: str, signature: bytes) -> bool:
    """True when the file is not of its declared type, or the converter gave up on it and
    returned the raw bytes as text (it does so instead of raising)."""
    with path.open("rb") as handle:
        head = handle.read(len(signature))
    if head != signature:
        return True
    raw = path.read_bytes().decode("utf-8", errors="replace")
    return text.strip() == raw.strip()
