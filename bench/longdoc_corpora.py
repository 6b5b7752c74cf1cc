"""The corpora and question files of the long-document benchmark.

``dracula``: the whole book as one document. ``moonstone``: a second novel, Wilkie Collins's
*The Moonstone*, as one document, with questions written before any tuning (the
generalisation check: nothing was ever tuned on it). ``postgres``: the PostgreSQL manual, one
document per HTML page, from :func:`bench.pgdocs.pg_manual_documents` (imported only when
needed: a missing module or question file makes that corpus *skipped*, with the reason,
never the whole section fail). Questions live in ``bench/data/longdoc/<corpus>.json``:
``{"about", "corpus", "questions": [{"id", "question", "kind", "where", "answers"}]}``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import BENCH_DATA, DRACULA_FILE, LONGDOC_QUESTIONS, ROOT, TMP_DIR, RunOptions
from bench.longdoc_text import check_answers
from loregraph.ingest.read.textio import one_line_end

QUESTIONS_DIR = LONGDOC_QUESTIONS
CORPORA = ("dracula", "moonstone", "postgres")


class Skipped(Exception):
    """A corpus that cannot be measured in this run; the message says why."""


@dataclass(slots=True)
class Corpus:
    """A corpus ready to measure: its documents, the file the engine ingests, the questions
    in scope and those left out (their ``where`` page is not among the documents)."""

    name: str
    data: str
    documents: list[tuple[str, str, str]]
    ingest_file: Path
    store_name: str
    about: str
    questions: list[dict[str, Any]]
    out_of_scope: list[str] = field(default_factory=list)

    @property
    def characters(self) -> int:
        """Characters of text over all documents."""
        return sum(len(text) for _, _, text in self.documents)


def load_question_file(path: Path, corpus: str) -> tuple[str, list[dict[str, Any]]]:
    """``(about, questions)`` of a question file, checked: raises :class:`Skipped` when the
    file is missing, and ``ValueError`` naming the question when one is malformed."""
    if not path.exists():
        raise Skipped(f"no question file {_shown(path)}")
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("corpus") not in (None, corpus):
        raise ValueError(f"{path.name} is about corpus {data.get('corpus')!r}, not {corpus!r}")
    questions = list(data.get("questions") or [])
    seen: set[str] = set()
    for i, q in enumerate(questions):
        ident = str(q.get("id", f"#{i}"))
        if not isinstance(q.get("question"), str) or not q["question"].strip():
            raise ValueError(f"{path.name}: question {ident} has no question text")
        try:
            check_answers(q.get("answers") or [])
        except ValueError as exc:
            raise ValueError(f"{path.name}: question {ident}: {exc}") from None
        if ident in seen:
            raise ValueError(f"{path.name}: question id {ident} is used twice")
        seen.add(ident)
        q["id"] = ident
    if not questions:
        raise Skipped(f"{_shown(path)} holds no questions")
    return str(data.get("about", "")), questions


def _shown(path: Path) -> str:
    """``path`` relative to the project when it is inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def page_keys(source: str, title: str) -> set[str]:
    """The names a question's ``where`` may give a page by: its source, the source's file
    name with and without extension, its title (compared case-insensitively)."""
    name = source.rsplit("/", 1)[-1]
    keys = {source, name, name.rsplit(".", 1)[0], title}
    return {k.strip().casefold() for k in keys if k.strip()}


def in_scope(
    questions: list[dict[str, Any]], documents: list[tuple[str, str, str]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The questions whose ``where`` page is one of ``documents``, and the ids of the
    others. A ``where`` that is a list is in scope when any of its pages is."""
    keys = set().union(*(page_keys(source, title) for source, title, _ in documents))
    kept: list[dict[str, Any]] = []
    left: list[str] = []
    for q in questions:
        where = q.get("where")
        pages = where if isinstance(where, list) else [where]
        if any(isinstance(p, str) and p.strip().casefold() in keys for p in pages):
            kept.append(q)
        else:
            left.append(q["id"])
    return kept, left


MOONSTONE_FILE = BENCH_DATA / "book2" / "moonstone.txt"


def novel(name: str, path: Path, title: str) -> Corpus:
    """A whole book as one document (both modes), every question of ``<name>.json``. The
    engine ingests the file as distributed; the baselines read it as the engine's reader
    does (no byte-order mark, LF line ends)."""
    about, questions = load_question_file(QUESTIONS_DIR / f"{name}.json", name)
    if not path.exists():
        raise Skipped(f"the book is missing: {path}")
    text = one_line_end(path.read_text(encoding="utf-8-sig"))
    return Corpus(
        name=name,
        data=f"{path.name}, the whole book as one document ({len(text):,} characters)",
        documents=[(path.name, title, text)],
        ingest_file=path,
        store_name=f"longdoc-{name}",
        about=about,
        questions=questions,
    )


def dracula(options: RunOptions) -> Corpus:
    """*Dracula*, the whole book."""
    return novel("dracula", DRACULA_FILE, "Dracula")


def moonstone(options: RunOptions) -> Corpus:
    """*The Moonstone*, the whole second novel (byte-order mark, CRLF line ends)."""
    return novel("moonstone", MOONSTONE_FILE, "The Moonstone")


def postgres(options: RunOptions) -> Corpus:
    """The manual's pages (quick: the fixed quick part; full: all of it) and the questions
    about pages among them."""
    about, questions = load_question_file(QUESTIONS_DIR / "postgres.json", "postgres")
    try:
        from bench.pgdocs import pg_manual_documents
    except ImportError as exc:
        raise Skipped(f"bench.pgdocs is not available: {exc}") from None
    scope = "quick" if options.quick else "full"
    try:
        pages = pg_manual_documents(scope)
    except Exception as exc:  # a missing package or converter skips the corpus, with why
        raise Skipped(
            f"pg_manual_documents({scope!r}) failed: {type(exc).__name__}: {exc}"
        ) from exc
    documents = [(p["source"], p["title"], p["text"]) for p in pages if p["text"].strip()]
    if not documents:
        raise Skipped(f"pg_manual_documents({scope!r}) returned no pages")
    kept, left = in_scope(questions, documents)
    if not kept:
        raise Skipped(
            f"none of the {len(questions)} questions is about a page in the {scope} scope"
        )
    chars = sum(len(t) for _, _, t in documents)
    return Corpus(
        name="postgres",
        data=f"PostgreSQL manual, {scope} scope: {len(documents):,} pages ({chars:,} characters)",
        documents=documents,
        ingest_file=record_file(f"longdoc-postgres-{scope}", documents),
        store_name=f"longdoc-postgres{scope}",
        about=about,
        questions=kept,
        out_of_scope=left,
    )


def record_file(prefix: str, documents: list[tuple[str, str, str]]) -> Path:
    """``documents`` as a JSON record file (``id`` = source) under ``bench/results/tmp/``,
    named by content hash; older files of the same prefix are removed."""
    records = [{"id": s, "title": t, "text": x} for s, t, x in documents]
    data = json.dumps(records, ensure_ascii=False).encode("utf-8")
    TMP_DIR.mkdir(parents=True, exist_ok=True)
    path = TMP_DIR / f"{prefix}-{hashlib.sha256(data).hexdigest()[:12]}.json"
    for old in TMP_DIR.glob(f"{prefix}-*.json"):
        if old != path:
            old.unlink(missing_ok=True)
    if not path.exists():
        path.write_bytes(data)
    return path


LOADERS = {"dracula": dracula, "moonstone": moonstone, "postgres": postgres}
