"""Nothing a user stored is replaced by an input that is not the same document."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from loregraph.cli.app import main


def run(db: Path, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args], input=stdin)


def documents(db: Path) -> list[dict[str, object]]:
    result = run(db, "documents", "--json")
    assert result.exit_code == 0, result.output
    return list(json.loads(result.stdout))


def test_records_without_id_in_two_files_of_the_same_name_are_both_kept(tmp_path: Path) -> None:
    db = tmp_path / "kg.db"
    for folder, text in (("d1", "Alice met Bob in Paris."), ("d2", "Carol met Dan in Rome.")):
        path = tmp_path / folder / "notes.jsonl"
        path.parent.mkdir()
        path.write_text(json.dumps({"text": text}) + "\n", encoding="utf-8")
        result = run(db, "ingest", str(path))
        assert result.exit_code == 0, result.output
        assert "0 replaced" in result.stdout
    sources = sorted(str(d["source"]) for d in documents(db))
    assert sources == [
        f"{(tmp_path / 'd1' / 'notes.jsonl').resolve()}#0",
        f"{(tmp_path / 'd2' / 'notes.jsonl').resolve()}#0",
    ]


def test_two_documents_piped_in_are_both_kept(tmp_path: Path) -> None:
    db = tmp_path / "kg.db"
    assert run(db, "ingest", "-", stdin="Alice met Bob in Paris.\n").exit_code == 0
    second = run(db, "ingest", "-", stdin="Carol met Dan in Rome.\n")
    assert second.exit_code == 0, second.output
    assert "0 replaced" in second.stdout
    titles = sorted(str(d["title"]) for d in documents(db))
    assert titles == ["Alice met Bob in Paris.", "Carol met Dan in Rome."]


def test_a_named_piped_document_is_replaced_by_its_id_and_the_report_says_so(
    tmp_path: Path,
) -> None:
    db = tmp_path / "kg.db"
    first = run(
        db, "ingest", "-", "--id", "note-7", "--title", "Plans", stdin="Alice goes to Paris."
    )
    assert first.exit_code == 0, first.output
    second = run(
        db, "ingest", "-", "--id", "note-7", "--title", "Plans", stdin="Alice goes to Rome."
    )
    assert second.exit_code == 0, second.output
    assert "1 replaced" in second.stdout
    assert "Replaced: Plans (note-7)" in second.stdout
    (doc,) = documents(db)
    assert doc["title"] == "Plans"


def test_id_and_title_need_stdin(tmp_path: Path) -> None:
    note = tmp_path / "a.txt"
    note.write_text("Alice met Bob.", encoding="utf-8")
    result = run(tmp_path / "kg.db", "ingest", str(note), "--id", "x")
    assert result.exit_code == 2
    assert "stdin" in result.output
    assert not (tmp_path / "kg.db").exists()


def test_report_relation_count_matches_stats_across_documents(tmp_path: Path) -> None:
    folder = tmp_path / "two"
    folder.mkdir()
    (folder / "a.txt").write_text("Alice met Bob in Paris.", encoding="utf-8")
    (folder / "b.txt").write_text("Alice met Bob in Paris. Carol knows Alice.", encoding="utf-8")
    db = tmp_path / "kg.db"
    report = run(db, "ingest", str(folder), "--json")
    assert report.exit_code == 0, report.output
    stats = run(db, "stats", "--json")
    assert json.loads(report.stdout)["relations_new"] == json.loads(stats.stdout)["relations"]


def test_a_document_stored_under_an_older_non_unique_name_is_not_ingested_twice(
    tmp_path: Path,
) -> None:
    """Stores written before identities were unique keyed records by file name and position
    and stdin by "stdin": the same text found there is the same document."""
    import asyncio

    from loregraph.graph import AsyncGraph
    from loregraph.ingest.types import SourceDocument
    from loregraph.store.sqlite import SqliteStore

    db = tmp_path / "kg.db"
    records = tmp_path / "notes.jsonl"
    records.write_text(json.dumps({"text": "Alice met Bob in Paris."}) + "\n", encoding="utf-8")

    async def store_the_old_way() -> None:
        graph = AsyncGraph(SqliteStore(db))
        try:
            old = [
                SourceDocument("notes.jsonl#0", "Alice met Bob in Paris.", "notes.jsonl#0"),
                SourceDocument("stdin", "Carol met Dan in Rome.", "stdin"),
            ]
            await graph.ingest_documents(old)
        finally:
            await graph.close()

    asyncio.run(store_the_old_way())
    again = run(db, "ingest", str(records))
    assert "1 unchanged (skipped)" in again.stdout, again.output
    piped = run(db, "ingest", "-", stdin="Carol met Dan in Rome.")
    assert "1 unchanged (skipped)" in piped.stdout, piped.output
    different = run(db, "ingest", "-", stdin="Erin met Frank in Oslo.")
    assert "1 ingested, 0 replaced" in different.stdout
    assert len(documents(db)) == 3


def test_the_same_id_twice_in_one_run_is_reported_as_a_replacement(tmp_path: Path) -> None:
    one = tmp_path / "a.jsonl"
    one.write_text(json.dumps({"id": "n1", "text": "Alice met Bob."}) + "\n", encoding="utf-8")
    two = tmp_path / "b.jsonl"
    two.write_text(json.dumps({"id": "n1", "text": "Alice met Carol."}) + "\n", encoding="utf-8")
    db = tmp_path / "kg.db"
    result = run(db, "ingest", str(one), str(two))
    assert result.exit_code == 0, result.output
    assert "1 ingested, 1 replaced" in result.stdout
    (doc,) = documents(db)
    assert doc["id"]
