"""``loregraph backfill`` and ``loregraph suggest`` on the command line."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cli_runs import as_json, run
from loregraph.cli.backfill import RateParam

NOTES = {
    "Cliffs": "Mina Harker walked along the cliffs at Whitby with Lucy Westenra.",
    "Harbour": "Mina Harker watched the storm over the harbour at Whitby.",
    "Asylum": "Doctor John Seward ran the asylum at Purfleet.",
}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "b.db"
    for title, text in NOTES.items():
        note = tmp_path / f"{title}.txt"
        note.write_text(f"{title}\n\n{text}\n", encoding="utf-8")
        assert run(path, "ingest", str(note)).exit_code == 0
    return path


def _forget_extractor(db: Path) -> None:
    """As a store written before the extractor was recorded."""
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE documents SET metadata = json_remove(metadata, '$.extracted_by')")


def test_backfill_processes_what_another_extractor_made_once(db: Path) -> None:
    current = as_json(db, "backfill")
    assert (current["processed"], current["current"], current["documents"]) == (0, 3, 3)
    _forget_extractor(db)
    first = as_json(db, "backfill", "--rate", "100/s", "--limit", "2")
    assert (first["processed"], first["remaining"], first["extractor"]) == (2, 1, "offline-spacy")
    text = run(db, "backfill")
    assert text.exit_code == 0
    assert "1 document(s) extracted again, 2 already current" in text.output
    assert as_json(db, "backfill")["processed"] == 0


def test_backfill_refuses_bad_rates(db: Path) -> None:
    for bad in ("0", "fast", "-1/s"):
        result = run(db, "backfill", "--rate", bad)
        assert result.exit_code == 2 and "not a rate above 0" in result.output


def test_rates_are_read_per_second() -> None:
    rate = RateParam()
    assert [rate.convert(v, None, None) for v in ("2", "2/s", "30/min", "36/h", ".5")] == [
        2.0,
        2.0,
        0.5,
        0.01,
        0.5,
    ]


def test_suggest_lists_connected_documents(db: Path) -> None:
    found = as_json(db, "suggest", "--document", "Cliffs")
    assert [s["title"] for s in found] == ["Harbour"]
    assert "Whitby" in {e["name"] for e in found[0]["shared"]}
    text = run(db, "suggest", "--document", "Cliffs", "-n", "1")
    assert text.exit_code == 0 and "Harbour" in text.output and "also about" in text.output
    nothing = run(db, "suggest", "--document", "Asylum")
    assert nothing.exit_code == 0 and "no other document" in nothing.output
    missing = run(db, "suggest", "--document", "Nowhere")
    assert missing.exit_code != 0 and "no document 'Nowhere'" in missing.output
