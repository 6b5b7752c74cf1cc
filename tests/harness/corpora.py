"""Small deterministic corpora cut from the bundled Dracula excerpt.

Both shapes share many entity names across documents (Harker, the Count, Bistritz, ...), so
resolution merges into existing entities and a resumed run must end in the same graph.

* ``records``: a JSON Lines file of one- or two-sentence notes with ids. More than 64 records
  make several ingest batches, so documents are committed at several points of a run.
* ``folder``: a folder of plain text files of a few paragraphs each (no ids: identified by
  their absolute paths).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

EXCERPT = Path(__file__).resolve().parent.parent / "fixtures" / "dracula_excerpt.txt"
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _paragraphs() -> list[str]:
    text = EXCERPT.read_text(encoding="utf-8")
    paragraphs = (" ".join(p.split()) for p in text.split("\n\n"))
    return [p for p in paragraphs if len(p) > 200]


def _sentences() -> list[str]:
    sentences = _SENTENCE.split(" ".join(_paragraphs()))
    return [s for s in sentences if 40 <= len(s) < 240]


def write_records(path: Path, count: int) -> Path:
    """``count`` records (one sentence each, in excerpt order) as JSON Lines at ``path``."""
    sentences = _sentences()
    if count > len(sentences):
        raise ValueError(f"the excerpt has {len(sentences)} sentences, not {count}")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for index, sentence in enumerate(sentences[:count]):
            record = {"id": f"note-{index:03d}", "title": f"Note {index}", "text": sentence}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def write_folder(directory: Path, files: int, paragraphs_per_file: int = 2) -> Path:
    """``files`` text files of ``paragraphs_per_file`` consecutive paragraphs each."""
    paragraphs = _paragraphs()
    if files * paragraphs_per_file > len(paragraphs):
        raise ValueError(f"the excerpt has {len(paragraphs)} paragraphs")
    directory.mkdir(parents=True, exist_ok=True)
    for index in range(files):
        part = paragraphs[index * paragraphs_per_file : (index + 1) * paragraphs_per_file]
        (directory / f"part-{index:02d}.txt").write_text("\n\n".join(part) + "\n", "utf-8")
    return directory


def write_corpus(kind: str, where: Path, size: int) -> Path:
    """A ``records`` corpus of ``size`` records or a ``folder`` corpus of ``size`` files."""
    if kind == "records":
        return write_records(where / "notes.jsonl", size)
    if kind == "folder":
        return write_folder(where / "notes", size)
    raise ValueError(f"unknown corpus kind {kind!r}")
