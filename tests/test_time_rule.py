"""Answers that know the time (issue 29, Found 3): one ``--as-of`` rule for every command
(content with no stated time is timeless), ``--known-at`` for what the store knew, dates
in every context format, ended facts left out or shown as ended, future memories refused
unless planned."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import loregraph
from loregraph.answer.extractive import extractive_answer
from loregraph.cli.app import main
from loregraph.models import Relation
from loregraph.timepoint import TimePoint

NOVEL = (
    "Jonathan Harker travelled to Castle Dracula in Transylvania. Count Dracula welcomed "
    "Jonathan Harker at the castle. Mina Murray is engaged to Jonathan Harker."
)
EXPRESS = "The API server depends on Express."
HONO = "The API server now depends on Hono instead of Express."
QUESTION = "What does the API server depend on?"
BEFORE = "2020-01-01"  # before anything was stored, and before every memory's date


def run(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def ok(db: Path, *args: str) -> str:
    result = run(db, *args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def novel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding a book ingested today: no world time stated anywhere."""
    folder = tmp_path_factory.mktemp("novel")
    (folder / "dracula.txt").write_text(NOVEL, encoding="utf-8")
    db = folder / "novel.db"
    ok(db, "ingest", str(folder / "dracula.txt"), "-q")
    return db


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of two dated memories: the second ends the first's fact."""
    db = tmp_path_factory.mktemp("agent") / "agent.db"
    ok(db, "remember", EXPRESS, "--at", "2026-01-15")
    ok(db, "remember", HONO, "--at", "2026-02-10")
    return db


FACES = {
    "ask": ("ask", "Who welcomed Jonathan Harker?", "--json"),
    "context": ("context", "Who welcomed Jonathan Harker?", "--format", "json"),
    "search": ("search", "Count Dracula welcomed Jonathan Harker", "--json"),
    "entity": ("entity", "Jonathan Harker", "--json"),
    "relations": ("relations", "Jonathan Harker", "--json"),
    "neighbors": ("neighbors", "Jonathan Harker", "--json"),
    "path": ("path", "Mina Murray", "Count Dracula", "--json"),
    "history": ("history", "Jonathan Harker", "--json"),
    "export": ("export", "-"),
}


def shows_the_book(face: str, out: str) -> bool:
    """Whether a face's output holds the book's content."""
    data: Any = json.loads(out)
    if face == "ask":
        return bool(data["citations"])
    if face == "context":
        return bool(data["passages"])
    if face == "search":
        return bool(data["hits"])
    if face in ("entity", "relations"):
        return bool(data["relations"])
    if face == "neighbors":
        return len(data["entities"]) > 1
    if face == "path":
        return bool(data)
    if face == "history":
        return bool(data["facts"])
    return bool(data["relations"]) and bool(data["documents"])


@pytest.mark.parametrize("face", sorted(FACES))
def test_an_as_of_before_the_ingest_day_sees_the_timeless_book(novel: Path, face: str) -> None:
    # Found 3: an as_of before a book's ingest day emptied ask, not the graph views
    now = ok(novel, *FACES[face])
    then = ok(novel, *FACES[face], "--as-of", BEFORE)
    assert shows_the_book(face, now) and shows_the_book(face, then)


@pytest.mark.parametrize("face", sorted(set(FACES) - {"path", "entity", "relations"}))
def test_known_at_before_the_ingest_day_sees_nothing_of_the_book(novel: Path, face: str) -> None:
    result = run(novel, *FACES[face], "--known-at", BEFORE)
    assert result.exit_code == 0, result.output
    assert not shows_the_book(face, result.stdout)


@pytest.mark.parametrize("face", ["entity", "relations"])
def test_known_at_leaves_out_relations_learnt_later(novel: Path, face: str) -> None:
    assert not shows_the_book(face, ok(novel, *FACES[face], "--known-at", BEFORE))


def test_known_at_finds_no_path_learnt_later(novel: Path) -> None:
    result = run(novel, *FACES["path"], "--known-at", BEFORE)
    assert result.exit_code != 0 and "no path" in result.stderr


def test_known_at_today_sees_everything(novel: Path) -> None:
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).date().isoformat()
    assert shows_the_book("ask", ok(novel, *FACES["ask"], "--known-at", tomorrow))


def test_known_at_applies_only_to_queries(novel: Path) -> None:
    result = run(novel, "--known-at", BEFORE, "stats")
    assert result.exit_code == 2 and "--known-at applies to" in result.stderr


def test_dated_memories_still_follow_as_of(agent: Path) -> None:
    then = json.loads(ok(agent, "ask", QUESTION, "--json", "--as-of", "2026-01-20"))
    assert [c["quote"] for c in then["citations"]] == [EXPRESS]
    before = json.loads(ok(agent, "ask", QUESTION, "--json", "--as-of", "2026-01-01"))
    assert not before["citations"]


def test_every_context_format_dates_its_memories(agent: Path) -> None:
    markdown = ok(agent, "context", QUESTION)
    assert "dated 2026-02-10" in markdown
    xml = ok(agent, "context", QUESTION, "--format", "xml")
    assert 'date="2026-02-10"' in xml
    data = json.loads(ok(agent, "context", QUESTION, "--format", "json"))
    assert data["passages"][0]["document_at"].startswith("2026-02-10")


def test_a_book_passage_has_no_date(novel: Path) -> None:
    data = json.loads(ok(novel, *FACES["context"]))
    assert all(p["document_at"] is None for p in data["passages"])
    assert "dated" not in ok(novel, "context", "Who welcomed Jonathan Harker?")


def test_ended_facts_are_left_out_by_default(agent: Path) -> None:
    for fmt in ("markdown", "xml"):
        text = ok(agent, "context", QUESTION, "--format", fmt)
        assert EXPRESS not in text and "replaced by" not in text
    data = json.loads(ok(agent, "context", QUESTION, "--format", "json"))
    assert all(not r["ended"] for r in data["relations"])
    assert "Express" not in {r["target"] for r in data["relations"] if r["type"] == "DEPENDS_ON"}


def test_ended_facts_are_shown_as_ended_with_the_setting(agent: Path) -> None:
    ended = "DEPENDS_ON Express (from 2026-01-15 until 2026-02-10; replaced by Hono)"
    assert ended in ok(agent, "context", QUESTION, "--show-ended")
    assert ended in ok(agent, "context", QUESTION, "--show-ended", "--format", "xml")
    data = json.loads(ok(agent, "context", QUESTION, "--show-ended", "--format", "json"))
    [express] = [r for r in data["relations"] if r["target"] == "Express"]
    assert express["ended"] and express["replaced_by"] == "Hono"
    assert express["invalid_at"].startswith("2026-02-10")


def test_the_environment_variable_shows_ended_facts(agent: Path) -> None:
    result = CliRunner(env={"LOREGRAPH_SHOW_ENDED_FACTS": "1"}).invoke(
        main, ["--db", str(agent), "context", QUESTION]
    )
    assert result.exit_code == 0 and "replaced by Hono" in result.stdout


def test_the_offline_answer_quotes_the_current_fact_first(agent: Path) -> None:
    answer = json.loads(ok(agent, "ask", QUESTION, "--show-ended", "--json"))
    assert answer["citations"][0]["quote"] == HONO


def test_a_future_memory_is_refused_unless_planned(tmp_path: Path) -> None:
    db = tmp_path / "plans.db"
    result = run(db, "remember", "Priya Shah lives in Lisbon.", "--at", "2999-05-01")
    assert result.exit_code == 2 and result.stdout == ""
    [line] = result.stderr.strip().splitlines()
    assert "2999-05-01" in line and "--planned" in line


def test_a_planned_memory_is_not_current_before_its_date(tmp_path: Path) -> None:
    db = tmp_path / "plans.db"
    ok(db, "remember", "Priya Shah lives in Berlin.", "--at", "2026-01-01")
    stored = json.loads(
        ok(
            db,
            "remember",
            "Priya Shah lives in Lisbon.",
            "--at",
            "2999-05-01",
            "--planned",
            "--json",
        )
    )
    assert stored["planned"]
    question = "Where does Priya Shah live?"
    now = json.loads(ok(db, "ask", question, "--json"))
    assert "Lisbon" not in json.dumps(now["citations"])
    assert "Lisbon" not in ok(db, "context", question)
    later = json.loads(ok(db, "ask", question, "--json", "--as-of", "2999-06-01"))
    assert "Lisbon" in json.dumps(later["citations"])


def _relation(**times: datetime | None) -> Relation:
    return Relation(id="r", scope="s", source_id="a", target_id="b", type="LIVES_IN", **times)  # type: ignore[arg-type]


def test_the_time_point_rule() -> None:
    day = datetime(2026, 1, 1, tzinfo=UTC)
    stored = day + timedelta(days=100)
    timeless = _relation(created_at=stored)
    assert TimePoint(day - timedelta(days=999)).holds(timeless)
    assert not TimePoint(None, day).holds(timeless)
    ended = _relation(
        valid_at=day,
        invalid_at=day + timedelta(days=10),
        created_at=stored,
        expired_at=stored + timedelta(days=5),
    )
    assert TimePoint(day + timedelta(days=5)).holds(ended)
    assert not TimePoint().holds(ended) and TimePoint().ended(ended)
    # the store learnt of the end later: at known_at between, the fact still held
    assert TimePoint(None, stored + timedelta(days=1)).holds(ended)
    planned = _relation(valid_at=datetime.now(UTC) + timedelta(days=30))
    assert not TimePoint().holds(planned) and not TimePoint().begun(planned)
    assert TimePoint(datetime.now(UTC) + timedelta(days=31)).holds(planned)


def test_a_sentence_resting_on_an_ended_fact_ranks_below_a_current_one(agent: Path) -> None:
    # the history passage ranked first still does not lead the offline answer
    graph = loregraph.open(str(agent))
    try:
        result = graph.retrieve(QUESTION, show_ended=True)
    finally:
        graph.close()
    assert [p.text for p in result.passages] == [HONO, EXPRESS]
    swapped = dataclasses.replace(result, passages=result.passages[::-1])
    answer = extractive_answer(swapped)
    assert answer.citations[0].quote == HONO


def test_history_as_of_a_date_is_the_record_as_it_stood(agent: Path) -> None:
    then = json.loads(ok(agent, "history", "API server", "--json", "--as-of", "2026-01-20"))
    assert [(f["target"], f["current"]) for f in then["facts"] if f["type"] == "DEPENDS_ON"] == [
        ("Express", True)
    ]
    now = json.loads(ok(agent, "history", "API server", "--json"))
    assert {(f["target"], f["current"]) for f in now["facts"] if f["type"] == "DEPENDS_ON"} == {
        ("Express", False),
        ("Hono", True),
    }


def test_a_long_history_shows_only_its_latest_ended_facts(tmp_path: Path) -> None:
    from loregraph.retrieve.temporal.ended import MAX_ENDED

    db = tmp_path / "moves.db"
    cities = [
        "Leeds",
        "Bristol",
        "Oslo",
        "Bergen",
        "Porto",
        "Lyon",
        "Turin",
        "Galway",
        "Zurich",
        "Lisbon",
        "Madrid",
        "Vienna",
        "Prague",
        "Krakow",
        "Dublin",
        "Cardiff",
        "Glasgow",
        "Seville",
        "Ghent",
        "Utrecht",
        "Antwerp",
        "Bologna",
    ][: MAX_ENDED + 4]
    for day, city in enumerate(cities, start=1):
        ok(db, "remember", f"Nadia Petrova moved to {city}.", "--at", f"2026-01-{day:02d}")
    graph = loregraph.open(str(db))
    try:
        result = graph.retrieve("Where does Nadia Petrova live?", show_ended=True)
    finally:
        graph.close()
    ended = [r.target_name for r in result.changes]
    assert len(ended) == MAX_ENDED
    assert ended[0] == cities[-2] and cities[0] not in ended
    assert result.relations[0].target_name == cities[-1]
