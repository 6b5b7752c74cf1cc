"""The long-document benchmark's answer matching, chunk baselines, corpora and tables, on tiny
hand-made inputs (no ingest)."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from bench.baselines import IndexRanking
from bench.common import RunOptions
from bench.longdoc_corpora import Corpus, Skipped, in_scope, load_question_file, page_keys
from bench.longdoc_report import console_table, render_longdoc
from bench.longdoc_text import (
    Chunk,
    chunk_documents,
    chunk_view,
    holds_answer,
    normalise,
    pack,
    windows,
)

from bench import longdoc, longdoc_corpora
from loregraph.text.tokens import count_tokens


# --------------------------------------------------------------------------- matching
def test_normalise_folds_case_emphasis_quotes_and_whitespace() -> None:
    assert normalise("  The *Czarina*\n\t_Catherine_  ") == "the czarina catherine"
    assert normalise("`max_connections`") == "maxconnections"
    assert normalise("\u201cDen\u2019s\u201d \u2018x\u2019") == "\"den's\" 'x'"
    assert normalise("a\u00a0\u00a0b\r\n\r\nc") == "a b c"


def test_holds_answer_needs_every_group_and_one_alternative_of_each() -> None:
    context = "Seward, then Quincey Morris, and at last Arthur proposed."
    assert holds_answer(context, [["Seward"], ["Morris", "Quincey"], ["Holmwood", "Arthur"]])
    assert not holds_answer(context, [["Seward"], ["Van Helsing"]])
    assert holds_answer(context, [["van helsing", "SEWARD"]])


def test_holds_answer_matches_across_markup_quotes_and_line_breaks() -> None:
    context = "They sailed on the _Demeter_ from\nVarna; the \u201cbloofer\u00a0lady\u201d."
    assert holds_answer(context, [["the Demeter from Varna"]])
    assert holds_answer(context, [['"bloofer lady"']])
    assert holds_answer("set `shared_buffers` to 128MB", [["sharedbuffers"], ["128 MB", "128MB"]])
    assert not holds_answer("Deme ter", [["Demeter"]])


@pytest.mark.parametrize("answers", [[], [[]], [["", "x"]], [["  "]], ["Demeter"]])
def test_holds_answer_rejects_answers_that_would_hold_anywhere(answers: Any) -> None:
    with pytest.raises(ValueError):
        holds_answer("anything", answers)


# --------------------------------------------------------------------------- chunks
def test_windows_overlap_and_end_at_the_text_end() -> None:
    assert windows("x" * 2500) == [0, 800, 1600]
    assert windows("x" * 1000) == [0]
    assert windows("x" * 1001) == [0, 800]
    assert windows("x" * 30, size=10, overlap=5) == [0, 5, 10, 15, 20]
    assert windows("  \n ") == []
    with pytest.raises(ValueError):
        windows("abc", size=10, overlap=10)


def test_chunks_stay_within_their_document() -> None:
    docs = [("a.html", "A", "a" * 1500), ("b.html", "B", "b" * 300)]
    chunks = chunk_documents(docs)
    assert [(c.source, c.start, len(c.text)) for c in chunks] == [
        ("a.html", 0, 1000),
        ("a.html", 800, 700),
        ("b.html", 0, 300),
    ]
    assert all(set(c.text) == {c.source[0]} for c in chunks)
    chunk = Chunk("A", "a.html", 0, "text")
    assert chunk_view(chunk, titled=True) == "A\ntext"
    assert chunk_view(chunk, titled=False) == "text"


def test_pack_fills_the_budget_in_rank_order_and_truncates_the_last_chunk() -> None:
    texts = [f"chunk {i} " + "word " * 60 for i in range(10)]
    packed = pack(texts, 200)
    assert count_tokens(packed) <= 200
    assert count_tokens(packed) >= 190
    whole = "\n\n".join(texts)
    assert whole.startswith(packed)  # rank order, and the last chunk is cut, not dropped
    assert "chunk 3 word" in packed and "chunk 4" not in packed  # 63 tokens per chunk
    assert not packed.endswith(texts[3].rstrip())
    assert pack(texts[:2], 4000) == "\n\n".join(texts[:2]).rstrip()
    assert pack(texts, 0) == ""
    assert pack([], 100) == ""


def test_pack_never_exceeds_the_budget_on_awkward_text() -> None:
    texts = ["é" * 700, "\u201cquoted\u201d " * 200, "x" * 3000]
    for budget in (1, 7, 50, 333, 1000):
        assert count_tokens(pack(texts, budget)) <= budget


# --------------------------------------------------------------------------- corpora
def _write_questions(path: Path, questions: list[dict[str, Any]], corpus: str) -> Path:
    path.write_text(json.dumps({"about": "test", "corpus": corpus, "questions": questions}))
    return path


def _q(ident: str, where: Any = "p.html", answers: Any = None) -> dict[str, Any]:
    return {
        "id": ident,
        "question": f"question {ident}?",
        "kind": "fact",
        "where": where,
        "answers": answers if answers is not None else [["x"]],
    }


def test_question_file_is_checked(tmp_path: Path) -> None:
    with pytest.raises(Skipped):
        load_question_file(tmp_path / "missing.json", "postgres")
    good = _write_questions(tmp_path / "good.json", [_q("1"), _q("2")], "postgres")
    about, questions = load_question_file(good, "postgres")
    assert about == "test" and [q["id"] for q in questions] == ["1", "2"]
    with pytest.raises(ValueError, match="corpus"):
        load_question_file(good, "dracula")
    twice = _write_questions(tmp_path / "twice.json", [_q("1"), _q("1")], "postgres")
    with pytest.raises(ValueError, match="twice"):
        load_question_file(twice, "postgres")
    empty = _write_questions(tmp_path / "empty.json", [_q("1", answers=[[""]])], "postgres")
    with pytest.raises(ValueError, match="question 1"):
        load_question_file(empty, "postgres")


def test_questions_about_pages_not_ingested_are_left_out() -> None:
    assert page_keys("html/sql-createtable.html", "CREATE TABLE") == {
        "html/sql-createtable.html",
        "sql-createtable.html",
        "sql-createtable",
        "create table",
    }
    docs = [("html/sql-createtable.html", "CREATE TABLE", "text")]
    questions = [
        _q("a", "sql-createtable.html"),
        _q("b", "Create Table"),
        _q("c", "sql-vacuum.html"),
        _q("d", ["sql-vacuum.html", "sql-createtable"]),
        _q("e", None),
    ]
    kept, left = in_scope(questions, docs)
    assert [q["id"] for q in kept] == ["a", "b", "d"]
    assert left == ["c", "e"]


def test_postgres_is_skipped_when_its_module_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(longdoc_corpora, "QUESTIONS_DIR", tmp_path)
    with pytest.raises(Skipped, match="question file"):
        longdoc_corpora.postgres(RunOptions(quick=True))
    _write_questions(tmp_path / "postgres.json", [_q("1")], "postgres")
    monkeypatch.setitem(sys.modules, "bench.pgdocs", None)  # import raises ImportError
    with pytest.raises(Skipped, match="pgdocs"):
        longdoc_corpora.postgres(RunOptions(quick=True))


def test_postgres_keeps_the_questions_about_its_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(longdoc_corpora, "QUESTIONS_DIR", tmp_path)
    monkeypatch.setattr(longdoc_corpora, "TMP_DIR", tmp_path / "tmp")
    pages = [{"source": "p.html", "title": "P", "text": "Page text."}]
    shim = types.ModuleType("bench.pgdocs")
    shim.pg_manual_documents = lambda scope="full": pages  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bench.pgdocs", shim)
    _write_questions(tmp_path / "postgres.json", [_q("1"), _q("2", "q.html")], "postgres")
    corpus = longdoc_corpora.postgres(RunOptions(quick=True))
    assert [q["id"] for q in corpus.questions] == ["1"] and corpus.out_of_scope == ["2"]
    records = json.loads(corpus.ingest_file.read_text())
    assert records == [{"id": "p.html", "title": "P", "text": "Page text."}]
    assert corpus.store_name == "longdoc-postgresquick"
    _write_questions(tmp_path / "postgres.json", [_q("2", "q.html")], "postgres")
    with pytest.raises(Skipped, match="none of the 1 questions"):
        longdoc_corpora.postgres(RunOptions(quick=False))


# --------------------------------------------------------------------------- scoring
def test_baseline_contexts_are_scored_per_budget() -> None:
    views = ["The ship was the Demeter. " + "filler " * 2000, "Varna is a port. ", "noise"]
    questions = [
        {"id": "1", "question": "ship?", "answers": [["Demeter"]]},
        {"id": "2", "question": "port?", "answers": [["Varna"]]},
    ]
    ranked = IndexRanking([[0, 1], [2, 1]], 0.0, [0.001, 0.002], {})
    run = longdoc.baseline_run("BM25 chunks", ranked, views, questions)
    assert run.held == [[True] * 4, [True] * 4]
    figures = run.figures()
    assert figures["held"] == {"500": 100.0, "1000": 100.0, "2000": 100.0, "4000": 100.0}
    assert figures["mean_tokens"]["500"] <= 500
    ranked = IndexRanking([[1, 0], [0, 1]], 0.0, [], {})
    run = longdoc.baseline_run("BM25 chunks", ranked, views, questions)
    assert [row[0] for row in run.held] == [True, False]  # question 2: Varna after 2,000+
    assert run.figures()["held_n"]["500"] == 1


def test_a_skipped_corpus_does_not_stop_the_section(monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = Corpus("dracula", "book", [("b.txt", "B", "text")], Path("b.txt"), "s", "", [])

    def skipped(options: RunOptions) -> Corpus:
        raise Skipped("no question file bench/data/longdoc/postgres.json")

    monkeypatch.setattr(
        longdoc, "LOADERS", {"dracula": lambda options: corpus, "postgres": skipped}
    )
    monkeypatch.setattr(longdoc, "measure", lambda c, o: dict(RESULT_CORPUS))
    out = longdoc.run(RunOptions(quick=True))
    corpora = out["figures"]["corpora"]
    assert corpora["dracula"]["status"] == "ok"
    assert corpora["postgres"] == {
        "status": "skipped",
        "reason": "no question file bench/data/longdoc/postgres.json",
    }
    monkeypatch.setattr(longdoc, "LOADERS", {"dracula": skipped, "postgres": skipped})
    with pytest.raises(RuntimeError, match="no corpus"):
        longdoc.run(RunOptions(quick=True))


# --------------------------------------------------------------------------- tables
def _system(held: list[float], kind: str = "engine") -> dict[str, Any]:
    budgets = ("500", "1000", "2000", "4000")
    return {
        "kind": kind,
        "held": dict(zip(budgets, held, strict=True)),
        "mean_tokens": dict(zip(budgets, (480.0, 990.0, 1985.5, 3990.0), strict=True)),
        "latency": {"n": 3, "p50_ms": 31.25, "p95_ms": 48.0},
        "errors": 0,
    }


RESULT_CORPUS: dict[str, Any] = {
    "status": "ok",
    "data": "dracula.txt, the whole book",
    "questions": 3,
    "questions_out_of_scope": 2,
    "baseline_chunks": 1058,
    "store": {"seconds_total": 102.7, "cached": True, "built_with": {"commit": "abcdef0123456"}},
    "systems": {
        "BM25 chunks": _system([0.0, 33.3, 66.7, 100.0], "baseline"),
        "loregraph hybrid": _system([33.3, 33.3, 33.3, 66.7]),
    },
    "offline_answers": {
        "preset": "hybrid",
        "n": 3,
        "held_n": 1,
        "held": 33.3,
        "found": 3,
        "latency": {"n": 3, "p50_ms": 25.8, "p95_ms": 29.6},
    },
}


def test_tables_show_every_system_budget_latency_and_skipped_corpus() -> None:
    result = {
        "mode": "quick",
        "timestamp": "2025-01-01T00:00:00+00:00",
        "command": "python -m bench.run --quick --only longdoc",
        "commit": {"commit": "0123456789abcdef", "dirty": False},
        "machine": {"cores": 2, "ram_gb": 23.4, "python": "3.11.9"},
        "wall_seconds": 190.0,
        "figures": {
            "budgets": [500, 1000, 2000, 4000],
            "corpora": {
                "dracula": RESULT_CORPUS,
                "postgres": {"status": "skipped", "reason": "no question file"},
            },
        },
    }
    text = render_longdoc(result)
    assert "quick run, commit 0123456789" in text
    assert "`python -m bench.run --quick --only longdoc`" in text
    assert "| BM25 chunks | 0.0 | 33.3 | 66.7 | 100.0 | 1,985.5 | 31.2 / 48.0 |  |" in text
    assert "| loregraph hybrid | 33.3 | 33.3 | 33.3 | 66.7 |" in text
    assert "2 more left out" in text
    assert "33.3 % (1 of 3" in text
    assert "cached store: the time measured when it was built, commit abcdef0123" in text
    assert "**postgres** — skipped: no question file" in text
    console = console_table("dracula", RESULT_CORPUS, (500, 1000, 2000, 4000))
    assert "loregraph hybrid" in console and "66.7" in console and "102.7 s" in console


class _FakeAnswer:
    def __init__(self, text: str) -> None:
        self.text, self.found, self.llm = text, True, False


class _FakeGraph:
    """Answers ``context`` with the answer only from 2,000 tokens on, and fails on "boom"."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, str]] = []

    def context(self, question: str, *, budget: int, preset: str) -> str:
        self.calls.append((question, budget, preset))
        if "boom" in question:
            raise RuntimeError("boom")
        return "the Demeter" if budget >= 2000 else "nothing here"

    def ask(self, question: str) -> _FakeAnswer:
        if "boom" in question:
            raise RuntimeError("boom")
        return _FakeAnswer("It was the *Demeter*.")


def test_preset_run_asks_every_budget_and_times_the_2000_token_calls() -> None:
    graph = _FakeGraph()
    questions = [
        {"id": "1", "question": "ship?", "answers": [["Demeter"]]},
        {"id": "2", "question": "boom?", "answers": [["Demeter"]]},
    ]
    run = longdoc.preset_run(graph, "hybrid", questions)
    assert graph.calls[0] == ("ship?", 2000, "hybrid")  # the warm-up call
    assert [c[1] for c in graph.calls[1:5]] == [500, 1000, 2000, 4000]
    assert run.held == [[False, False, True, True], [False] * 4]
    assert len(run.latencies) == 1  # the failing question has no latency
    assert run.errors == 4 and run.first_error == "RuntimeError: boom"
    assert run.figures()["held"]["2000"] == 50.0
    answers = longdoc.offline_answers(graph, questions)
    assert answers["per_question"] == [True, False]
    assert (answers["held"], answers["errors"], answers["found"]) == (50.0, 1, 1)


def test_an_answer_is_scored_on_its_quotes_not_its_sources() -> None:
    from bench.longdoc import answer_body
    from bench.longdoc_text import holds_answer

    text = "No LLM.\n\nLucy slept. [1]\n\nSources:\n[1] dracula › DR. SEWARD’S DIARY, chunk 3"
    assert not holds_answer(answer_body(text), [["Seward"]])
    assert holds_answer(answer_body(text), [["Lucy"]])
