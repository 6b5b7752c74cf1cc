"""A file saved with Windows (CRLF) or old Mac (CR) line ends reads as the same text as one
saved with LF: the same stored text, paragraphs, headings and chunks."""

from __future__ import annotations

from pathlib import Path

import loregraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.read.textio import decode

TEXT = (
    "CHAPTER I\n\nThe Diamond\n\nRachel Verinder kept the Moonstone in an Indian cabinet.\n"
    "Franklin Blake painted the door of her sitting-room.\n\n"
    "CHAPTER II\n\nThe Inquiry\n\nSergeant Cuff came from London to look for the jewel.\n"
)


def test_decode_turns_every_line_end_into_lf() -> None:
    assert decode(TEXT.replace("\n", "\r\n").encode(), "a.txt") == TEXT
    assert decode(TEXT.replace("\n", "\r").encode(), "a.txt") == TEXT
    assert decode(b"\xef\xbb\xbf" + TEXT.replace("\n", "\r\n").encode(), "a.txt") == TEXT


def test_a_crlf_file_is_stored_and_chunked_as_its_lf_twin(tmp_path: Path) -> None:
    def stored(name: str, data: bytes) -> tuple[str, list[str], object]:
        path = tmp_path / name
        path.write_bytes(data)
        with loregraph.open(tmp_path / f"{name}.db", embedder=HashingEmbedder()) as graph:
            graph.ingest(path)
            [doc] = graph.documents()
            chunks = [p.text for p in graph.retrieve("Who came from London?").passages]
            return doc.metadata.get("sections"), chunks, doc.char_count

    lf = stored("lf.txt", TEXT.encode())
    crlf = stored("crlf.txt", TEXT.replace("\n", "\r\n").encode())
    assert crlf == lf and lf[0]
    assert all("\r" not in chunk for chunk in crlf[1])
