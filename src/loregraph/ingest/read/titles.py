"""Document titles found in the text itself: a Markdown title, or a first line; and the
title a file gets (:func:`file_title`), the one rule for files read from disk and uploaded."""

from __future__ import annotations

import re
from pathlib import PurePath

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_H1 = re.compile(r"^\s{0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_FRONT_MATTER_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.MULTILINE)
FIRST_LINE_CHARS = 80
MARKDOWN_EXTENSIONS = (".md", ".markdown")
"""Files whose first heading (or front-matter title) is their title."""


def markdown_title(text: str) -> str | None:
    """A Markdown document's front-matter ``title:`` or its first ``# heading`` outside code
    fences; ``None`` when it has neither."""
    body = text.lstrip("\ufeff")
    if body.startswith("---"):
        end = body.find("\n---", 3)
        if end != -1:
            match = _FRONT_MATTER_TITLE.search(body[3:end])
            if match:
                return match.group(1).strip("\"'")
            body = body[end + 4 :]
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (heading := _H1.match(line)):
            return heading.group(1)
    return None


def first_line_title(text: str) -> str | None:
    """The first non-blank line (a Markdown heading's text), cut to a readable length at a
    word boundary; ``None`` for text without one."""
    heading = markdown_title(text)
    if heading:
        return heading
    for line in text.lstrip("\ufeff").splitlines():
        line = " ".join(line.split())
        if line:
            if len(line) <= FIRST_LINE_CHARS:
                return line
            cut = line[:FIRST_LINE_CHARS].rsplit(" ", 1)[0]
            return f"{cut or line[:FIRST_LINE_CHARS]}…"
    return None


def file_title(
    name: str, text: str, *, converted: bool = False, declared: str | None = None
) -> str:
    """The title of a file called ``name`` holding ``text``: the title its converter found
    (``declared``), else for a Markdown file (and a ``converted`` one, whose text is
    Markdown) its front-matter title or first heading, else its name without the extension.
    ``ingest`` titles the files it reads, and the server the files uploaded to it, by this."""
    path = PurePath(name)
    markdown = converted or path.suffix.lower() in MARKDOWN_EXTENSIONS
    heading = markdown_title(text) if markdown else None
    return declared or heading or path.stem or name
