"""What the engine builds from the LLM settings: one client and the parts that use it.

:class:`LLMComponents` holds the engine's :class:`~loregraph.llm.client.LLMClient` (one
response cache, one concurrency limit, one usage tracker for everything) and makes the
LLM extractor, query analyzer, answerer and merge confirmer from
:class:`~loregraph.llm.settings.LLMSettings`. :class:`~loregraph.graph.AsyncGraph` imports
this module only when an LLM is configured or passed in.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from loregraph.llm.base import ChatModel
from loregraph.llm.client import LLMClient
from loregraph.llm.config import build_client, build_embedder
from loregraph.llm.prompts import PromptLibrary
from loregraph.llm.settings import LLMSettings
from loregraph.llm.usage import UsageTracker

if TYPE_CHECKING:
    from loregraph.ingest.extract.llm import LLMExtractor
    from loregraph.ingest.extract.llm_fallback import BatchExtractor
    from loregraph.llm.answer import LLMAnswerer
    from loregraph.llm.merge import LLMMergeConfirmer
    from loregraph.llm.query import LLMQueryAnalyzer
    from loregraph.settings import Settings


class LLMComponents:
    """The engine's model client and the LLM stages built around it.

    Args:
        client: the client every stage shares.
        settings: the LLM settings (prompts directory, thresholds, gleaning...).
        owned: True when the engine built the client (and so closes its cache).
        owns_model: True when the engine built the provider too (and so closes it).
    """

    def __init__(
        self,
        client: LLMClient,
        settings: LLMSettings,
        *,
        owned: bool,
        owns_model: bool | None = None,
    ) -> None:
        self.client = client
        self.settings = settings
        self.owned = owned
        self.owns_model = owned if owns_model is None else owns_model
        self.prompts = PromptLibrary(settings.prompts_dir)

    @classmethod
    def create(
        cls,
        settings: LLMSettings,
        llm: LLMClient | ChatModel | None = None,
        *,
        store_path: str | Path | None = None,
        usage: UsageTracker | None = None,
    ) -> LLMComponents | None:
        """Components for a passed-in client or provider, else for ``settings``; ``None``
        when neither names a model.

        A provider object (a :class:`ChatModel`) is wrapped in a client with the cache and
        resilience ``settings`` describe; an :class:`LLMClient` is used as it is. Objects
        passed in are not closed by :meth:`aclose`; what was built here is.
        """
        if isinstance(llm, LLMClient):
            return cls(llm, settings, owned=False)
        client = build_client(settings, store_path=store_path, usage=usage, model=llm)
        if client is None:
            return None
        return cls(client, settings, owned=True, owns_model=llm is None)

    @property
    def usage(self) -> UsageTracker:
        """The usage tracker every stage counts into."""
        return self.client.usage

    @property
    def structured(self) -> bool:
        """Whether JSON schemas are sent as response formats."""
        return self.settings.structured != "none"

    def extractor(self, settings: Settings, fallback: BatchExtractor | None = None) -> LLMExtractor:
        """The LLM extractor (seed 000's two passes over mega-batches).

        ``fallback`` extracts the batches whose replies stay unusable; default: the offline
        spaCy extractor with ``settings.extraction`` (its model loads only if it is used).
        """
        from loregraph.ingest.extract.llm import LLMExtractor

        if fallback is None:
            from loregraph.ingest.extract.offline import OfflineExtractor

            fallback = OfflineExtractor(settings.extraction)
        return LLMExtractor(
            self.client,
            settings.extraction,
            mega_batch_chars=settings.chunk.mega_batch_chars,
            prompts=self.prompts,
            min_confidence=self.settings.min_confidence,
            gleaning=self.settings.gleaning,
            structured=self.structured,
            max_tokens=self.settings.extract_max_tokens,
            fallback=fallback,
        )

    def analyzer(self) -> LLMQueryAnalyzer | None:
        """The LLM query analyzer, or ``None`` when ``query_analysis`` is off."""
        if not self.settings.query_analysis:
            return None
        from loregraph.llm.query import LLMQueryAnalyzer

        return LLMQueryAnalyzer(
            self.client,
            prompts=self.prompts,
            persona=self.settings.persona_intents,
            timeout=self.settings.query_timeout,
            structured=self.structured,
        )

    def answerer(self) -> LLMAnswerer:
        """The streaming, citing answerer."""
        from loregraph.llm.answer import LLMAnswerer

        return LLMAnswerer(
            self.client,
            prompts=self.prompts,
            max_tokens=self.settings.answer_max_tokens,
            temperature=self.settings.answer_temperature,
            time_limit=self.settings.answer_timeout,
        )

    def confirmer(self) -> LLMMergeConfirmer | None:
        """The merge confirmer, or ``None`` when ``confirm_merges`` is off."""
        if not self.settings.confirm_merges:
            return None
        from loregraph.llm.merge import LLMMergeConfirmer

        return LLMMergeConfirmer(
            self.client,
            prompts=self.prompts,
            min_confidence=self.settings.min_confidence,
            structured=self.structured,
        )

    def embedder(self) -> Any | None:
        """An embedder using the same API when ``embedding_model`` is set, else ``None``."""
        return build_embedder(self.settings, usage=self.usage)

    async def aclose(self) -> None:
        """Close what the engine built: the provider's connections and the cache file."""
        if not self.owned:
            return
        if self.owns_model:
            await self.client.aclose()
        close = getattr(self.client.cache, "close", None)
        if close is not None:
            close()
