"""A settings file as it is stored: its secrets masked, the file still parsing.

A secret (:meth:`~.settings_files.Setting.secrets`) is the string value of a setting whose
key looks secret (``password``, ``api_key``, ``auth.token``) or the password of a URL
(``postgres://app:PASSWORD@db/shop``). Each word of it is replaced by
:data:`~.settings_files.MASK` where the file sets it: looked for after the key's ``=``
or ``:``, then on the lines below (a multi-line value, a PEM key in a YAML block). A
secret not found as written (a JSON string with escapes) masks the whole quoted string on
its key's line, or the rest of that line. Numbers and booleans are not secrets
(``token_ttl = 3600``, ``use_api_key = true`` stay readable).

A settings file that does not parse is not stored at all, only a line saying so: its
secrets cannot be found, and it sets nothing the graph could use.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from loregraph.ingest.code.settings_files import MASK, Setting, read_settings

WINDOW = 200
"""How many lines below its key a multi-line secret is looked for."""

_QUOTED = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'")
_SEPARATOR = re.compile(r"[=:]")


def stored_settings(path: str, text: str) -> str:
    """The text kept for a settings file: the file with each secret masked, or, when it
    does not parse, one line saying so."""
    settings = read_settings(path, text)
    if settings is None:
        name = PurePosixPath(path).name
        return f"# {name}: not stored: it does not parse, and it may hold secrets\n"
    return mask(text, settings)


def mask(text: str, settings: list[Setting]) -> str:
    """``text`` with the secret of each of ``settings`` (parsed from it) masked."""
    lines = text.splitlines(keepends=True)
    for setting in settings:
        for secret in setting.secrets():
            if 0 < setting.line <= len(lines):
                _mask(lines, setting, secret)
    return "".join(lines)


def _mask(lines: list[str], setting: Setting, secret: str) -> None:
    """Mask each word of ``secret`` in order, from its setting's value on."""
    row = setting.line - 1
    col = _value_start(lines[row], setting.keys[-1])
    for word in secret.split():
        pattern = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)")
        for at in range(row, min(row + WINDOW, len(lines))):
            found = pattern.search(lines[at], col if at == row else 0)
            if found:
                line = lines[at]
                lines[at] = line[: found.start()] + MASK + line[found.end() :]
                row, col = at, found.start() + len(MASK)
                break
        else:
            start = setting.line - 1
            _mask_line(lines, start, _value_start(lines[start], setting.keys[-1]))
            return


def _value_start(line: str, key: str) -> int:
    """Where the value of ``key`` starts on ``line``: after the ``=`` or ``:`` that
    follows the key (the key's end without one, the line's start without the key)."""
    at = line.find(key) if key else -1
    if at < 0:
        at = 0
    separator = _SEPARATOR.search(line, at + len(key))
    return separator.end() if separator else at + len(key)


def _mask_line(lines: list[str], row: int, col: int) -> None:
    """Mask the quoted string after ``col`` on line ``row``, or the rest of the line."""
    line = lines[row]
    quoted = _QUOTED.search(line, col)
    if quoted:
        quote = quoted.group(0)[0]
        lines[row] = line[: quoted.start()] + quote + MASK + quote + line[quoted.end() :]
        return
    body = line.rstrip("\r\n")
    comma = "," if body.rstrip().endswith(",") else ""
    lines[row] = body[:col] + " " + MASK + comma + line[len(body) :]
