"""LLM settings: which model to use and how to call it.

A frozen dataclass like the rest of :mod:`loregraph.settings`, which embeds it as
``Settings.llm``. This module imports nothing but the standard library and
:mod:`loregraph.errors`, so the offline path never loads LLM code; the factories that
turn these settings into a client are in :mod:`loregraph.llm.config`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from loregraph.errors import ConfigError

Provider = Literal["openai", "anthropic", "none"]
PROVIDERS: tuple[str, ...] = ("openai", "anthropic", "none")


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """Which model to use and how to call it.

    ``provider``/``model``/``base_url``/``api_key``/``headers`` select the server;
    ``timeout`` (seconds per call), ``concurrency`` (default 5), ``max_retries`` tune the
    calls; ``structured`` is the JSON mode (see
    :class:`~loregraph.llm.openai_client.OpenAIChat`); ``cache``/``cache_path`` the
    response cache (default: next to the store); ``prompts_dir`` overrides prompts;
    ``gleaning`` extra extraction rounds; ``extract_max_tokens`` the reply limit of an
    extraction call; ``min_confidence`` seed 003's threshold;
    ``confirm_merges`` asks the model about borderline entity merges; ``query_analysis``
    uses the model to analyse questions (``persona_intents``: seed 003's intents);
    ``answer_max_tokens`` (default 512) and ``answer_timeout`` (seconds for a whole answer,
    default 120) cap an answer;
    ``embedding_model`` embeds through the same API instead of the local model.
    """

    provider: Provider = "none"
    model: str = ""
    base_url: str | None = None
    api_key: str | None = dataclasses.field(default=None, repr=False)
    headers: tuple[tuple[str, str], ...] = ()
    timeout: float = 120.0
    concurrency: int = 5
    max_retries: int = 4
    structured: Literal["auto", "json_schema", "json_object", "none"] = "auto"
    cache: bool = True
    cache_path: str | None = None
    prompts_dir: str | None = None
    gleaning: int = 0
    extract_max_tokens: int = 4096
    min_confidence: float = 0.7
    confirm_merges: bool = False
    query_analysis: bool = True
    persona_intents: bool = False
    query_timeout: float = 20.0
    answer_max_tokens: int = 512
    answer_temperature: float = 0.3
    answer_timeout: float = 120.0
    embedding_model: str | None = None
    embedding_dim: int | None = None

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise ConfigError(
                f"unknown LLM provider {self.provider!r}; known: {', '.join(PROVIDERS)}"
            )
        if self.provider != "none" and not self.model:
            raise ConfigError(
                f"LLM provider {self.provider!r} needs a model name (LOREGRAPH_LLM_MODEL)"
            )
        if self.concurrency < 1:
            raise ConfigError(f"LLM concurrency must be at least 1, got {self.concurrency}")
        if self.timeout <= 0:
            raise ConfigError(f"LLM timeout must be positive, got {self.timeout}")
        if self.answer_max_tokens < 1 or self.answer_timeout <= 0:
            raise ConfigError(
                "answer max tokens must be at least 1 and the answer timeout positive, got "
                f"{self.answer_max_tokens} and {self.answer_timeout}"
            )
        if self.extract_max_tokens < 1:
            raise ConfigError(
                f"extraction max tokens must be at least 1, got {self.extract_max_tokens}"
            )
        if self.max_retries < 0 or self.gleaning < 0:
            raise ConfigError("LLM retries and gleaning rounds cannot be negative")
        if not 0.0 <= self.min_confidence <= 1.0:
            raise ConfigError(f"min_confidence must be within 0..1, got {self.min_confidence}")

    @property
    def enabled(self) -> bool:
        """True when a provider is configured."""
        return self.provider != "none"

    def replace(self, **changes: Any) -> LLMSettings:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_env(cls, env: Mapping[str, str], **overrides: Any) -> LLMSettings:
        """Settings from ``LOREGRAPH_LLM_*`` variables (call at entry points only).

        Recognised: ``PROVIDER``, ``MODEL``, ``BASE_URL``, ``API_KEY``, ``HEADERS`` (JSON
        object or ``k=v;k2=v2``), ``TIMEOUT``, ``CONCURRENCY``, ``MAX_RETRIES``,
        ``STRUCTURED``, ``CACHE`` (0/1), ``CACHE_PATH``, ``PROMPTS_DIR``, ``GLEANING``,
        ``EXTRACT_MAX_TOKENS``,
        ``MIN_CONFIDENCE``, ``CONFIRM_MERGES``, ``QUERY_ANALYSIS``, ``PERSONA_INTENTS``,
        ``ANSWER_MAX_TOKENS``, ``ANSWER_TIMEOUT``,
        ``EMBEDDING_MODEL``, ``EMBEDDING_DIM``, each prefixed with ``LOREGRAPH_LLM_``.
        ``overrides`` (field values, e.g. from command-line options) win over the
        environment and are applied before the settings are checked.
        """
        base = cls()

        def get(name: str) -> str | None:
            value = env.get(f"LOREGRAPH_LLM_{name}")
            return value if value not in (None, "") else None

        def num(name: str, default: Any, kind: type = int) -> Any:
            raw = get(name)
            if raw is None:
                return default
            try:
                return kind(raw)
            except ValueError:
                raise ConfigError(f"LOREGRAPH_LLM_{name} must be a number, got {raw!r}") from None

        def flag(name: str, default: bool) -> bool:
            raw = get(name)
            if raw is None:
                return default
            return raw.strip().casefold() in ("1", "true", "yes", "on")

        provider = (get("PROVIDER") or base.provider).strip().casefold()
        values: dict[str, Any] = dict(
            provider=provider,
            model=get("MODEL") or "",
            base_url=get("BASE_URL"),
            api_key=get("API_KEY"),
            headers=parse_headers(get("HEADERS") or ""),
            timeout=num("TIMEOUT", base.timeout, float),
            concurrency=num("CONCURRENCY", base.concurrency),
            max_retries=num("MAX_RETRIES", base.max_retries),
            structured=(get("STRUCTURED") or base.structured),
            cache=flag("CACHE", base.cache),
            cache_path=get("CACHE_PATH"),
            prompts_dir=get("PROMPTS_DIR"),
            gleaning=num("GLEANING", base.gleaning),
            extract_max_tokens=num("EXTRACT_MAX_TOKENS", base.extract_max_tokens),
            min_confidence=num("MIN_CONFIDENCE", base.min_confidence, float),
            confirm_merges=flag("CONFIRM_MERGES", base.confirm_merges),
            query_analysis=flag("QUERY_ANALYSIS", base.query_analysis),
            persona_intents=flag("PERSONA_INTENTS", base.persona_intents),
            answer_max_tokens=num("ANSWER_MAX_TOKENS", base.answer_max_tokens),
            answer_timeout=num("ANSWER_TIMEOUT", base.answer_timeout, float),
            embedding_model=get("EMBEDDING_MODEL"),
            embedding_dim=num("EMBEDDING_DIM", None),
        )
        values.update(overrides)
        return cls(**values)


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
