"""The web graph explorer: the built page (``static/``, made from ``frontend/`` by
``make explorer``) and :func:`explorer_mount`, which serves it at ``/`` next to the HTTP API.

The page calls the API of the server that serves it (search, entity, relations, neighbours,
scopes, memories, ask); nothing it loads comes from the network. Needs the ``server`` extra.
"""

from __future__ import annotations

from pathlib import Path

from starlette.staticfiles import StaticFiles

from loregraph import DependencyError
from loregraph.server import Mount

STATIC = Path(__file__).with_name("static")
"""The built page: ``index.html``, ``assets/`` and ``sources.sha256`` (the hash of the
front-end sources it was built from)."""


def explorer_mount(path: str = "/") -> Mount:
    """The explorer's static files as a :class:`~loregraph.server.Mount` at ``path``
    (the API's routes, mounted first, keep their paths)."""
    if not (STATIC / "index.html").is_file():
        raise DependencyError(
            f"the explorer's page is missing from {STATIC}: build it with `make explorer`"
        )
    return Mount(path, StaticFiles(directory=STATIC, html=True), name="explorer")


__all__ = ["STATIC", "explorer_mount"]
