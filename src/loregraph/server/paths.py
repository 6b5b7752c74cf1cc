"""Paths on the server's machine (``POST /ingest/paths``), read only inside the folders the
server was started with (``--ingest-root``), as ``ingest`` reads them. Uploaded bytes are
read by :func:`loregraph.read_uploads` and :func:`loregraph.body_document`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from loregraph import InputError
from loregraph.server.problems import forbidden


def allowed_paths(paths: Sequence[str], roots: Sequence[Path]) -> list[Path]:
    """``paths`` resolved, each inside one of ``roots`` (403 otherwise, and when there are
    no roots) and existing (422 otherwise)."""
    if not roots:
        raise forbidden("this server ingests no paths; start it with --ingest-root DIR")
    allowed = [root.expanduser().resolve() for root in roots]
    found = []
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.is_absolute():
            raise InputError(f"{raw!r} is not an absolute path")
        resolved = path.resolve()
        if not any(resolved.is_relative_to(root) for root in allowed):
            raise forbidden(f"{raw} is outside the folders this server ingests from")
        if not resolved.exists():
            raise InputError(f"no such file or directory: {raw}")
        found.append(resolved)
    return found
