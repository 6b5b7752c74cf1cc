"""``loregraph remember``, ``memories`` and ``forget`` on the command line."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cli_runs import as_json, run
from loregraph.text.dates import iso_time


def test_remember_text_with_time_tags_and_source(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    memory = as_json(
        db,
        "remember",
        "The API server depends on Express.",
        "--at",
        "2026-01-15",
        "--tag",
        "project",
        "--tag",
        "api",
        "--source",
        "chat",
    )
    assert memory["text"] == "The API server depends on Express."
    assert memory["at"] == "2026-01-15T00:00:00+00:00"
    assert memory["tags"] == ["project", "api"]
    assert memory["source"] == "chat"
    listed = as_json(db, "memories")
    assert [m["id"] for m in listed] == [memory["id"]]
    hits = as_json(db, "search", "What does the API server depend on?")["hits"]
    assert hits[0]["id"] == memory["id"]
    text = run(db, "memories")
    assert text.exit_code == 0
    assert memory["id"] in text.stdout and "[project, api]  (chat)" in text.stdout


def test_remember_reads_stdin(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    memory = as_json(db, "remember", "-", stdin="Alice Smith lives in Berlin.\n")
    assert memory["text"].strip() == "Alice Smith lives in Berlin."
    assert memory["at"].endswith("+00:00")


def test_remember_a_jsonl_file(tmp_path: Path) -> None:
    db, path = tmp_path / "m.db", tmp_path / "memories.jsonl"
    lines = [
        {"text": "Bob Jones moved to Paris.", "at": "2026-02-10T08:00+01:00", "tags": ["people"]},
        {"text": "Carol Diaz works for Acme.", "source": "mail", "metadata": {"n": 2}},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    stored = as_json(db, "remember", str(path), "--tag", "imported", "--source", "cli")
    assert [m["text"] for m in stored] == [x["text"] for x in lines]
    assert stored[0]["at"] == "2026-02-10T07:00:00+00:00"  # the same instant, in UTC
    assert stored[0]["tags"] == ["people", "imported"] and stored[0]["source"] == "cli"
    assert stored[1]["source"] == "mail" and stored[1]["metadata"] == {"n": 2}
    about = as_json(db, "memories", "--about", "Carol Diaz")
    assert [m["id"] for m in about] == [stored[1]["id"]]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"title": "no text"}', 'expected an object with a "text"'),
        ("not json", "not JSON"),
        ('{"text": "x", "colour": "red"}', "unknown fields ['colour']"),
        ('{"text": "x", "tags": "one"}', "'tags' must be a list"),
    ],
)
def test_a_bad_jsonl_line_writes_nothing(tmp_path: Path, line: str, message: str) -> None:
    db, path = tmp_path / "m.db", tmp_path / "bad.jsonl"
    path.write_text('{"text": "Alice Smith lives in Berlin."}\n' + line + "\n", encoding="utf-8")
    result = run(db, "remember", str(path))
    assert result.exit_code == 2
    assert message in result.stderr and "bad.jsonl:2" in result.stderr
    assert not db.exists()


def test_bad_input_gives_one_clear_message(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    empty = run(db, "remember", "   ")
    assert empty.exit_code == 2 and "non-empty text" in empty.stderr
    empty_stdin = run(db, "remember", "-", stdin="\n")
    assert empty_stdin.exit_code == 2
    missing = run(db, "remember", str(tmp_path / "none.jsonl"))
    assert missing.exit_code == 2 and "no such file" in missing.stderr
    assert not db.exists()
    run(db, "remember", "Bob Jones moved to Paris.")
    unknown = run(db, "forget", "doc_unknown")
    assert unknown.exit_code == 5
    assert unknown.stderr.strip() == "error: no memory 'doc_unknown' in scope 'default'"
    bad_since = run(db, "memories", "--since", "2026-13-40")
    assert bad_since.exit_code == 2 and "'2026-13-40'" in bad_since.stderr


def test_memories_filters_and_forget(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    first = as_json(db, "remember", "Bob Jones moved to Paris.", "--at", "2026-01-10")
    second = as_json(
        db, "remember", "Bob Jones works for Acme.", "--at", "2026-02-10", "--tag", "work"
    )
    third = as_json(db, "remember", "Alice Smith lives in Berlin.", "--at", "2026-03-10")

    def ids(*args: str) -> list[str]:
        return [m["id"] for m in as_json(db, "memories", *args)]

    assert ids() == [first["id"], second["id"], third["id"]]
    assert ids("--tag", "work") == [second["id"]]
    assert ids("--until", "2026-02-10") == [first["id"], second["id"]]
    assert ids("--since", "2026-02-01", "--until", "2026-02-28") == [second["id"]]
    assert ids("--about", "Bob Jones") == [first["id"], second["id"]]
    assert ids("--about", "Bob Jones", "--since", "2026-02-01") == [second["id"]]
    assert ids("-n", "1") == [third["id"]]
    report = as_json(db, "forget", third["id"])
    assert report["document_id"] == third["id"] and report["entities_removed"] >= 2
    assert ids() == [first["id"], second["id"]]
    names = {e["name"] for e in as_json(db, "entities")}
    assert "Berlin" not in names and "Bob Jones" in names
    text = run(db, "forget", second["id"])
    assert text.exit_code == 0 and text.stdout.startswith(f"forgot {second['id']}: 1 chunks")


def test_memories_found_by_text_with_the_entities_they_mention(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    berlin = as_json(db, "remember", "Alice Smith moved to Berlin.", "--tag", "moves")
    as_json(db, "remember", "Bob Jones joined Initech as an engineer.")
    assert run(db, "ingest", "-", stdin="Alice Smith visited Berlin in May.").exit_code == 0
    hits = as_json(db, "memories", "--search", "Where did Alice Smith move?", "-n", "1")
    assert [h["id"] for h in hits] == [berlin["id"]]
    assert {"Alice Smith", "Berlin"} <= {e["name"] for e in hits[0]["entities"]}
    assert hits[0]["score"] > 0
    everything = as_json(db, "memories", "--search", "Alice Smith Berlin")
    assert berlin["id"] in {h["id"] for h in everything}
    assert all(h["text"] != "Alice Smith visited Berlin in May." for h in everything)
    assert as_json(db, "memories", "--search", "Alice Smith", "--tag", "other") == []
    text = run(db, "memories", "--search", "Alice Smith")
    assert text.exit_code == 0 and "mentions: Alice Smith (Person)" in text.stdout
    both = run(db, "memories", "--search", "Alice", "--about", "Alice Smith")
    assert both.exit_code == 2 and "cannot be combined" in both.output


def test_a_date_that_is_no_date_is_reported_and_the_memory_kept(tmp_path: Path) -> None:
    db, path = tmp_path / "m.db", tmp_path / "dated.jsonl"
    before = datetime.now(UTC)
    result = run(db, "remember", "Bob went home.", "--at", "yesterdayish", "--json")
    assert result.exit_code == 0
    assert "warning: cannot read 'yesterdayish' as a date" in result.stderr
    assert "keeps the time it is remembered at" in result.stderr
    kept = json.loads(result.stdout)
    assert iso_time(kept["at"]) >= before  # the time it was remembered at
    lines = [
        {"text": "Carol Diaz went home.", "at": "whenever-ish"},
        {"text": "Dan Ortiz went home.", "at": "March 3, 2025"},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    result = run(db, "remember", str(path), "--at", "2026-01-15", "--json")
    assert result.exit_code == 0
    assert "dated.jsonl:1: cannot read 'whenever-ish' as a date" in result.stderr
    stored = json.loads(result.stdout)
    assert [m["at"] for m in stored] == ["2026-01-15T00:00:00+00:00", "2025-03-03T00:00:00+00:00"]
    yesterday = as_json(db, "remember", "Eve Stone went home.", "--at", "yesterday")
    assert iso_time(yesterday["at"]).date() < before.date()


def test_questions_can_keep_to_memories_or_to_documents(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    memory = as_json(db, "remember", "Alice Smith moved to Berlin for the Halvorsen project.")
    text = "Alice Smith leads the Halvorsen project. The Halvorsen project builds bridges."
    assert run(db, "ingest", "-", stdin=text).exit_code == 0
    question = "What is the Halvorsen project?"
    both = {h["id"] for h in as_json(db, "search", question)["hits"]}
    memories = {h["id"] for h in as_json(db, "search", question, "--only", "memories")["hits"]}
    documents = {h["id"] for h in as_json(db, "search", question, "--only", "documents")["hits"]}
    assert memory["id"] in both and len(both) == 2
    assert memories == {memory["id"]}
    assert documents and memory["id"] not in documents
    answer = as_json(db, "ask", question, "--only", "documents")
    assert answer["citations"]
    assert all(c["document_id"] != memory["id"] for c in answer["citations"])
    context = run(db, "context", question, "--only", "memories")
    assert context.exit_code == 0 and "moved to Berlin" in context.stdout
    assert "builds bridges" not in context.stdout
    wrong = run(db, "search", question, "--only", "notes")
    assert wrong.exit_code == 2 and "notes" in wrong.output
