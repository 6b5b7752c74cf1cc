"""What a document is (:class:`DocKind`), how far its ingest got (:class:`DocStatus`) and
who may read it (:class:`Visibility`): below the data model, which holds them in every
document."""

from __future__ import annotations

from enum import StrEnum

from loregraph.errors import InputError


class Visibility(StrEnum):
    """Who may read a document or memory: anyone who reads its scope (``public``), its
    writers (``private``), or only its ``owner`` (``personal``)."""

    PUBLIC = "public"
    PRIVATE = "private"
    PERSONAL = "personal"

    @classmethod
    def parse(cls, value: str) -> Visibility:
        """The visibility called ``value``; :class:`InputError` naming the allowed ones."""
        cleaned = value.strip().lower() if isinstance(value, str) else ""
        try:
            return cls(cleaned)
        except ValueError:
            allowed = ", ".join(v.value for v in cls)
            raise InputError(f"unknown visibility {value!r}; allowed: {allowed}") from None


class DocStatus(StrEnum):
    """Where a document is in the ingestion pipeline."""

    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"


class DocKind(StrEnum):
    """A document read from a source, or a memory written by an agent."""

    DOCUMENT = "document"
    MEMORY = "memory"
