"""Errors a user can act on. Each names the problem; the CLI prints it and exits non-zero."""

from __future__ import annotations


class LoregraphError(Exception):
    """Base class of every error loregraph raises on purpose."""

    exit_code = 1


class InputError(LoregraphError):
    """Input that cannot be ingested: a missing path, a binary file, invalid UTF-8, ..."""

    exit_code = 2


class EmptyInputError(InputError):
    """A document with no text, or a directory with nothing readable."""


class SchemaVersionError(LoregraphError):
    """The store was written by a newer version of loregraph."""

    exit_code = 3


class EmptyStoreError(LoregraphError):
    """A query against a store (or scope) that holds no documents."""

    exit_code = 4


class NotFoundError(LoregraphError):
    """A named document or entity does not exist."""

    exit_code = 5


class ConfigError(LoregraphError):
    """Settings that do not make sense (an unknown preset, a negative size, ...)."""

    exit_code = 2


class DependencyError(LoregraphError):
    """An optional dependency needed for this operation is not installed."""

    exit_code = 6


class StoreError(LoregraphError):
    """A store that cannot be opened or used: not a database, not loregraph's, corrupt, locked."""

    exit_code = 7


class StorePermissionError(StoreError):
    """A store that cannot be created, read or written for lack of permission."""

    exit_code = 8
