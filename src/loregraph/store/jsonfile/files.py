"""The memory file and its vectors sidecar on disk: read checked, written atomically.

* **Reading.** A file that is empty, truncated, not UTF-8 or not JSON is refused with one
  :class:`~loregraph.errors.StoreError` naming the file and the problem; nothing is written
  to it afterwards (the store is never opened, so it is never saved).
* **Writing.** The new content goes to a temporary file in the same folder, which is
  flushed and ``fsync``-ed, then ``os.replace``-d onto the file (and the folder is synced):
  a command killed at any point leaves either the previous file or the new one, whole.
* **Vectors** (chunk and entity embeddings) are kept out of the JSON, which they would make
  unreadable, in a NumPy ``.npz`` sidecar next to it named after a hash of its content,
  ``<file>.vectors.<hash>.npz``. The sidecar is written (atomically) before the JSON that
  names it, and older sidecars are removed only after the JSON is replaced, so the file
  always names a sidecar that exists and matches it; temporary files left by a killed
  write go at the next write. A missing or unreadable sidecar loses
  only the vectors (a warning is logged; vector search then finds what has one).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from loregraph.errors import StoreError, StorePermissionError
from loregraph.models import Vector

log = logging.getLogger(__name__)

VECTORS_INFIX = ".vectors."
VECTORS_SUFFIX = ".npz"
NEW_FILE_MODE = 0o644
TEMPORARY_SUFFIX = ".tmp"


class MemoryFileError(StoreError):
    """A JSON memory file that cannot be used as it is; the file is left unchanged."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(
            f"cannot open the JSON memory file {path}: {problem}; the file was left unchanged"
        )


def read_json(path: Path) -> object:
    """The JSON value in ``path``; raises :class:`MemoryFileError` when there is none."""
    try:
        raw = path.read_bytes()
    except PermissionError:
        raise StorePermissionError(f"cannot read the store {path}: permission denied") from None
    except IsADirectoryError:
        raise StoreError(f"the store path {path} is a directory, not a file") from None
    if not raw.strip():
        raise MemoryFileError(path, "it is empty (was it truncated?)")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise MemoryFileError(path, "it is not UTF-8 text, so not JSON") from None
    except json.JSONDecodeError as exc:
        raise MemoryFileError(
            path,
            f"it is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}; "
            "truncated, or not a memory file?)",
        ) from None


def check_writable(path: Path) -> None:
    """Raise :class:`StorePermissionError` when ``path`` could not be replaced."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise StorePermissionError(
            f"cannot write the store {path}: the file or its folder is not writable "
            "(permission denied)"
        )


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that it is never seen half written (see above)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else NEW_FILE_MODE
    handle, temporary = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX, dir=path.parent
    )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the platform allows opening a folder)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def write_vectors(
    path: Path, chunks: Sequence[tuple[str, Vector]], entities: Sequence[tuple[str, Vector]]
) -> str | None:
    """Write the sidecar of ``path`` (unless one with the same content is there); return its
    file name, or ``None`` when there is no vector to keep."""
    if not chunks and not entities:
        return None
    arrays = {
        "chunk_ids": np.array([i for i, _ in chunks], dtype=str),
        "chunk_vectors": _matrix([v for _, v in chunks]),
        "entity_ids": np.array([i for i, _ in entities], dtype=str),
        "entity_vectors": _matrix([v for _, v in entities]),
    }
    digest = hashlib.sha256()
    for name, array in arrays.items():
        digest.update(name.encode() + str(array.shape).encode() + array.tobytes())
    name = f"{path.name}{VECTORS_INFIX}{digest.hexdigest()[:16]}{VECTORS_SUFFIX}"
    if not (path.parent / name).exists():
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)  # type: ignore[arg-type]
        write_atomically(path.parent / name, buffer.getvalue())
    return name


def _matrix(vectors: Sequence[Vector]) -> np.ndarray:
    if not vectors:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([np.asarray(v, dtype=np.float32).reshape(-1) for v in vectors])


def read_vectors(path: Path, name: str) -> tuple[dict[str, Vector], dict[str, Vector]]:
    """The chunk and entity vectors by id from the sidecar ``name`` next to ``path``
    (none, with a warning, when it is missing or unreadable)."""
    sidecar = path.parent / Path(name).name
    try:
        with np.load(sidecar, allow_pickle=False) as data:
            return (
                dict(zip(data["chunk_ids"].tolist(), data["chunk_vectors"], strict=True)),
                dict(zip(data["entity_ids"].tolist(), data["entity_vectors"], strict=True)),
            )
    except (OSError, ValueError, KeyError) as exc:
        log.warning(
            "the vectors of %s (%s) cannot be read: %s; loaded without them", path, sidecar, exc
        )
        return {}, {}


def remove_leftovers(path: Path, keep: str | None) -> None:
    """Remove the sidecars of ``path`` other than ``keep`` (left by earlier writes) and the
    temporary files of writes that were killed; only the writer holding the lock calls it,
    so no other write is under way."""
    sidecar = f"{path.name}{VECTORS_INFIX}"
    temporary = f".{path.name}."
    for entry in path.parent.iterdir():
        name = entry.name
        stale = name.startswith(sidecar) and name.endswith(VECTORS_SUFFIX) and name != keep
        if stale or (name.startswith(temporary) and name.endswith(TEMPORARY_SUFFIX)):
            with contextlib.suppress(OSError):
                entry.unlink()
