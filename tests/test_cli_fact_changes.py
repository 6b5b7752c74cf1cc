"""Facts that change, through the command line: a move, a migration, a replacement and a new
value end the fact they change, an addition, a plan or another setting ends nothing, and
the offline answer gives the current value first, saying what it replaced."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.cli_runs import as_json, run


def remember(db: Path, text: str, day: str) -> None:
    result = run(db, "remember", text, "--at", day)
    assert result.exit_code == 0, result.output


def facts(db: Path, name: str) -> list[dict[str, Any]]:
    return [f for f in as_json(db, "history", name)["facts"] if f["type"] != "CO_OCCURS_WITH"]


def current_targets(db: Path, name: str) -> set[str]:
    return {f["target"] for f in facts(db, name) if f["current"]}


def ended_targets(db: Path, name: str) -> set[str]:
    return {f["target"] for f in facts(db, name) if not f["current"]}


def asked_after(db: Path, old: str, new: str, question: str) -> str:
    """The answer to ``question`` after ``old`` (2026-01-15) and ``new`` (2026-02-10)."""
    remember(db, old, "2026-01-15")
    remember(db, new, "2026-02-10")
    answer: str = as_json(db, "ask", question)["answer"]
    return answer


def test_a_move_ends_where_she_lived_and_ask_answers_the_new_place(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    remember(db, "Priya Shah lives in Berlin.", "2026-01-15")
    remember(db, "Priya Shah moved from Berlin to Lisbon.", "2026-02-10")
    lived = [f for f in facts(db, "Priya Shah") if f["type"] == "LIVES_IN"]
    assert lived and all(not f["current"] for f in lived)
    assert lived[0]["invalid_at"].startswith("2026-02-10")
    answer = as_json(db, "ask", "Where does Priya Shah live?")
    assert "Lisbon" in answer["answer"]
    assert "lives in Berlin" not in answer["answer"]
    assert "Changed: now Lisbon (since 2026-02-10; before: Berlin)." in answer["answer"]


def test_a_migration_said_by_we_ends_the_old_framework(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    remember(db, "The API server uses Express.", "2026-01-15")
    assert "Express" in current_targets(db, "API server")
    remember(db, "We migrated the API server from Express to Hono.", "2026-02-10")
    assert "Express" in ended_targets(db, "API server")
    assert "Express" not in current_targets(db, "API server")
    answer = as_json(db, "ask", "Which framework does the API server use?")["answer"]
    assert "Changed: now Hono (since 2026-02-10; before: Express)." in answer


def test_what_we_use_for_something_is_that_things_fact(tmp_path: Path) -> None:
    old = "We use Express for the API server."
    new = "We migrated the API server from Express to Hono."
    answer = asked_after(tmp_path / "m.db", old, new, "Which framework does the API server use?")
    assert "Changed: now Hono (since 2026-02-10; before: Express)." in answer


def test_a_replacement_ends_what_was_replaced(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    remember(db, "The API server uses Redis.", "2026-01-15")
    remember(db, "We replaced Redis with Valkey.", "2026-02-10")
    assert "Redis" in ended_targets(db, "API server")


def test_an_addition_ends_nothing(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    remember(db, "The API server uses Redis.", "2026-01-15")
    remember(db, "We added Valkey alongside Redis.", "2026-02-10")
    assert "Redis" in current_targets(db, "API server")
    assert not ended_targets(db, "API server")


@pytest.mark.parametrize(
    ("old", "new", "name", "was", "now"),
    [
        (
            "The request timeout is 30 s.",
            "The request timeout is now 45 s.",
            "request timeout",
            "30 s",
            "45 s",
        ),
        # a day in the plural is a schedule, a fact
        (
            "We deploy Larch on Fridays.",
            "We deploy Larch on Tuesdays now.",
            "Larch",
            "Fridays",
            "Tuesdays",
        ),
    ],
)
def test_a_new_value_ends_the_old_one(
    tmp_path: Path, old: str, new: str, name: str, was: str, now: str
) -> None:
    db = tmp_path / "m.db"
    remember(db, old, "2026-01-15")
    remember(db, new, "2026-02-10")
    assert was in ended_targets(db, name)
    assert now in current_targets(db, name)
    if name == "request timeout":
        answer = as_json(db, "ask", "What is the request timeout?")["answer"]
        assert answer.index(now) < answer.find(was) or was not in answer


def test_ask_answers_with_the_replacement_when_the_old_fact_ended(tmp_path: Path) -> None:
    old, new = "The API server uses Redis.", "We replaced Redis with Valkey."
    answer = asked_after(tmp_path / "m.db", old, new, "What does the API server use?")
    assert "Changed: now Valkey (since 2026-02-10; before: Redis)." in answer


def test_a_plan_or_another_setting_ends_nothing(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    remember(db, "The Gannet request timeout is 30 s.", "2026-01-15")
    remember(db, "If the Gannet request timeout were 60 s, exports would finish.", "2026-02-01")
    remember(db, "The Gannet connect timeout is 5 s.", "2026-02-10")
    assert "30 s" in current_targets(db, "Gannet")
    assert not ended_targets(db, "Gannet")


def test_a_return_makes_the_first_fact_hold_again(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    remember(db, "Sofia Marchetti lives in Turin.", "2026-01-15")
    remember(db, "Sofia Marchetti moved to Milan.", "2026-03-01")
    assert "Turin" in ended_targets(db, "Sofia Marchetti")
    remember(db, "Sofia Marchetti has moved back to Turin.", "2026-06-01")
    assert "Turin" in current_targets(db, "Sofia Marchetti")
    assert "Milan" in ended_targets(db, "Sofia Marchetti")
    assert "Milan" not in current_targets(db, "Sofia Marchetti")


def test_a_move_to_a_place_the_tagger_took_for_a_person_still_ends_the_last(
    tmp_path: Path,
) -> None:
    db = tmp_path / "m.db"
    remember(db, "Jonas Weber moved to Amberville.", "2026-01-01")
    remember(db, "Jonas Weber moved to Emberville.", "2026-02-01")
    assert current_targets(db, "Jonas Weber") == {"Emberville"}
    assert "Amberville" in ended_targets(db, "Jonas Weber")


def test_a_move_leaves_a_marriage_alone(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    remember(db, "Priya Shah is married to Tom Walsh.", "2026-01-01")
    remember(db, "Priya Shah moved to Lisbon.", "2026-02-01")
    assert current_targets(db, "Priya Shah") == {"Tom Walsh", "Lisbon"}


def test_forgetting_a_return_ends_the_first_fact_again(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    remember(db, "Sofia Marchetti lives in Turin.", "2026-01-15")
    remember(db, "Sofia Marchetti moved to Milan.", "2026-03-01")
    back = as_json(db, "remember", "Sofia Marchetti has moved back to Turin.", "--at", "2026-06-01")
    assert "Turin" in current_targets(db, "Sofia Marchetti")
    assert run(db, "forget", back["id"]).exit_code == 0
    assert "Milan" in current_targets(db, "Sofia Marchetti")
    assert "Turin" not in current_targets(db, "Sofia Marchetti")
    ended = [f for f in facts(db, "Sofia Marchetti") if f["target"] == "Turin"]
    assert ended and all(str(f.get("invalid_at", "")).startswith("2026-03-01") for f in ended)


def test_an_end_with_nothing_in_its_place_is_noted_after_the_quotes(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    remember(db, "Priyanka Rao works at Brightwater Analytics.", "2026-01-15")
    remember(db, "Priyanka Rao no longer works at Brightwater Analytics.", "2026-03-01")
    assert "Brightwater Analytics" in ended_targets(db, "Priyanka Rao")
    answer = as_json(db, "ask", "Where does Priyanka Rao work?")["answer"]
    assert "No longer current: Brightwater Analytics (until 2026-03-01)." in answer
