"""What the readers passed over: every skipped file or record, and why.

The readers never drop an input silently: a file in a folder that is binary, undecodable,
empty, of an unsupported type or that needs a converter that is not installed, and a record
with no text, is recorded here (and logged). The ingest report lists them.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

logger = logging.getLogger("loregraph.ingest.read.readers")

_WORD = re.compile(r"[^\W_]")


def has_words(text: str) -> bool:
    """True when ``text`` holds at least one letter or digit (in any script)."""
    return _WORD.search(text) is not None


@dataclass(slots=True, frozen=True)
class SkippedInput:
    """A file or record that was not ingested: ``where`` it is and ``why``."""

    where: str
    why: str


@dataclass(slots=True)
class ReadLog:
    """Collects the inputs the readers skipped, in the order they were met."""

    skipped: list[SkippedInput] = field(default_factory=list)

    def skip(self, where: str, why: str) -> None:
        """Record (and log at INFO) that ``where`` was skipped because ``why``."""
        self.skipped.append(SkippedInput(where, why))
        logger.info("skipping %s: %s", where, why)


class _WarningLog(ReadLog):
    """The default when the caller keeps no log: each skip is a logged warning."""

    def skip(self, where: str, why: str) -> None:
        self.skipped.append(SkippedInput(where, why))
        logger.warning("skipping %s: %s", where, why)


def default_log(log: ReadLog | None) -> ReadLog:
    """``log``, or a log that warns for each skip when the caller passed none."""
    return log if log is not None else _WarningLog()
