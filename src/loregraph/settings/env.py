"""The one reader of the environment: ``LOREGRAPH_*`` variables (and their ``KG_*`` aliases).

Entry points (the CLI, a server) pass ``os.environ`` to
:meth:`~loregraph.settings.Settings.from_env`; library code never reads the environment.
Every variable is described once in :data:`VARIABLES`: the settings field it sets, its
documented ``LOREGRAPH_*`` name, the older ``KG_*`` name still accepted, and how its value is
read. When both names are set, the ``LOREGRAPH_*`` one wins.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from loregraph.errors import ConfigError


def _flag(raw: str) -> bool:
    return raw.strip().casefold() in ("1", "true", "yes", "on")


def _lower(raw: str) -> str:
    return raw.strip().casefold()


def parse_headers(raw: str) -> tuple[tuple[str, str], ...]:
    """``'{"X-A": "1"}'`` or ``"X-A=1;X-B=2"`` as ``(("X-A", "1"), ...)``."""
    raw = raw.strip()
    if not raw:
        return ()
    if raw.startswith("{"):
        try:
            data = json.loads(raw)
        except ValueError:
            raise ConfigError(f"LLM headers are not a valid JSON object: {raw!r}") from None
        return tuple((str(k), str(v)) for k, v in data.items())
    pairs: list[tuple[str, str]] = []
    for part in raw.split(";"):
        if not part.strip():
            continue
        if "=" not in part:
            raise ConfigError(f"LLM header {part!r} is not NAME=VALUE")
        name, value = part.split("=", 1)
        pairs.append((name.strip(), value.strip()))
    return tuple(pairs)


@dataclass(frozen=True, slots=True)
class Variable:
    """One environment variable: the field it sets and how its text is read."""

    section: str
    """``""`` for a top-level :class:`Settings` field, else the nested settings' name."""
    field: str
    name: str
    alias: str | None = None
    read: Callable[[str], Any] = str

    def value(self, env: Mapping[str, str]) -> tuple[bool, Any]:
        """``(True, value)`` when the variable (or its alias) is set and not empty."""
        for key in (self.name, self.alias):
            raw = env.get(key) if key else None
            if raw not in (None, ""):
                assert raw is not None and key is not None
                try:
                    return True, self.read(raw)
                except ValueError:
                    kind = getattr(self.read, "__name__", "value")
                    what = "a number" if kind in ("int", "float") else f"a valid {kind}"
                    raise ConfigError(f"{key} must be {what}, got {raw!r}") from None
        return False, None


def _llm(field: str, read: Callable[[str], Any] = str) -> Variable:
    return Variable("llm", field, f"LOREGRAPH_LLM_{field.upper()}", read=read)


VARIABLES: tuple[Variable, ...] = (
    Variable("", "scope", "LOREGRAPH_SCOPE"),
    Variable("", "preset", "LOREGRAPH_PRESET"),
    Variable("", "graph_augmentation", "LOREGRAPH_GRAPH_AUGMENTATION", read=_flag),
    Variable("", "personas_dir", "LOREGRAPH_PERSONAS_DIR"),
    Variable("chunk", "size", "LOREGRAPH_CHUNK_SIZE", "KG_CHUNK_SIZE", int),
    Variable("chunk", "overlap", "LOREGRAPH_CHUNK_OVERLAP", "KG_CHUNK_OVERLAP", int),
    Variable("chunk", "mega_batch_chars", "LOREGRAPH_MEGA_BATCH_CHARS", "KG_MEGA_BATCH_CHARS", int),
    Variable(
        "extraction",
        "core_entity_limit",
        "LOREGRAPH_CORE_ENTITY_LIMIT",
        "KG_CORE_ENTITY_LIMIT",
        int,
    ),
    Variable(
        "extraction",
        "min_entity_salience",
        "LOREGRAPH_MIN_ENTITY_SALIENCE",
        "KG_MIN_ENTITY_SALIENCE",
        float,
    ),
    Variable(
        "retrieval", "max_start_entities", "LOREGRAPH_MAX_START_ENTITIES", "KG_MAX_SEED_NODES", int
    ),
    Variable(
        "retrieval", "max_graph_depth", "LOREGRAPH_MAX_GRAPH_DEPTH", "KG_MAX_GRAPH_DEPTH", int
    ),
    Variable("retrieval", "show_ended", "LOREGRAPH_SHOW_ENDED_FACTS", read=_flag),
    Variable("resilience", "analysis_ms", "LOREGRAPH_ANALYSIS_TIMEOUT_MS", read=int),
    Variable("resilience", "traversal_ms", "LOREGRAPH_TRAVERSAL_TIMEOUT_MS", read=int),
    Variable("resilience", "embedding_ms", "LOREGRAPH_EMBEDDING_TIMEOUT_MS", read=int),
    Variable("resilience", "pipeline_ms", "LOREGRAPH_PIPELINE_TIMEOUT_MS", read=int),
    Variable("resilience", "breaker_failures", "LOREGRAPH_GRAPH_BREAKER_FAILURES", read=int),
    Variable("resilience", "breaker_reset_s", "LOREGRAPH_GRAPH_BREAKER_RESET", read=float),
    Variable("resilience", "neighbourhood_ttl_s", "LOREGRAPH_NEIGHBOURHOOD_TTL", read=float),
    _llm("provider", _lower),
    _llm("model"),
    _llm("base_url"),
    _llm("api_key"),
    _llm("headers", parse_headers),
    _llm("timeout", float),
    _llm("concurrency", int),
    _llm("max_retries", int),
    _llm("structured"),
    _llm("cache", _flag),
    _llm("cache_path"),
    _llm("prompts_dir"),
    _llm("gleaning", int),
    _llm("extract_max_tokens", int),
    _llm("min_confidence", float),
    _llm("confirm_merges", _flag),
    _llm("query_analysis", _flag),
    _llm("persona_intents", _flag),
    _llm("answer_max_tokens", int),
    _llm("answer_timeout", float),
    _llm("embedding_model"),
    _llm("embedding_dim", int),
)
"""Every variable the settings read, in the order the help lists them."""


def read_env(env: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """The values set in ``env``, by section (``""`` for top-level fields) and field."""
    found: dict[str, dict[str, Any]] = {}
    for variable in VARIABLES:
        present, value = variable.value(env)
        if present:
            found.setdefault(variable.section, {})[variable.field] = value
    return found
