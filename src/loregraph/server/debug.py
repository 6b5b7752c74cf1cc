"""``debug=true`` on the question routes: who may ask for it and what it adds.

Only a caller who administers the scope asked gets the debug report (403 otherwise); a
server started with ``--no-auth`` acts for the local administrator, so its operator does.
The report is :func:`loregraph.debug_report` of the question's retrieval,
with the engine's circuit breaker state.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query

from loregraph import AsyncGraph, RetrievalResult, Role, circuit_state, debug_report
from loregraph.server.auth import Caller
from loregraph.server.problems import forbidden

DebugParam = Annotated[
    bool,
    Query(
        description="Also return how the question was answered: its intent, each source "
        "with its score and how it was found, the stage timings and the LLM circuit "
        "state (keys that administer the scope only; 403 otherwise)."
    ),
]


def check_debug(caller: Caller, wanted: bool) -> bool:
    """``wanted``, when the caller may see debug data in its scope (403 otherwise)."""
    if wanted and not caller.principal.may(caller.scope, Role.ADMIN):
        raise forbidden(
            f"debug=true is for administrators: key {caller.principal.name!r} does not "
            f"administer scope {caller.scope!r}"
        )
    return wanted


def debug_of(graph: AsyncGraph, result: RetrievalResult) -> dict[str, Any]:
    """The debug report of ``result``, with ``graph``'s circuit breaker states."""
    return debug_report(result, circuit=circuit_state(graph.llm), graph=graph.graph_status())
