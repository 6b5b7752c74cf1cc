"""What of a model's answer may be shown: the guards a streamed answer goes through.

A weak model loops (the same line or sentence again and again), writes its own "sources"
list with numbers that mean nothing ("[56] dracula, chunk 20 …") and cites passages that do
not exist. :func:`clean_reply` reads the reply as it has arrived so far and returns the
text that can be shown now:

* **Invented source lines** — a line that looks like a source entry (``[n] …, chunk k`` or a
  ``Sources:`` heading) is dropped; a line that may still become one (it starts with ``[``)
  is held back until it is complete.
* **Citations** — ``[n]`` groups keep only the numbers of passages in the context; a group
  left with none is removed. An unclosed ``[`` at the end is held back.
* **Repetition** — a sentence of four words or more that repeats an earlier one is dropped
  (text that may still turn into such a repeat is held back), and :data:`MAX_REPEATS`
  repeats stop the answer; so does a run of words looping at the end (the same block of one
  to twelve words three or more times in a row), cut where the loop begins.

The text returned for a longer reply always starts with the text returned for a shorter
prefix of it, except when a word loop is cut: the caller then stops showing more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_REPEATS = 2
"""Repeated sentences after which the answer is stopped."""
MIN_REPEAT_WORDS = 4
MAX_CYCLE_WORDS = 12

_SOURCE_LINE = re.compile(
    r"^\s*(?:[-*•]\s*)?\[\d+\][^\n]*?\b(?:chunk|characters?|chars?|pages?|pp?\.)\s*\d+",
    re.IGNORECASE,
)
_SOURCE_HEADINGS = ("sources", "source", "references", "citations")
_BULLET = re.compile(r"^\s*(?:[-*•]\s+|#+\s*|\*\*)?")
_MARKERS_ONLY = re.compile(r"[-*•#\s]*")
_GROUP = re.compile(r"\s?\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_OPEN_GROUP = re.compile(r"\s?\[[\d\s,;]*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+")
_WORDS = re.compile(r"\w+")
_CITE = re.compile(r"\[[\d\s,;]*\]")


@dataclass(slots=True)
class Cleaned:
    """The showable text of a reply and what was removed from it."""

    text: str = ""
    repeats: int = 0
    invented_sources: int = 0
    invalid_citations: list[int] = field(default_factory=list)
    looped: bool = False

    @property
    def stop(self) -> bool:
        """True when the model should be stopped (it is looping)."""
        return self.looped or self.repeats >= MAX_REPEATS


def is_source_line(line: str) -> bool:
    """Whether a complete line is a source-list entry or a ``Sources:`` heading."""
    if _SOURCE_LINE.search(line):
        return True
    word = _BULLET.sub("", line).strip().rstrip(":*").strip().casefold()
    return word in _SOURCE_HEADINGS


def _may_become_source(line: str) -> bool:
    """Whether an incomplete line could still turn out to be a source line."""
    if _MARKERS_ONLY.fullmatch(line):
        return True
    rest = _BULLET.sub("", line).lstrip()
    if not rest or rest.startswith("["):
        return True
    word = rest.strip().rstrip(":*").strip().casefold()
    return any(h.startswith(word) for h in _SOURCE_HEADINGS)


def _norm(sentence: str) -> str:
    text = _CITE.sub(" ", _OPEN_GROUP.sub("", sentence))
    return " ".join(_WORDS.findall(text.casefold()))


def _filter_citations(text: str, valid: int, invalid: list[int]) -> str:
    def keep(match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.split(r"[,;]", match.group(1)) if n.strip()]
        good = [n for n in numbers if 1 <= n <= valid]
        invalid.extend(n for n in numbers if not 1 <= n <= valid and n not in invalid)
        if not good:
            return ""
        space = " " if match.group(0).startswith(" ") else ""
        return f"{space}[{', '.join(str(n) for n in good)}]"

    return _GROUP.sub(keep, text)


def _cycle_start(text: str) -> int | None:
    """Where a word loop at the end of ``text`` begins its second round, if it loops."""
    spans = [m.span() for m in _WORDS.finditer(text)]
    words = [text[a:b].casefold() for a, b in spans]
    for size in range(1, MAX_CYCLE_WORDS + 1):
        rounds = 6 if size == 1 else 4 if size == 2 else 3
        if len(words) < size * rounds:
            continue
        tail = words[len(words) - size * rounds :]
        block = tail[:size]
        if all(tail[i * size : (i + 1) * size] == block for i in range(rounds)):
            start = len(words) - size * rounds
            while start - size >= 0 and words[start - size : start] == block:
                start -= size
            return spans[start + size][0]
    return None


def clean_reply(raw: str, passages: int, *, final: bool) -> Cleaned:
    """The part of ``raw`` that can be shown (module doc). ``passages`` is how many
    passages the context numbered; ``final`` says the reply is complete."""
    out = Cleaned()
    seen: set[str] = set()
    shown: list[str] = []
    lines = raw.split("\n")
    for i, line in enumerate(lines):
        complete = final or i < len(lines) - 1
        newline = "\n" if i < len(lines) - 1 else ""
        if complete and is_source_line(line):
            out.invented_sources += 1
            continue
        if not complete and _may_become_source(line):
            break
        kept: list[str] = []
        held = False
        pieces = _sentences(line)
        for j, sentence in enumerate(pieces):
            whole = complete or j < len(pieces) - 1
            norm = _norm(sentence)
            if whole and len(norm.split()) >= MIN_REPEAT_WORDS:
                if norm in seen:
                    out.repeats += 1
                    continue
                seen.add(norm)
            if not whole and norm and any(s.startswith(norm) for s in seen):
                held = True  # may still become a repeat
                break
            cut = _cycle_start(sentence)
            if cut is not None:
                out.looped = True
                kept.append(sentence[:cut].rstrip())
                held = True
                break
            open_group = None if whole else _OPEN_GROUP.search(sentence)
            kept.append(sentence[: open_group.start()] if open_group else sentence)
        text = _filter_citations("".join(kept), passages, out.invalid_citations)
        if held or not complete:
            shown.append(text)
            break
        if kept or not line.strip():
            shown.append(text + newline)
        if out.stop:
            break
    out.text = "".join(shown).rstrip()  # trailing space may yet belong to a removed "[n]"
    return out


def _sentences(line: str) -> list[str]:
    """``line`` cut after each sentence end, the spaces kept with the sentence before."""
    out: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(line):
        out.append(line[start : m.end()])
        start = m.end()
    out.append(line[start:])
    return [s for s in out if s] or [""]


def valid_citations(text: str, passages: int) -> list[int]:
    """The passage numbers ``text`` cites that exist in the context."""
    found: list[int] = []
    for match in _GROUP.finditer(text):
        for part in re.split(r"[,;]", match.group(1)):
            number = int(part)
            if 1 <= number <= passages and number not in found:
                found.append(number)
    return found
