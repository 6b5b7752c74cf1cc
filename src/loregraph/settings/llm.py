"""LLM settings: which model to use and how to call it.

A frozen dataclass like the rest of :mod:`loregraph.settings`, which embeds it as
``Settings.llm``. This module imports nothing but the standard library and
:mod:`loregraph.errors`, so the offline path never loads LLM code; the factories that
turn these settings into a client are in :mod:`loregraph.llm.config`; the environment
variables are read in :mod:`loregraph.settings.env`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from loregraph.errors import ConfigError
from loregraph.settings.env import read_env

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
    extraction call; ``min_confidence`` the lowest confidence an extracted entity may have;
    ``confirm_merges`` asks the model about borderline entity merges; ``query_analysis``
    uses the model to analyse questions (``persona_intents``: with the intents of
    people-centred questions);
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

        The variables are those of :data:`loregraph.settings.env.VARIABLES` in the ``llm``
        section, one per field (``LOREGRAPH_LLM_PROVIDER``, ``LOREGRAPH_LLM_MODEL``, ...).
        ``overrides`` (field values, e.g. from command-line options) win over the
        environment and are applied before the settings are checked.
        """
        return cls(**{**read_env(env).get("llm", {}), **overrides})
