"""PDF, Word, PowerPoint and HTML files are read through the converter (the docs extra)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from loregraph.errors import InputError
from loregraph.ingest.read import convert
from loregraph.ingest.read.readers import read_path
from loregraph.ingest.read.readlog import ReadLog


def make_pdf(path: Path, text: str) -> Path:
    """A one-page PDF showing ``text`` in Helvetica, written by hand."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    path.write_bytes(out)
    return path


def make_docx(path: Path, paragraphs: list[str]) -> Path:
    """A minimal Word document (the three parts a reader needs)."""
    body = "".join(f"<w:p><w:r><w:t>{p}</w:t></w:r></w:p>" for p in paragraphs)
    ns = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    with zipfile.ZipFile(path, "w") as docx:
        docx.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
            'content-types"><Default Extension="rels" ContentType="application/'
            'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" '
            'ContentType="application/xml"/><Override PartName="/word/document.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.'
            'document.main+xml"/></Types>',
        )
        docx.writestr(
            "_rels/.rels",
            '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/'
            'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.'
            'openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
            'Target="word/document.xml"/></Relationships>',
        )
        docx.writestr(
            "word/document.xml",
            f'<?xml version="1.0"?><w:document xmlns:w="{ns}"><w:body>{body}</w:body></w:document>',
        )
    return path


def make_pptx(path: Path, title: str, text: str) -> Path:
    from pptx import Presentation

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = title
    slide.placeholders[1].text = text
    deck.save(str(path))
    return path


def test_pdf_docx_pptx_and_html_in_a_folder_are_read(tmp_path: Path) -> None:
    make_pdf(tmp_path / "letter.pdf", "Mina Harker wrote from Whitby.")
    make_docx(tmp_path / "diary.docx", ["Jonathan Harker reached Bistritz.", "He met the Count."])
    make_pptx(tmp_path / "deck.pptx", "Renfield", "Renfield eats flies at the asylum.")
    (tmp_path / "page.html").write_text(
        "<html><head><title>Arrival</title></head><body><h1>Arrival</h1>"
        "<p>Van Helsing arrived from Amsterdam.</p><script>var x = 1;</script></body></html>",
        encoding="utf-8",
    )
    log = ReadLog()
    docs = {Path(d.source).name: d for d in read_path(tmp_path, log=log)}
    assert log.skipped == []
    assert "Mina Harker wrote from Whitby." in docs["letter.pdf"].text
    assert "Jonathan Harker reached Bistritz." in docs["diary.docx"].text
    assert "Renfield eats flies" in docs["deck.pptx"].text
    assert "Van Helsing arrived from Amsterdam." in docs["page.html"].text
    assert "var x" not in docs["page.html"].text
    assert docs["page.html"].title == "Arrival"
    assert docs["letter.pdf"].metadata["converted_from"] == "PDF document"


def test_a_damaged_document_is_skipped_in_a_folder_and_an_error_given_directly(
    tmp_path: Path,
) -> None:
    (tmp_path / "ok.txt").write_text("Lucy Westenra", encoding="utf-8")
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4 this is not really a pdf")
    fake = tmp_path / "fake.docx"
    fake.write_text("just text pretending", encoding="utf-8")
    log = ReadLog()
    assert [d.title for d in read_path(tmp_path, log=log)] == ["ok"]
    reasons = {Path(s.where).name: s.why for s in log.skipped}
    assert "could not be read as a PDF document" in reasons["broken.pdf"]
    assert "could not be read as a Word document" in reasons["fake.docx"]
    with pytest.raises(InputError, match=r"broken\.pdf could not be read"):
        list(read_path(bad))


def test_without_the_converter_a_document_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(convert, "_converter", lambda: None)
    pdf = make_pdf(tmp_path / "letter.pdf", "Mina")
    with pytest.raises(convert.ConverterMissingError, match=r"pip install 'loregraph\[docs\]'"):
        list(read_path(pdf))
