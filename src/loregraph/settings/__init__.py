"""Typed settings with named presets.

Settings are plain frozen dataclasses (:mod:`.core`, and :mod:`.llm` for the language model)
whose defaults are the engine's tuned constants. The environment is read in one place,
:mod:`.env`, through :meth:`Settings.from_env`, which entry points (CLI, server) call;
library code receives a :class:`Settings` object and never looks at ``os.environ``.
"""

from loregraph.settings.core import (
    DEFAULT_PRESET,
    MIN_BUDGET,
    PRESETS,
    ChunkSettings,
    ExtractionSettings,
    ResolutionSettings,
    RetrievalSettings,
    Settings,
    check_budget,
    check_limit,
    preset,
)
from loregraph.settings.llm import PROVIDERS, LLMSettings, Provider
from loregraph.settings.resilience import ResilienceSettings

__all__ = [
    "DEFAULT_PRESET",
    "MIN_BUDGET",
    "PRESETS",
    "PROVIDERS",
    "ChunkSettings",
    "ExtractionSettings",
    "LLMSettings",
    "Provider",
    "ResilienceSettings",
    "ResolutionSettings",
    "RetrievalSettings",
    "Settings",
    "check_budget",
    "check_limit",
    "preset",
]
