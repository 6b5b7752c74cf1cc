"""Facts over time on the command line: the Express → Hono scenario of issue 12 (remember,
ask now and ``--as-of``, ``history``), and the faults of ``--as-of``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from loregraph.cli.app import main

EXPRESS = "The API server depends on Express."
HONO = "The API server now depends on Hono instead of Express."
QUESTION = "What does the API server depend on?"


def run(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def ok(db: Path, *args: str) -> Result:
    result = run(db, *args)
    assert result.exit_code == 0, result.output
    return result


def as_json(db: Path, *args: str) -> Any:
    return json.loads(ok(db, *args, "--json").stdout)


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    path = tmp_path / "agent.db"
    ok(path, "remember", EXPRESS, "--at", "2026-01-15")
    ok(path, "remember", HONO, "--at", "2026-02-10")
    return path


def cited(answer: dict[str, Any]) -> list[str]:
    return [c["quote"] for c in answer["citations"]]


def test_ask_cites_the_current_fact(db: Path) -> None:
    answer = as_json(db, "ask", QUESTION)
    assert cited(answer) == [HONO]
    assert EXPRESS not in answer["answer"]
    shown = ok(db, "ask", QUESTION).stdout
    assert "Hono" in shown and EXPRESS not in shown


def test_ask_as_of_a_date_cites_what_held_then(db: Path) -> None:
    answer = as_json(db, "--as-of", "2026-01-31", "ask", QUESTION)
    assert cited(answer) == [EXPRESS]
    assert "Hono" not in answer["answer"]
    after = as_json(db, "ask", QUESTION, "--as-of", "2026-02-11")  # the option may follow
    assert cited(after) == [HONO]
    context = ok(db, "context", QUESTION, "--as-of", "2026-01-31").stdout
    assert "Express" in context and "Hono" not in context


def test_history_shows_both_facts_and_what_ended_the_first(db: Path) -> None:
    memories = {m["text"]: m["id"] for m in as_json(db, "memories")}
    found = as_json(db, "history", "API server")
    facts = [
        (f["target"], f["valid_at"][:10], (f["invalid_at"] or "")[:10]) for f in found["facts"]
    ]
    assert facts == [("Express", "2026-01-15", "2026-02-10"), ("Hono", "2026-02-10", "")]
    ended = found["facts"][0]["invalidated_by"]
    assert ended["id"] == memories[HONO] and ended["sentence"] == HONO
    assert found["facts"][0]["evidence"] == [EXPRESS] and found["facts"][1]["current"]
    text = ok(db, "history", "API server").stdout
    assert "2026-01-15 → 2026-02-10  API server -[DEPENDS_ON]-> Express  (ended)" in text
    assert f"ended by memory {memories[HONO]} of 2026-02-10" in text
    assert "2026-02-10 → now  API server -[DEPENDS_ON]-> Hono  (current)" in text
    between = as_json(db, "history", "API server", "Hono")
    assert [f["target"] for f in between["facts"]] == ["Hono"]


def test_queries_by_name_apply_as_of(db: Path) -> None:
    def targets(*args: str) -> list[str]:
        found = as_json(db, *args, "relations", "API server", "--out", "--type", "DEPENDS_ON")
        return [link["other"] for link in found["relations"]]

    assert targets() == ["Hono"]
    assert targets("--as-of", "2026-01-31") == ["Express"]
    entity = ok(db, "--as-of", "2026-01-31", "entity", "API server").stdout
    assert "DEPENDS_ON Express" in entity and "DEPENDS_ON Hono" not in entity
    hops = as_json(db, "--as-of", "2026-01-31", "neighbors", "API server", "--type", "DEPENDS_ON")
    assert {e["name"] for e in hops["entities"]} == {"API server", "Express"}


def test_forget_the_later_memory_and_the_first_fact_holds_again(db: Path) -> None:
    memories = {m["text"]: m["id"] for m in as_json(db, "memories")}
    ok(db, "forget", memories[HONO])
    assert cited(as_json(db, "ask", QUESTION)) == [EXPRESS]
    [fact] = [f for f in as_json(db, "history", "API server")["facts"]]
    assert fact["current"] and fact["invalidated_by"] is None


def test_an_as_of_in_the_future_sees_what_holds_then(db: Path) -> None:
    # a later as_of is allowed: it is where planned memories come true (issue 29)
    assert cited(as_json(db, "--as-of", "2999-01-01", "ask", QUESTION)) == [HONO]


def test_an_as_of_that_is_no_date_is_refused(db: Path) -> None:
    result = run(db, "ask", QUESTION, "--as-of", "soonish")
    assert result.exit_code == 2 and result.stdout == ""
    assert "cannot read 'soonish' as a date" in result.stderr


def test_as_of_with_a_command_it_does_not_apply_to_is_refused(db: Path) -> None:
    result = run(db, "--as-of", "2026-01-31", "remember", "Bob went home.")
    assert result.exit_code == 2
    assert "--as-of applies to ask, context, search" in result.stderr
    assert "not to remember" in result.stderr


def test_relations_show_when_each_held(db: Path) -> None:
    text = ok(db, "--as-of", "2026-01-31", "relations", "API server", "--type", "DEPENDS_ON").stdout
    assert "-[DEPENDS_ON]-> Express [Library]  (confidence 0.80), 2026-01-15 → 2026-02-10" in text
