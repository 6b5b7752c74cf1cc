"""Settings files: each setting a file sets, named by its dotted path.

Which files (:func:`is_settings`): a ``.toml``, ``.yaml``, ``.yml``, ``.json``, ``.ini``
or ``.properties`` file whose name starts with ``settings``, ``config``,
``configuration``, ``application`` or ``appsettings`` (``settings.toml``,
``config.local.yaml``, ``application-dev.yml``, ``appsettings.Production.json``), or
that lies directly in a folder named ``config`` or ``settings`` (``config/database.yaml``).
Nothing else of those types is read as settings: test fixtures and data files are not
settings. A manifest or lockfile stays one (``config/package.json`` is a manifest), and a
hidden file is never one: dotenv files (``.env``, ``.env.local``) hold secrets, and the
folder reader skips every hidden file.

Each setting (:func:`parse_settings`) is a key whose value is not a table, named by its
path of keys joined with dots (``database.url``, ``features.new_checkout``; an INI
file's ``[section]`` is the first part, a ``.properties`` key is its own name): a value
that is a list is one setting. Tables deeper than :data:`MAX_DEPTH` are not descended
into, and at most :data:`MAX_KEYS` settings are read from one file. A YAML file may hold
several documents (Spring profiles): a name the first document sets is not read again.
A file that does not parse sets nothing. The line of each setting is found by looking for
its keys in order, each from the line of the key above it.

A setting's environment-variable form (:func:`env_name`) is its name upper-cased, dots
and hyphens made underscores (``database.url`` is ``DATABASE_URL``): a Python file that
reads ``DATABASE_URL`` is configured by ``database.url`` (:mod:`.graph`).
"""

from __future__ import annotations

import bisect
import configparser
import json
import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import PurePosixPath
from typing import Any

import yaml

SUFFIXES = frozenset({".toml", ".yaml", ".yml", ".json", ".ini", ".properties"})
"""The suffixes of settings files."""
NAMES = frozenset({"settings", "config", "configuration", "application", "appsettings"})
"""What a settings file's name starts with (before its first ``.`` or ``-``)."""
FOLDERS = frozenset({"config", "settings"})
"""A file of a settings suffix directly in a folder of one of these names is settings."""
MAX_KEYS = 2000
"""The most settings read from one file."""
MAX_DEPTH = 16
"""Tables nested deeper are one setting each (and a YAML alias cannot loop forever)."""
SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "secret",
        "token",
        "key",
        "apikey",
        "credential",
        "credentials",
        "private",
    }
)
"""A word of a key that makes its string value a secret (``db.password``, ``API_KEY``,
``stripe.secretKey``)."""

MASK = "<secret>"
"""What a secret is replaced by in the text stored (valid in a quoted string and as a YAML,
INI or ``.properties`` value)."""
SHOWN = 80
"""The longest value a setting's description quotes."""

_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_TOKEN = re.compile(r"[\w-]+")
_URL_PASSWORD = re.compile(r"^[A-Za-z][\w+.-]*://[^\s:/@]*:([^\s/@]+)@")


@dataclass(slots=True)
class Setting:
    """A setting: its keys from the top, its value as parsed, and its line (1-based)."""

    keys: tuple[str, ...]
    value: Any
    line: int = 0

    @property
    def name(self) -> str:
        """The setting's dotted name (``database.url``)."""
        return ".".join(self.keys)

    def secrets(self) -> list[str]:
        """The text of its value that is secret: a string value of a secret-looking key
        (:data:`SECRET_WORDS`), or the password of a URL (``postgres://app:PASSWORD@db``)."""
        if not isinstance(self.value, str) or not self.value.strip():
            return []
        if is_secret_key(self.name):
            return [self.value]
        found = _URL_PASSWORD.match(self.value)
        return [found.group(1)] if found else []

    def describe(self, path: str) -> str:
        """What the setting is: where it is set, its value's type and, unless it is a
        secret, its value; a boolean is a feature flag (``on by default``)."""
        value = self.value
        if isinstance(value, bool):
            return f"a feature flag in {path}, {'on' if value else 'off'} by default"
        where = f"a setting in {path}"
        if isinstance(value, str) and is_secret_key(self.name):
            return f"{where}: a secret string (its value is not stored)"
        if isinstance(value, str):
            shown = _URL_PASSWORD.sub(lambda m: m.group(0).replace(m.group(1), MASK), value)
            shown = " ".join(shown.split())
            shown = shown if len(shown) <= SHOWN else shown[: SHOWN - 3] + "..."
            return f'{where}: a string, "{shown}"'
        if isinstance(value, int | float):
            return f"{where}: {'an integer' if isinstance(value, int) else 'a number'}, {value}"
        if isinstance(value, list):
            return f"{where}: a list of {len(value)}"
        if value is None:
            return f"{where}: empty"
        if isinstance(value, date):
            return f"{where}: a date, {value.isoformat()}"
        return f"{where}: a table"


def is_settings(path: str) -> bool:
    """Whether ``path`` is a settings file (see the module docstring for the rule)."""
    file = PurePosixPath(path)
    suffix = file.suffix.lower()
    if file.name.startswith(".") or suffix not in SUFFIXES:
        return False
    head = re.split(r"[.-]", file.name, maxsplit=1)[0].lower()
    return head in NAMES or file.parent.name.lower() in FOLDERS


def is_secret_key(name: str) -> bool:
    """Whether a setting's name has a secret-looking word (``api_key``, ``dbPassword``)."""
    return any(word.lower() in SECRET_WORDS for word in _WORDS.findall(name))


def env_name(name: str) -> str:
    """The environment variable a setting is known by: ``database.url`` → ``DATABASE_URL``."""
    return re.sub(r"[.\-\s]", "_", name).upper()


def parse_settings(path: str, text: str) -> list[Setting]:
    """The settings a file sets, in order, each once, with their lines (nothing when it
    does not parse)."""
    return read_settings(path, text) or []


def read_settings(path: str, text: str) -> list[Setting] | None:
    """:func:`parse_settings`, but ``None`` when the file does not parse."""
    suffix = PurePosixPath(path).suffix.lower()
    try:
        if suffix == ".properties":
            found = _first(_properties(text))
        elif suffix == ".ini":
            found = _first(_ini(text))
        else:
            documents = (
                [json.loads(text)]
                if suffix == ".json"
                else [tomllib.loads(text)]
                if suffix == ".toml"
                else yaml.safe_load_all(text)
            )
            found = _first(s for document in documents for s in _walk(document, ()))
    except (ValueError, TypeError, RecursionError, yaml.YAMLError, configparser.Error):
        return None
    _locate(text, found)
    return found


def _first(settings: Iterable[Setting]) -> list[Setting]:
    """Each name's first setting, at most :data:`MAX_KEYS` (the rest is not looked at)."""
    kept: dict[str, Setting] = {}
    for setting in settings:
        kept.setdefault(setting.name, setting)
        if len(kept) >= MAX_KEYS:
            break
    return list(kept.values())


def _walk(value: Any, keys: tuple[str, ...], depth: int = 0) -> Iterator[Setting]:
    """The settings under ``value`` (a table descended into, anything else one setting)."""
    if isinstance(value, dict) and value and depth < MAX_DEPTH:
        for key, inner in value.items():
            yield from _walk(inner, (*keys, str(key)), depth + 1)
    elif keys:
        yield Setting(keys, value)


def _ini(text: str) -> Iterator[Setting]:
    """An INI file's settings: ``section.key``, a ``[DEFAULT]`` key by its own name. Its
    values are text; ``true``/``false`` and numbers are read as such."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keep the key's case
    parser.read_string(text)
    defaults = parser.defaults()
    for key, value in defaults.items():
        yield Setting((key,), _typed(value))
    for section in parser.sections():
        for key, value in parser.items(section, raw=True):
            if key not in defaults or defaults[key] != value:
                yield Setting((section, key), _typed(value))


def _properties(text: str) -> Iterator[Setting]:
    """A Java ``.properties`` file: ``key=value``, ``key: value`` or ``key value`` a line
    (``#`` and ``!`` comments, a line ending in ``\\`` continued), each key its own name."""
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        start = number
        line = lines[number].strip()
        number += 1
        while line.endswith("\\") and number < len(lines):
            line = line[:-1] + lines[number].strip()
            number += 1
        if line and line[0] not in "#!":
            key, *value = re.split(r"\s*[=:\s]\s*", line, maxsplit=1)
            yield Setting((key,), _typed(value[0] if value else ""), start + 1)


def _typed(value: str) -> Any:
    """A setting's text as a boolean or number when it reads as one."""
    lowered = value.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if re.fullmatch(r"[+-]?\d+", lowered):
        return int(lowered)
    if re.fullmatch(r"[+-]?\d*\.\d+", lowered):
        return float(lowered)
    return value


def _locate(text: str, settings: list[Setting]) -> None:
    """Set each setting's line: each of its keys looked for in order, from the line of
    the key above it (a setting whose line is known keeps it)."""
    lines = text.splitlines()
    where: dict[str, list[int]] = {}
    for number, said in enumerate(lines, 1):
        for token in set(_TOKEN.findall(said)):
            where.setdefault(token, []).append(number)
    found: dict[tuple[str, ...], int] = {}
    for setting in settings:
        if setting.line:
            continue
        at = 1
        for depth in range(1, len(setting.keys) + 1):
            keys = setting.keys[:depth]
            if keys not in found:
                found[keys] = _find(keys[-1], at, lines, where) or at
            at = found[keys]
        setting.line = at


def _find(key: str, start: int, lines: list[str], where: dict[str, list[int]]) -> int:
    """The first line from ``start`` that names ``key`` (0: none)."""
    if _TOKEN.fullmatch(key):
        numbers = where.get(key, [])
        at = bisect.bisect_left(numbers, start)
        return numbers[at] if at < len(numbers) else 0
    return next((n for n in range(start, len(lines) + 1) if key in lines[n - 1]), 0)
