"""Fuzz record parsing: JSON arrays, objects and JSON Lines, well-formed or damaged, from a
file or a stream. Only loregraph's own errors may come out; well-formed records are read
exactly, in order; what is read can be stored by every backend (valid Unicode, no NUL)."""

from __future__ import annotations

import io
import json
import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from loregraph.errors import LoregraphError
from loregraph.ingest.read.readlog import ReadLog, has_words
from loregraph.ingest.read.records import read_records
from loregraph.ingest.types import SourceDocument

from .fuzzing import fuzz, scratch, tally
from .strategies import RECORD, record_file


def _storable(value: Any) -> bool:
    """Whether every string, key and number of a JSON value can be stored anywhere."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
            if "\x00" in item:
                return False
        elif isinstance(item, float) and not math.isfinite(item):
            return False
    return True


def _good(record: Any) -> bool:
    """A record that must be accepted (it may still be skipped for having no words)."""
    if not isinstance(record, dict) or not isinstance(record.get("text"), str):
        return False
    title, raw_id = record.get("title"), record.get("id")
    if title is not None and not isinstance(title, str):
        return False
    if raw_id is not None:
        if isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
            return False
        if isinstance(raw_id, str) and not raw_id.strip():
            return False
    return _storable(record)


def _check(documents: list[SourceDocument]) -> None:
    ids = [d.external_id for d in documents if d.external_id is not None]
    assert len(ids) == len(set(ids)), "two documents of one file share an id"
    for document in documents:
        assert has_words(document.text)
        for value in (document.text, document.title, document.source):
            assert isinstance(value, str) and value
            value.encode("utf-8")
            assert "\x00" not in value
        assert not {"text", "title", "id"} & document.metadata.keys()
        json.dumps(document.metadata, allow_nan=False)


def _read_file(data: bytes, extension: str) -> list[SourceDocument] | LoregraphError:
    with scratch() as tmp:
        path = tmp / f"records{extension}"
        path.write_bytes(data)
        try:
            return list(read_records(path, log=ReadLog()))
        except LoregraphError as exc:
            return exc


def _read_stream(data: bytes, kind: str) -> list[SourceDocument] | LoregraphError:
    stream: Any
    if kind == "text":
        stream = io.StringIO(data.decode("utf-8", "surrogateescape"))
    elif kind == "wrapped":
        stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    else:
        stream = io.BytesIO(data)
    try:
        return list(read_records(stream, log=ReadLog()))
    except LoregraphError as exc:
        return exc


@fuzz(1000)
@given(data=record_file(), extension=st.sampled_from([".json", ".jsonl", ".JSON"]))
def test_any_record_file_is_read_or_refused_with_an_input_error(
    data: bytes, extension: str
) -> None:
    tally("read_records file")
    result = _read_file(data, extension)
    if isinstance(result, LoregraphError):
        assert str(result).strip()
        return
    _check(result)


@fuzz(600)
@given(data=record_file(), kind=st.sampled_from(["bytes", "text", "wrapped"]))
def test_any_record_stream_is_read_or_refused_with_an_input_error(data: bytes, kind: str) -> None:
    tally("read_records stream")
    result = _read_stream(data, kind)
    if isinstance(result, LoregraphError):
        assert str(result).strip()
        return
    _check(result)


@fuzz(700)
@given(
    records=st.lists(RECORD, min_size=1, max_size=6),
    shape=st.sampled_from(["array", "lines"]),
    ascii_only=st.booleans(),
)
def test_well_formed_records_are_read_exactly_and_in_order(
    records: list[Any], shape: str, ascii_only: bool
) -> None:
    tally("read_records well-formed")
    if shape == "array":
        text = json.dumps(records, ensure_ascii=ascii_only)
    else:
        text = "\n".join(json.dumps(r, ensure_ascii=ascii_only) for r in records) + "\n"
    data = text.encode("utf-8", "surrogatepass")
    from_file = _read_file(data, ".json" if shape == "array" else ".jsonl")
    from_stream = _read_stream(data, "bytes")
    all_good = all(_good(r) for r in records)
    kept = [r for r in records if all_good and has_words(r["text"])]
    ids = [str(r["id"]) for r in kept if r.get("id") is not None]
    all_good = all_good and len(ids) == len(set(ids))  # a repeated id refuses the file
    if not all_good or not kept:
        assert isinstance(from_file, LoregraphError), f"{records!r} should be refused"
        assert isinstance(from_stream, LoregraphError), f"{records!r} should be refused"
        return
    for result in (from_file, from_stream):
        assert not isinstance(result, LoregraphError), f"refused: {result}"
        _check(result)
        assert [d.text for d in result] == [r["text"] for r in kept]
        assert [d.external_id for d in result] == [
            None if r.get("id") is None else str(r["id"]) for r in kept
        ]
        for document, record in zip(result, kept, strict=True):
            if isinstance(record.get("title"), str) and record["title"].strip():
                assert document.title == record["title"]
    assert isinstance(from_file, list) and isinstance(from_stream, list)
    assert [d.source for d in from_file if d.external_id] == [
        d.source for d in from_stream if d.external_id
    ]
