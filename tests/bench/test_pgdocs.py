"""The PostgreSQL manual corpus: HTML conversion, reading order and scopes, set-up errors, and
the question file (its shape always; its answers against the converted manual when the
benchmark's cache holds it)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from bench import pgdocs

QUESTIONS_FILE = Path(pgdocs.__file__).parent / "data" / "longdoc" / "postgres.json"
KINDS = {"config", "datatype", "function", "index", "concurrency", "admin", "backup"}
KINDS |= {"replication", "sql", "client", "libpq", "server-programming", "internals"}
KINDS |= {"extension", "errors", "history"}

_NAV = (
    '<div class="navheader"><table summary="Navigation header"><tr><th>{title}</th></tr>'
    '<tr><td><a accesskey="p" href="{prev}">Prev</a></td>'
    '<td><a accesskey="u" href="{up}">Up</a></td>'
    '<td><a accesskey="h" href="index.html">Home</a></td>'
    '<td><a accesskey="n" href="{next}">Next</a></td></tr></table><hr /></div>'
)
_FOOT = (
    '<div class="navfooter"><hr /><table summary="Navigation footer"><tr>'
    '<td><a accesskey="p" href="{prev}">Prev</a></td><td><a accesskey="u" href="{up}">Up</a>'
    '</td><td><a accesskey="n" href="{next}">Next</a></td></tr></table></div>'
)


def _page(title: str, body: str, *, up: str = "index.html", next_page: str = "") -> str:
    links = {"title": title, "prev": "index.html", "up": up, "next": next_page}
    head_next = f'<link rel="next" href="{next_page}" title="x" />' if next_page else ""
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><head>'
        f"<title>{title}</title>{head_next}</head><body>"
        + _NAV.format(**links)
        + body
        + _FOOT.format(**links)
        + "</body></html>"
    )


SECTION = _page(
    "5.4.\u00a0Constraints",
    '<div class="sect1"><div class="titlepage"><h2 class="title">5.4.\u00a0Constraints</h2></div>'
    '<div class="toc"><dl class="toc"><dt><a href="#c">5.4.1. Check Constraints</a></dt></dl>'
    '</div><a id="x" class="indexterm"></a><p>\n   Data types are a way to limit the kind\n'
    "   of data that can be <em>stored</em> in a table.\n  </p>"
    '<div class="sect2"><div class="titlepage"><h3 class="title">5.4.1. Check Constraints</h3>'
    '</div><p>A check constraint uses <code class="literal">CHECK</code>; see '
    '<a class="xref" href="sql-createtable.html">CREATE TABLE</a>.</p>'
    '<pre class="programlisting">\nCREATE TABLE products (\n'
    "    price numeric CHECK (price &gt; 0)\n);\n</pre>"
    '<div class="note"><h3 class="title">Note</h3><p>Checks run on insert.</p></div>'
    '<div class="table"><table><thead><tr><th>Name</th><th>Storage Size</th></tr></thead>'
    "<tbody><tr><td>smallint</td><td>2 bytes</td></tr></tbody></table></div></div></div>",
    up="ddl.html",
)


def test_conversion_drops_navigation_and_keeps_headings_code_and_tables() -> None:
    page = pgdocs.parse_page(SECTION)
    text = page["text"]
    assert page["title"] == "5.4. Constraints"
    for navigation in ("Prev", "Next", "Home", "Up"):
        assert not re.search(rf"\b{navigation}\b", text)
    assert text.startswith("# 5.4. Constraints\n")
    assert "\n## 5.4.1. Check Constraints\n" in text
    assert text.count("Check Constraints") == 1  # the page's table of contents is gone
    assert "Data types are a way to limit the kind of data that can be stored in a table." in text
    assert "```\nCREATE TABLE products (\n    price numeric CHECK (price > 0)\n);\n```" in text
    assert "see CREATE TABLE." in text and "sql-createtable.html" not in text
    assert "\nNote\n" in text and "# Note" not in text
    assert "| smallint | 2 bytes |" in text
    assert "\u00a0" not in text
    assert page["up"] == "ddl.html"


def test_reference_page_sections_sit_below_its_title() -> None:
    html = _page(
        "CREATE INDEX",
        '<div class="refentry"><h2>CREATE INDEX</h2><p>CREATE INDEX — define a new index</p>'
        "<h2>Description</h2><p>Builds an index.</p><h3>Building Indexes Concurrently</h3>"
        "<p>Without locking out writes.</p></div>",
        up="sql-commands.html",
    )
    headings = [line for line in pgdocs.html_to_text(html).splitlines() if line.startswith("#")]
    assert headings == ["# CREATE INDEX", "## Description", "### Building Indexes Concurrently"]


def _write_manual(directory: Path) -> None:
    filler = "<p>" + "Words about the database server. " * 20 + "</p>"
    pages = {
        "index.html": _page("PostgreSQL 15.0 Documentation", "<h1>Docs</h1>", next_page="b.html"),
        "b.html": _page(
            "Part I. Tutorial", "<h1>Part I. Tutorial</h1>" + filler, next_page="a.html"
        ),
        "a.html": _page(
            "1. Getting Started", "<h2>1. Start</h2>" + filler, up="b.html", next_page="c.html"
        ),
        "c.html": _page(
            "Part IV. Client Interfaces", "<h1>Part IV</h1>" + filler, next_page="d.html"
        ),
        "d.html": _page("34. libpq", "<h2>34. libpq</h2><p>Too short.</p>", up="c.html"),
        "z.html": _page("Legal Notice", "<p>Legal</p>" + filler, up=""),
    }
    directory.mkdir(parents=True)
    for name, html in pages.items():
        (directory / name).write_text(html, encoding="utf-8")


def test_manual_follows_next_links_assigns_parts_and_skips_short_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pgdocs, "INSTALLED_HTML", tmp_path / "not-installed")
    monkeypatch.setattr(pgdocs, "QUICK_PARTS", ("Part I. Tutorial",))
    _write_manual(tmp_path / "cache" / "html")
    full = pgdocs.pg_manual_documents("full", cache_dir=tmp_path / "cache")
    assert [doc["source"] for doc in full] == ["b.html", "a.html", "c.html", "z.html"]
    assert set(full[0]) == {"source", "title", "text"}
    quick = pgdocs.pg_manual_documents("quick", cache_dir=tmp_path / "cache")
    assert [doc["source"] for doc in quick] == ["b.html", "a.html"]
    assert pgdocs.corpus_stats(quick) == {
        "pages": 2,
        "characters": len(quick[0]["text"]) + len(quick[1]["text"]),
    }
    cached = json.loads((tmp_path / "cache" / "pages.json").read_text(encoding="utf-8"))
    assert [page["part"] for page in cached["pages"]] == [
        "Part I. Tutorial",
        "Part I. Tutorial",
        "Part IV. Client Interfaces",
        "",
    ]
    with pytest.raises(ValueError, match="unknown scope"):
        pgdocs.pg_manual_documents("half", cache_dir=tmp_path / "cache")


def test_setup_without_apt_names_the_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pgdocs, "INSTALLED_HTML", tmp_path / "not-installed")
    monkeypatch.setattr("shutil.which", lambda tool: None)
    with pytest.raises(RuntimeError, match="apt-get download postgresql-doc-15"):
        pgdocs.manual_html_dir(tmp_path / "cache")


# --------------------------------------------------------------------------- the questions
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _normalise(text: str) -> str:
    """The benchmark's matching rule: lowercase, no ``_ * `````, ASCII quotes, single spaces."""
    text = re.sub(r"[_*`]", "", text.lower().translate(_QUOTES))
    return re.sub(r"\s+", " ", text)


def _questions() -> dict[str, object]:
    data: dict[str, object] = json.loads(QUESTIONS_FILE.read_text(encoding="utf-8"))
    return data


def test_question_file_shape() -> None:
    data = _questions()
    assert set(data) == {"about", "corpus", "questions"}
    assert data["corpus"] == "postgres" and isinstance(data["about"], str)
    questions = data["questions"]
    assert isinstance(questions, list) and len(questions) >= 40
    ids = Counter(question["id"] for question in questions)
    assert [name for name, count in ids.items() if count > 1] == []
    for question in questions:
        assert set(question) == {"id", "question", "kind", "where", "answers"}, question["id"]
        assert question["kind"] in KINDS, question["id"]
        assert question["question"].endswith("?"), question["id"]
        assert re.fullmatch(r"[a-z0-9-]+\.html", question["where"]), question["id"]
        groups = question["answers"]
        assert groups and all(groups), question["id"]
        for group in groups:
            assert all(isinstance(alt, str) and len(_normalise(alt).strip()) >= 3 for alt in group)
    assert len({question["kind"] for question in questions}) >= 10


def _converted_manual() -> list[dict[str, str]]:
    """The converted manual when this machine has set the corpus up (never downloads)."""
    html_ready = (pgdocs.INSTALLED_HTML / "index.html").is_file() or (
        pgdocs.CACHE_DIR / "html" / "index.html"
    ).is_file()
    if not (html_ready and pgdocs.CONVERTED_FILE.is_file()):
        pytest.skip("the PostgreSQL manual is not set up here (python -m bench.pgdocs)")
    return pgdocs.pg_manual_documents("full")


def test_every_answer_is_on_its_page_and_half_are_in_the_quick_scope() -> None:
    pages = {doc["source"]: _normalise(doc["text"]) for doc in _converted_manual()}
    quick = {doc["source"] for doc in pgdocs.pg_manual_documents("quick")}
    questions = _questions()["questions"]
    assert isinstance(questions, list)
    missing = [
        (question["id"], alternative)
        for question in questions
        for group in question["answers"]
        for alternative in group
        if _normalise(alternative) not in pages.get(question["where"], "")
    ]
    assert missing == []
    in_quick = sum(question["where"] in quick for question in questions)
    assert 2 * in_quick >= len(questions)
