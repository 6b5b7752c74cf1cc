"""What the routes get from the application: the engine, the configuration, the jobs."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from loregraph import AsyncGraph
from loregraph.server.config import ServerConfig
from loregraph.server.jobs import Jobs
from loregraph.server.problems import Problem


def _graph(request: Request) -> AsyncGraph:
    graph: AsyncGraph = request.app.state.graph
    return graph


def _config(request: Request) -> ServerConfig:
    config: ServerConfig = request.app.state.config
    return config


def _jobs(request: Request) -> Jobs:
    jobs: Jobs = request.app.state.jobs
    return jobs


Engine = Annotated[AsyncGraph, Depends(_graph)]
"""The engine the app was made with."""
Config = Annotated[ServerConfig, Depends(_config)]
"""The server's configuration."""
JobList = Annotated[Jobs, Depends(_jobs)]
"""The server's ingest jobs."""


def check_length(config: ServerConfig, text: str, what: str) -> str:
    """``text`` unless longer than the server allows (422)."""
    limit = config.limits.max_question_chars
    if len(text) > limit:
        raise Problem(
            422,
            "too-long",
            "Text too long",
            f"the {what} has {len(text)} characters; this server takes at most {limit}",
        )
    return text
