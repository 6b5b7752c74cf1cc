"""The engine's collaborators, built in one place with offline defaults.

:class:`Parts` answers every "which implementation?" question once, when the engine is
built: the extractor (a model's, else spaCy's), the embedder (an OpenAI-compatible API when
``settings.llm.embedding_model`` is set, else the packaged MiniLM), the query analyser (a
model's, else the offline rules), the answerer (a model writing cited answers, else the
extractive one), the merge confirmer (a model, or none) and the usage counter. The rest of
the engine uses what it is given and never asks whether a language model is configured.

Objects the caller passes in are used as they are and never closed; what is built here is
built on first use (so ``stats`` loads no model) and closed by :meth:`Parts.aclose`. With
provider ``none`` no LLM code is imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from loregraph.answer.base import Answerer, ExtractiveAnswerer
from loregraph.embed.base import Embedder
from loregraph.ingest.extract.base import Extractor
from loregraph.ingest.facts.supersede import Contradict
from loregraph.ingest.resolve.entities import Confirm
from loregraph.retrieve.pipeline import Analyzer
from loregraph.retrieve.question.routing import IntentRouter
from loregraph.retrieve.search.resilience import GraphGuard
from loregraph.settings import Settings

if TYPE_CHECKING:
    from loregraph.llm.base import ChatModel
    from loregraph.llm.client import LLMClient
    from loregraph.llm.prompts import PromptLibrary
    from loregraph.llm.usage import UsageTracker


def store_file(store: object) -> str | None:
    """The file a store lives in (the LLM response cache goes next to it), if it has one."""
    path = getattr(store, "path", None)
    return str(path) if isinstance(path, str | Path) else None


class Parts:
    """Builds and holds the engine's extractor, embedder, analyser, answerer and confirmer.

    Args:
        settings: the engine's settings (``settings.llm`` names the model, if any).
        store_path: the store's file, when it has one (the LLM response cache goes next to it).
        llm: a model client (used as it is) or a provider object (wrapped with the cache and
            resilience ``settings.llm`` describes); default: built from ``settings.llm``.
        usage: the tracker LLM calls and tokens are counted in.
        embedder / extractor: objects to use instead of the defaults.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        store_path: str | Path | None = None,
        llm: LLMClient | ChatModel | None = None,
        usage: UsageTracker | None = None,
        embedder: Embedder | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        self.settings = settings
        self._store_path = store_path
        self._llm_arg = llm
        self._usage = usage
        self._embedder = embedder
        self._extractor = extractor
        self._built_embedder = False
        self._stages: dict[str, object] = {}
        self._built_extractor = False
        self._client: LLMClient | None = None
        self._client_ready = False
        self._owns_client = False
        self._owns_model = False
        self._prompts: PromptLibrary | None = None
        self._guard: GraphGuard | None = None

    # ------------------------------------------------------------------ the model
    @property
    def llm(self) -> LLMClient | None:
        """The model client every LLM stage shares; ``None`` when no model is configured."""
        if not self._client_ready:
            self._client_ready = True
            if self._llm_arg is not None or self.settings.llm.enabled:
                self._client = self._build_client()
        return self._client

    def _build_client(self) -> LLMClient | None:
        from loregraph.llm.client import LLMClient
        from loregraph.llm.config import build_client

        if isinstance(self._llm_arg, LLMClient):
            return self._llm_arg
        client = build_client(
            self.settings.llm, store_path=self._store_path, usage=self._usage, model=self._llm_arg
        )
        self._owns_client = client is not None
        self._owns_model = self._llm_arg is None
        return client

    @property
    def usage(self) -> UsageTracker | None:
        """LLM calls, cache hits and tokens per stage; ``None`` when no model is used."""
        client = self.llm
        return client.usage if client is not None else self._usage

    @property
    def prompts(self) -> PromptLibrary:
        """The prompt library (overridable from ``settings.llm.prompts_dir``)."""
        if self._prompts is None:
            from loregraph.llm.prompts import PromptLibrary

            self._prompts = PromptLibrary(self.settings.llm.prompts_dir)
        return self._prompts

    @property
    def _structured(self) -> bool:
        return self.settings.llm.structured != "none"

    # ------------------------------------------------------------------ the stages
    @property
    def embedder(self) -> Embedder:
        """The embedder: the one passed in, an API's, else the packaged MiniLM."""
        if self._embedder is None:
            self._embedder = self._api_embedder()
            self._built_embedder = self._embedder is not None
            if self._embedder is None:
                from loregraph.embed.minilm import MiniLMEmbedder

                self._embedder = MiniLMEmbedder()
        return self._embedder

    def _api_embedder(self) -> Embedder | None:
        if not self.settings.llm.embedding_model:
            return None
        from loregraph.embed.openai import build_embedder
        from loregraph.llm.usage import UsageTracker

        if self.usage is None:
            self._usage = UsageTracker()
        return build_embedder(self.settings.llm, usage=self.usage)

    @property
    def extractor(self) -> Extractor:
        """The extractor: the one passed in, a model's (spaCy's for the batches it cannot
        do), else spaCy's."""
        if self._extractor is None:
            from loregraph.ingest.extract.offline import OfflineExtractor

            offline = OfflineExtractor(self.settings.extraction)
            client = self.llm
            if client is None:
                self._extractor = offline
            else:
                from loregraph.ingest.extract.llm import LLMExtractor

                self._built_extractor = True  # it holds the client: rebuilt after a close
                llm = self.settings.llm
                self._extractor = LLMExtractor(
                    client,
                    self.settings.extraction,
                    mega_batch_chars=self.settings.chunk.mega_batch_chars,
                    prompts=self.prompts,
                    min_confidence=llm.min_confidence,
                    gleaning=llm.gleaning,
                    structured=self._structured,
                    max_tokens=llm.extract_max_tokens,
                    fallback=offline,
                )
        return self._extractor

    @property
    def guard(self) -> GraphGuard:
        """The graph layer's time limits, circuit breaker and caches (one per engine, from
        ``settings.resilience``)."""
        if self._guard is None:
            self._guard = GraphGuard(self.settings.resilience)
        return self._guard

    def analyzer(self) -> Analyzer | None:
        """The model's query analysis (which falls back to the offline rules), or ``None``
        for the offline rules alone; built once."""
        if "analyzer" not in self._stages:
            self._stages["analyzer"] = self._build_analyzer()
        return cast("Analyzer | None", self._stages["analyzer"])

    def intent_router(self) -> IntentRouter | None:
        """The model's persona intent analysis (when a model analyses questions), or
        ``None`` (the rules); built once."""
        if "intent" not in self._stages:
            router = None
            if self.llm is not None and self.settings.llm.query_analysis:
                from loregraph.retrieve.question.llm_intent import LLMIntentAnalyzer

                router = LLMIntentAnalyzer(
                    self.llm,
                    prompts=self.prompts,
                    timeout=self.settings.llm.query_timeout,
                    structured=self._structured,
                )
            self._stages["intent"] = router
        return cast("IntentRouter | None", self._stages["intent"])

    def answerer(self) -> Answerer:
        """A model writing cited answers, else the extractive answerer; built once."""
        if "answerer" not in self._stages:
            self._stages["answerer"] = self._build_answerer()
        return cast(Answerer, self._stages["answerer"])

    def confirmer(self) -> Confirm | None:
        """The model's check of borderline entity merges, or ``None`` (merge on the rules);
        built once."""
        if "confirmer" not in self._stages:
            self._stages["confirmer"] = self._build_confirmer()
        return cast("Confirm | None", self._stages["confirmer"])

    def contradiction_check(self) -> Contradict | None:
        """The model's check of which current facts new facts contradict, or ``None``
        (the offline rules alone); built once."""
        if "contradiction" not in self._stages:
            client = self.llm
            check = None
            if client is not None:
                from loregraph.ingest.facts.contradict import LLMContradictionCheck

                check = LLMContradictionCheck(
                    client, prompts=self.prompts, structured=self._structured
                )
            self._stages["contradiction"] = check
        return cast("Contradict | None", self._stages["contradiction"])

    def _build_analyzer(self) -> Analyzer | None:
        client = self.llm
        if client is None or not self.settings.llm.query_analysis:
            return None
        from loregraph.retrieve.question.llm_analyze import LLMQueryAnalyzer

        return LLMQueryAnalyzer(
            client,
            prompts=self.prompts,
            persona=self.settings.llm.persona_intents,
            timeout=self.settings.llm.query_timeout,
            structured=self._structured,
        )

    def _build_answerer(self) -> Answerer:
        client = self.llm
        if client is None:
            return ExtractiveAnswerer()
        from loregraph.answer.llm import LLMAnswerer

        llm = self.settings.llm
        return LLMAnswerer(
            client,
            prompts=self.prompts,
            max_tokens=llm.answer_max_tokens,
            temperature=llm.answer_temperature,
            time_limit=llm.answer_timeout,
        )

    def _build_confirmer(self) -> Confirm | None:
        client = self.llm
        if client is None or not self.settings.llm.confirm_merges:
            return None
        from loregraph.ingest.resolve.confirm import LLMMergeConfirmer

        return LLMMergeConfirmer(
            client,
            prompts=self.prompts,
            min_confidence=self.settings.llm.min_confidence,
            structured=self._structured,
        )

    async def aclose(self) -> None:
        """Close what was built here: the embedder, the provider's connections, the cache."""
        self._stages.clear()  # the stages hold the client: rebuilt after a close
        if self._built_extractor:
            self._extractor, self._built_extractor = None, False
        if self._built_embedder:
            close = getattr(self._embedder, "close", None)
            self._embedder, self._built_embedder = None, False
            if close is not None:
                close()
        client, self._client, self._client_ready = self._client, None, False
        if client is None or not self._owns_client:
            return
        if self._owns_model:
            await client.aclose()
        close_cache = getattr(client.cache, "close", None)
        if close_cache is not None:
            close_cache()
