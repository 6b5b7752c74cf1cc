"""The PostgreSQL 15 manual as a long-document benchmark corpus (technical documentation).

Set-up, only when :func:`manual_html_dir` (or :func:`pg_manual_documents`) is called: the HTML
manual of Debian's ``postgresql-doc-15`` package is read in place when the package is
installed, otherwise fetched with ``apt-get download`` and unpacked with ``dpkg-deb -x`` under
``bench/data/cache/pgdocs/`` (git-ignored). Nothing here touches the network at import time.

Conversion: one document per HTML page, in the manual's reading order (each page's *next*
link, starting at ``index.html``). The navigation every page repeats (header, footer, tables
of contents, the back-of-book index entries) is removed; section headings stay as markdown
``#`` lines, with the page's own title at level 1; code blocks are fenced, tables are markdown
tables, links keep their text only. Pages with almost no text left are skipped by one rule
(:data:`MIN_CHARS`). The converted manual is cached as JSON next to the HTML.

``python -m bench.pgdocs [--scope quick]`` sets the corpus up and prints its size.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import ROOT

PACKAGE = "postgresql-doc-15"
"""The Debian package that holds the manual's HTML."""

PACKAGE_HTML = Path("usr") / "share" / "doc" / PACKAGE / "html"
"""Where the HTML is inside the package (and under ``/`` when the package is installed)."""

INSTALLED_HTML = Path("/") / PACKAGE_HTML
CACHE_DIR = ROOT / "bench" / "data" / "cache" / "pgdocs"
"""The unpacked HTML (``html/``) and the converted pages (``pages.json``); git-ignored."""

CONVERTED_FILE = CACHE_DIR / "pages.json"

QUICK_PARTS = ("Part I. Tutorial", "Part II. The SQL Language", "Part III. Server Administration")
"""The quick scope: these top-level divisions of the manual (its table of contents)."""

SCOPES = ("full", "quick")

MIN_CHARS = 200
"""Pages whose converted text, headings excluded, is shorter than this are skipped."""

CONVERSION = 1
"""Version of the conversion rules; a cache written by another version is rebuilt."""

_NAVIGATION = (
    "div.navheader",
    "div.navfooter",
    "div.toc",
    "div.list-of-tables",
    "div.list-of-figures",
    "div.list-of-examples",
    "div.indexdiv",
    "a.indexterm",
)
_ADMONITIONS = ("note", "tip", "hint", "warning", "caution", "important")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_SPACES = re.compile(r"\s+")
_BLANK_LINES = re.compile(r"\n\s*\n(\s*\n)+")
_TRAILING_SPACES = re.compile(r"[ \t]+\n")


# --------------------------------------------------------------------------- set-up
def manual_html_dir(cache_dir: Path = CACHE_DIR) -> Path:
    """The directory of the manual's HTML pages, fetching and unpacking the package if needed.

    Uses the installed package's pages when present, else ``cache_dir/html``; when neither
    exists, downloads ``postgresql-doc-15`` with ``apt-get download`` (no installation, no
    root needed beyond apt's own) and unpacks it with ``dpkg-deb -x``.
    """
    if (INSTALLED_HTML / "index.html").is_file():
        return INSTALLED_HTML
    target = cache_dir / "html"
    if not (target / "index.html").is_file():
        _download_manual(target)
    return target


def _download_manual(target: Path) -> None:
    missing = [tool for tool in ("apt-get", "dpkg-deb") if shutil.which(tool) is None]
    if missing:
        raise RuntimeError(
            f"the PostgreSQL manual needs {' and '.join(missing)} (Debian/Ubuntu) to set up; "
            f"install it with `apt-get install {PACKAGE}`, or run `apt-get download {PACKAGE}` "
            f"and `dpkg-deb -x {PACKAGE}_*.deb DIR` on such a machine and copy "
            f"DIR/{PACKAGE_HTML} to {target}"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        work = Path(tmp)
        _run(["apt-get", "download", PACKAGE], work)
        debs = sorted(work.glob(f"{PACKAGE}_*.deb"))
        if not debs:
            raise RuntimeError(f"`apt-get download {PACKAGE}` left no .deb file in {work}")
        _run(["dpkg-deb", "-x", str(debs[-1]), str(work / "root")], work)
        unpacked = work / "root" / PACKAGE_HTML
        if not (unpacked / "index.html").is_file():
            raise RuntimeError(f"{debs[-1].name} holds no {PACKAGE_HTML}/index.html")
        if target.exists():
            shutil.rmtree(target)
        unpacked.rename(target)


def _run(command: list[str], cwd: Path) -> None:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(
            f"`{' '.join(command)}` failed ({result.returncode}): {result.stderr.strip()}"
        )


# --------------------------------------------------------------------------- one page
@functools.cache
def _converter() -> Any:
    from markdownify import MarkdownConverter

    class _PlainConverter(MarkdownConverter):
        """Markdown headings, fenced code and tables; links, emphasis and images as text."""

        def convert_a(self, el: Any, text: str, parent_tags: set[str]) -> str:
            return text

        def convert_em(self, el: Any, text: str, parent_tags: set[str]) -> str:
            return text

        convert_i = convert_strong = convert_b = convert_em

        def convert_img(self, el: Any, text: str, parent_tags: set[str]) -> str:
            return str(el.get("alt") or "")

    return _PlainConverter(
        heading_style="ATX",
        bullets="-",
        escape_asterisks=False,
        escape_underscores=False,
        escape_misc=False,
    )


def parse_page(html: str) -> dict[str, str]:
    """One HTML page of the manual as ``title``, ``text``, and the ``next`` and ``up`` pages
    its navigation links to (empty when it has none)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    title = _SPACES.sub(" ", soup.title.get_text(" ") if soup.title else "").strip()
    next_link = soup.find("link", rel="next")
    up_link = soup.select_one("div.navheader a[accesskey=u]")
    page = {
        "title": title,
        "next": str(next_link.get("href") or "") if next_link else "",
        "up": str(up_link.get("href") or "") if up_link else "",
    }
    for selector in _NAVIGATION:
        for element in soup.select(selector):
            element.decompose()
    _plain_admonition_titles(soup)
    _shift_headings(soup)
    _collapse_whitespace(soup)
    body = soup.body or soup
    page["text"] = _tidy(_converter().convert_soup(body))
    return page


def html_to_text(html: str) -> str:
    """The text of one manual page (see the module docstring for the rules)."""
    return parse_page(html)["text"]


def _plain_admonition_titles(soup: Any) -> None:
    """Admonition boxes keep their label ("Note", "Warning" ...) as a line, not a heading."""
    for name in _ADMONITIONS:
        for box in soup.select(f"div.{name}"):
            for heading in box.find_all(_HEADINGS):
                heading.name = "p"


def _shift_headings(soup: Any) -> None:
    """Renumber the headings: the page's first (its title) becomes level 1, the others keep
    their relative depth from level 2 on (a reference page's sections sit at its title's
    level in the HTML)."""
    headings = soup.find_all(_HEADINGS)
    if not headings:
        return
    levels = [int(heading.name[1]) for heading in headings]
    base = min([levels[0], *(level - 1 for level in levels[1:])])
    headings[0].name = "h1"
    for heading, level in zip(headings[1:], levels[1:], strict=True):
        heading.name = f"h{min(6, level - base + 1)}"


def _collapse_whitespace(soup: Any) -> None:
    """Unwrap the source's line breaks outside preformatted blocks."""
    for string in soup.find_all(string=True):
        if "\n" in string and string.find_parent("pre") is None:
            string.replace_with(_SPACES.sub(" ", str(string)))


def _tidy(text: str) -> str:
    text = _TRAILING_SPACES.sub("\n", text.replace("\xa0", " "))
    return _BLANK_LINES.sub("\n\n", text).strip() + "\n"


def body_chars(text: str) -> int:
    """Characters of a converted page outside its heading lines."""
    return sum(len(line) for line in text.splitlines() if not line.startswith("#"))


# --------------------------------------------------------------------------- the manual
def convert_manual(html_dir: Path) -> dict[str, Any]:
    """Every page of the manual in reading order, each with ``source``, ``title``, ``part``
    (the top-level division it belongs to: preface, part, bibliography, index) and ``text``,
    then the pages the *next* links never reach, by name and in no part; pages under
    :data:`MIN_CHARS` of text are left out. Also the manual's own title (``manual``)."""
    parsed = {
        path.name: parse_page(path.read_text(encoding="utf-8"))
        for path in sorted(html_dir.glob("*.html"))
    }
    home = "index.html"
    chain = reading_order(parsed, home)
    parts: dict[str, str] = {}
    part = ""
    for name in chain:
        if parsed[name]["up"] == home:  # a top-level division starts here
            part = parsed[name]["title"]
        parts[name] = part
    pages: list[dict[str, str]] = []
    for name in chain + sorted(set(parsed) - set(chain)):
        page = parsed[name]
        if body_chars(page["text"]) >= MIN_CHARS:
            pages.append(
                {
                    "source": name,
                    "title": page["title"],
                    "part": parts.get(name, ""),
                    "text": page["text"],
                }
            )
    return {"manual": parsed[home]["title"] if home in parsed else "", "pages": pages}


def reading_order(parsed: dict[str, dict[str, str]], home: str) -> list[str]:
    """Page names in the order of their *next* links, starting at ``home``."""
    order: list[str] = []
    seen: set[str] = set()
    name = home
    while name in parsed and name not in seen:
        order.append(name)
        seen.add(name)
        name = parsed[name]["next"].split("#", 1)[0]
    return order


def _converted(cache_dir: Path = CACHE_DIR) -> dict[str, Any]:
    """The converted manual, from ``pages.json`` when it was written by these rules from the
    same HTML directory, else converted now and cached."""
    html_dir = manual_html_dir(cache_dir)
    key = {"conversion": CONVERSION, "min_chars": MIN_CHARS, "html_dir": str(html_dir)}
    cache = cache_dir / CONVERTED_FILE.name
    if cache.is_file():
        data: dict[str, Any] = json.loads(cache.read_text(encoding="utf-8"))
        if all(data.get(name) == value for name, value in key.items()):
            return data
    started = time.perf_counter()
    data = key | convert_manual(html_dir)
    data["convert_seconds"] = round(time.perf_counter() - started, 1)
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_suffix(".json.tmp")
    partial.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    partial.replace(cache)
    return data


def pg_manual_documents(scope: str = "full", cache_dir: Path = CACHE_DIR) -> list[dict[str, str]]:
    """The manual's pages as documents ``{"source", "title", "text"}`` in reading order.

    ``scope="full"`` is the whole manual; ``scope="quick"`` its first three parts (Tutorial,
    The SQL Language, Server Administration, :data:`QUICK_PARTS`). Sets the corpus up on
    first use (see :func:`manual_html_dir`); later calls read the converted cache.
    """
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; expected one of {', '.join(SCOPES)}")
    pages = _converted(cache_dir)["pages"]
    return [
        {"source": page["source"], "title": page["title"], "text": page["text"]}
        for page in pages
        if scope == "full" or page["part"] in QUICK_PARTS
    ]


def corpus_stats(docs: Sequence[dict[str, str]]) -> dict[str, int]:
    """Pages and characters of a list of documents."""
    return {"pages": len(docs), "characters": sum(len(doc["text"]) for doc in docs)}


def main(argv: Sequence[str] | None = None) -> None:
    """Set the corpus up and print its size (``python -m bench.pgdocs``)."""
    parser = argparse.ArgumentParser(prog="python -m bench.pgdocs", description=__doc__)
    parser.add_argument("--scope", choices=SCOPES, default="full")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    docs = pg_manual_documents(args.scope)
    stats = corpus_stats(docs) | {"seconds": round(time.perf_counter() - started, 1)}
    print(json.dumps({"scope": args.scope, **stats}))


if __name__ == "__main__":
    main()
