"""Errors a user can act on. Each names the problem; the CLI prints it and exits non-zero."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar


class LoregraphError(Exception):
    """Base class of every error loregraph raises on purpose.

    A subclass states its exit code in its header (``class X(LoregraphError, exit_code=2)``);
    one that states none keeps its parent's.
    """

    exit_code: ClassVar[int] = 1

    def __init__(self, *args: object, candidates: Sequence[str] = ()) -> None:
        super().__init__(*args)
        self.candidates: tuple[str, ...] = tuple(candidates)
        """What the user may have meant (close names, the known types): the message names
        them too; the HTTP API lists them as the problem's ``candidates``."""

    def __init_subclass__(cls, *, exit_code: int | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if exit_code is not None:
            cls.exit_code = exit_code


class InputError(LoregraphError, exit_code=2):
    """Input that cannot be ingested: a missing path, a binary file, invalid UTF-8, ..."""


class EmptyInputError(InputError):
    """A document with no text, or a directory with nothing readable."""


class SchemaVersionError(LoregraphError, exit_code=3):
    """The store was written by a newer version of loregraph."""


class EmptyStoreError(LoregraphError, exit_code=4):
    """A query against a store (or scope) that holds no documents."""


class NotFoundError(LoregraphError, exit_code=5):
    """A named document or entity does not exist."""


class AlreadyDoneError(NotFoundError):
    """A change that was already made (a merge already undone): nothing is left to do, and
    nothing is changed. The CLI exits as for a missing name; the HTTP API answers 409."""


class NotAllowedError(LoregraphError, exit_code=9):
    """The principal a call acts for lacks the role it needs in the scope (the HTTP API
    answers 403)."""


class ConfigError(LoregraphError, exit_code=2):
    """Settings that do not make sense (an unknown preset, a negative size, ...)."""


class DependencyError(LoregraphError, exit_code=6):
    """An optional dependency needed for this operation is not installed."""


class StoreError(LoregraphError, exit_code=7):
    """A store that cannot be opened or used: not a database, not loregraph's, corrupt, locked."""


class StorePermissionError(StoreError, exit_code=8):
    """A store that cannot be created, read or written for lack of permission."""
