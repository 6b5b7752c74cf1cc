"""loregraph's HTTP API (``loregraph serve``): REST and server-sent events over the async
engine, with API keys, limits and problem-detail errors.

>>> from loregraph.server import ServerConfig, create_app
>>> app = create_app(graph, ServerConfig(auth=True))   # doctest: +SKIP

Needs the ``server`` extra (``pip install 'loregraph[server]'``).
"""

from __future__ import annotations

from loregraph.server.app import create_app
from loregraph.server.config import Limits, Mount, ServerConfig

__all__ = ["Limits", "Mount", "ServerConfig", "create_app"]
