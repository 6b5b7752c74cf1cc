"""Names written as code: what a word's shape alone says it names in a piece of prose
(a path, a file, an environment variable, a call, a dotted setting, a camel or snake case
identifier)."""

from __future__ import annotations

import re

from loregraph.text.entity_types import CONFIG, FILE, FUNCTION, MODULE


def words(text: str) -> frozenset[str]:
    """The words of ``text`` split at white space, as a set (a vocabulary written as one
    string)."""
    return frozenset(text.split())


FILE_EXTENSIONS = words(
    "py ts tsx js jsx mjs cjs json toml yml yaml md txt lock cfg ini conf sh env sql go rs rb "
    "java kt swift c h cpp css scss html xml csv log ipynb dockerfile gitignore nvmrc"
)
"""Extensions that make ``name.ext`` a file name (``Node.js`` and ``Fly.io`` are software
names: ``js`` alone, after a capitalised stem, does not count)."""

_PATH = re.compile(r"^[\w.@-]*/[\w./@-]*$")
_ENV = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_CALL = re.compile(r"^[A-Za-z_][\w.]*\(\)?$")
_DOTTED = re.compile(r"^[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+$")
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
_CAMEL = re.compile(r"^[a-z]{2,}[A-Z]\w*$")
_MEMBER = re.compile(r"^[A-Z][A-Za-z0-9]*\.([a-z_][A-Za-z0-9_]*)$")
_WEB = re.compile(r"^www\.|\.(?:com|org|net|io|dev|app)$")
_FILE = re.compile(r"^(?:[\w-]+)?\.([A-Za-z0-9]+)$")


def code_kind(surface: str) -> str:
    """The type a code-shaped name has by its shape alone, or "" when it is not one.

    >>> code_kind("src/app.py"), code_kind("lib/common/"), code_kind("DATABASE_URL")
    ('File', 'Module', 'Config')
    >>> code_kind("parse_config"), code_kind("ui.dark_mode"), code_kind("Hono")
    ('Function', 'Config', '')
    >>> code_kind("Cart.total"), code_kind("Node.js"), code_kind("Fly.io")
    ('Function', '', '')
    """
    name = surface.strip("`")
    if len(name) < 2:
        return ""
    if _PATH.match(name) and any(c.isalpha() for c in name):
        last = name.rstrip("/").rsplit("/", 1)[-1]
        if name.endswith("/"):
            return MODULE
        if "." in last.strip(".") or name.count("/") >= 2:  # not "and/or"
            return FILE
    found = _FILE.match(name)
    if found and found.group(1).casefold() in FILE_EXTENSIONS:
        stem = name[: found.start(1) - 1]
        if not stem or (stem == stem.lower() and any(c.isalpha() for c in stem)):
            return FILE
    if _ENV.match(name):
        return CONFIG
    if _CALL.match(name) and name.endswith(("(", ")")):
        return FUNCTION
    if _DOTTED.match(name) and not _WEB.search(name):  # not www.example.org
        return CONFIG
    if _SNAKE.match(name) or _CAMEL.match(name):
        return FUNCTION
    member = _MEMBER.match(name)  # Cart.total: a method; Node.js, Fly.io: names
    if member and member.group(1) not in FILE_EXTENSIONS and not _WEB.search(name):
        return FUNCTION
    return ""
