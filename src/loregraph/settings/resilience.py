"""How the graph layer of retrieval degrades: stage time limits, the graph breaker, caches.

A frozen dataclass like the rest of :mod:`loregraph.settings`, embedded as
``Settings.resilience``; its environment variables are read in :mod:`loregraph.settings.env`
(``LOREGRAPH_*_TIMEOUT_MS``, ``LOREGRAPH_GRAPH_BREAKER_*``, ``LOREGRAPH_NEIGHBOURHOOD_*``).
"""

from __future__ import annotations

from dataclasses import dataclass

from loregraph.errors import ConfigError


@dataclass(frozen=True, slots=True)
class ResilienceSettings:
    """Time limits per retrieval stage, the graph circuit breaker and the graph caches.

    Time limits are milliseconds; ``0`` means no limit. ``analysis_ms`` (500) cuts the
    question's analysis, ``embedding_ms`` (500) its embedding (never the first embedding of
    a process, which loads the model), ``traversal_ms`` (300) the graph expansion and
    ``pipeline_ms`` (2,000) a whole retrieval, which then returns what it has gathered.
    ``breaker_failures`` (3) questions in a row whose graph calls failed open the breaker;
    ``breaker_reset_s`` (30) seconds later one question tries the graph again. While it is
    open questions are answered from passages found by their words and meaning only.
    ``neighbourhood_ttl_s`` (300; 0: none kept) and ``neighbourhood_entries`` bound the
    cache of expansions; ``conversation_names`` bounds the names remembered per conversation and
    ``conversations`` the conversations remembered.
    """

    analysis_ms: int = 500
    traversal_ms: int = 300
    embedding_ms: int = 500
    pipeline_ms: int = 2000
    breaker_failures: int = 3
    breaker_reset_s: float = 30.0
    neighbourhood_ttl_s: float = 300.0
    neighbourhood_entries: int = 2048
    conversation_names: int = 256
    conversations: int = 1024

    def __post_init__(self) -> None:
        for name in ("analysis_ms", "traversal_ms", "embedding_ms", "pipeline_ms"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must be 0 (no limit) or more, got {getattr(self, name)}")
        if self.breaker_failures < 1:
            raise ConfigError(f"breaker_failures must be at least 1, got {self.breaker_failures}")
        if self.breaker_reset_s < 0 or self.neighbourhood_ttl_s < 0:
            raise ConfigError("the breaker reset and the neighbourhood TTL must be 0 or more")
        for name in ("neighbourhood_entries", "conversation_names", "conversations"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must be 0 (no cache) or more, got {getattr(self, name)}")

    def seconds(self, name: str) -> float | None:
        """The limit ``name`` (e.g. ``"traversal_ms"``) in seconds, ``None`` for no limit."""
        value: int = getattr(self, name)
        return value / 1000 if value > 0 else None


NO_LIMITS = ResilienceSettings(analysis_ms=0, traversal_ms=0, embedding_ms=0, pipeline_ms=0)
"""No stage time limits (the breaker and caches as by default)."""
