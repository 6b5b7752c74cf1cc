"""The engine's settings: chunking, extraction, resolution and retrieval, with named presets.

Frozen dataclasses whose defaults are the engine's tuned constants; the environment is read
only by :meth:`Settings.from_env` (see :mod:`loregraph.settings.env`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from loregraph.errors import ConfigError
from loregraph.settings.env import read_env
from loregraph.settings.llm import LLMSettings
from loregraph.settings.resilience import ResilienceSettings


@dataclass(frozen=True, slots=True)
class ChunkSettings:
    """How documents are cut into chunks (default 1,000 characters, 200 overlap)."""

    size: int = 1000
    overlap: int = 200
    unit: Literal["chars", "tokens"] = "chars"
    mega_batch_chars: int = 50_000

    def __post_init__(self) -> None:
        if self.size <= 0:
            raise ConfigError(f"chunk size must be positive, got {self.size}")
        if not 0 <= self.overlap < self.size:
            raise ConfigError(
                f"chunk overlap must be at least 0 and below the size ({self.size}), "
                f"got {self.overlap}"
            )
        if self.unit not in ("chars", "tokens"):
            raise ConfigError(f"chunk unit must be 'chars' or 'tokens', got {self.unit!r}")


FUNCTIONAL_RELATIONS = (
    "DEPENDS_ON",
    "LIVES_IN",
    "WORKS_FOR",
    "WORKS_AT",
    "IS_MARRIED_TO",
    "MARRIES",
    "MARRIED_TO",
)
"""The default functional relation types (the offline extractor's names for them)."""
EVENT_RELATIONS = ("AUTHORED",)
"""The default event relation types: a commit's author ``AUTHORED`` what it changed
(``ingest/code/history.py``), once a commit."""


@dataclass(frozen=True, slots=True)
class ExtractionSettings:
    """Entity selection (the most mentioned and most salient, per type) and extractor limits."""

    core_entity_limit: int = 60
    core_entity_per_type: int = 20
    min_entity_mentions: int = 2
    min_entity_salience: float = 3.0
    max_document_nodes: int = 1000
    max_entities_per_batch: int = 50
    max_relationships_per_batch: int = 100
    co_occurrence: bool = True
    spacy_model: str = "en_core_web_sm"
    processes: int = 1
    functional_relations: tuple[str, ...] = FUNCTIONAL_RELATIONS
    """Relation types with one current target per source: a new one ends the current one
    (``ingest/facts/supersede.py``)."""
    event_relations: tuple[str, ...] = EVENT_RELATIONS
    """Relation types of which each dated statement is an event of its own: one relation per
    memory or document stating it, none ending another (``ingest/facts/statements.py``)."""


@dataclass(frozen=True, slots=True)
class ResolutionSettings:
    """Entity resolution thresholds, cheapest rule first.

    ``merge_rules_off`` names merge rules that never merge: across documents ``alias``,
    ``fuzzy``, ``embedding``; inside a document ``part-of-name``, ``part-of-name-dominant``,
    ``honorific`` (gendered variants) and ``title-reference``. Names with one name key
    (``exact``, and honorifics of one name) are one entity by construction.
    """

    fuzzy_threshold: float = 0.90
    embedding_threshold: float = 0.90
    use_embeddings: bool = True
    merge_rules_off: tuple[str, ...] = ()


MIN_BUDGET = 100
"""The smallest context token budget accepted: less holds no useful passage."""


def check_budget(budget: int | None) -> None:
    """Raise :class:`ConfigError` for a token budget below :data:`MIN_BUDGET`."""
    if budget is not None and budget < MIN_BUDGET:
        raise ConfigError(
            f"a token budget of {budget} is too small: give at least {MIN_BUDGET} tokens"
        )


def check_limit(limit: int | None, what: str = "limit") -> None:
    """Raise :class:`ConfigError` for a result count below 1 (``None`` means no limit)."""
    if limit is not None and limit < 1:
        raise ConfigError(f"{what} must be at least 1, got {limit}")


@dataclass(frozen=True, slots=True)
class RetrievalSettings:
    """Which retrieval stages run and how far they reach. Use :data:`PRESETS` for names."""

    name: str = "hybrid"
    max_start_entities: int = 5
    max_graph_depth: int = 2
    per_node: int = 20
    max_entities: int = 60
    use_exact: bool = True
    use_fuzzy: bool = True
    use_bm25_entities: bool = True
    use_vector_entities: bool = True
    expansion: Literal["bfs", "ppr", "none"] = "bfs"
    ppr_damping: float = 0.5
    passages_by_mentions: bool = True
    passages_by_bm25: bool = True
    passages_by_vector: bool = True
    entity_pages: bool = True
    rrf_k: int = 20
    """RRF's ``k``: 20 lets a list's first ranks count clearly more than its tenth (measured
    on the long-document questions of ``bench/longdoc.py`` and on 2Wiki; 60 before)."""
    max_passages: int = 8
    max_relations: int = 40
    token_budget: int = 4000
    show_ended: bool = False
    """Show the start entities' ended facts in contexts, marked as ended ("until
    2026-02-10; replaced by Hono"); by default they are left out."""

    def replace(self, **changes: Any) -> RetrievalSettings:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def without_graph(self) -> RetrievalSettings:
        """These settings with the graph layer off: passages found by their words and their
        meaning only (no entities, relations, expansion, mentions or entity pages); the
        budget and fusion stay."""
        return self.replace(
            use_exact=False,
            use_fuzzy=False,
            use_bm25_entities=False,
            use_vector_entities=False,
            expansion="none",
            passages_by_mentions=False,
            passages_by_bm25=True,
            passages_by_vector=True,
            entity_pages=False,
        )


PRESETS: dict[str, RetrievalSettings] = {
    # entity-centred: seeds and their 2-hop neighbourhood, passages that mention them
    "local": RetrievalSettings(
        name="local", passages_by_bm25=False, passages_by_vector=False, expansion="bfs"
    ),
    # theme-centred: entities and relations found by text and vectors, 1 hop
    "global": RetrievalSettings(
        name="global", use_exact=False, use_fuzzy=False, max_graph_depth=1, max_start_entities=10
    ),
    # everything fused
    "hybrid": RetrievalSettings(name="hybrid"),
    # passages only: BM25 + vectors fused, no graph
    "passages": RetrievalSettings(name="passages").without_graph(),
    # personalised PageRank over the entity-passage graph, fused with BM25 and vectors
    "ppr": RetrievalSettings(name="ppr", expansion="ppr"),
}

DEFAULT_PRESET = "hybrid"


def preset(name: str) -> RetrievalSettings:
    """A named retrieval preset; raises :class:`ConfigError` naming the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(sorted(PRESETS))
        raise ConfigError(f"unknown retrieval preset {name!r}; known presets: {known}") from None


@dataclass(frozen=True, slots=True)
class Settings:
    """All settings of one engine instance.

    ``llm`` selects a language model (:class:`~loregraph.settings.LLMSettings`); its
    default, provider ``none``, keeps everything offline. ``graph_augmentation=False``
    switches the graph layer off for every question, whatever the preset
    (:meth:`RetrievalSettings.without_graph`); ``resilience`` sets how it degrades
    (stage time limits, the graph circuit breaker, its caches). ``personas_dir`` is a
    directory of persona files (``*.yaml``) added to the packaged personas.
    """

    scope: str = "default"
    chunk: ChunkSettings = field(default_factory=ChunkSettings)
    extraction: ExtractionSettings = field(default_factory=ExtractionSettings)
    resolution: ResolutionSettings = field(default_factory=ResolutionSettings)
    retrieval: RetrievalSettings = field(default_factory=lambda: PRESETS[DEFAULT_PRESET])
    llm: LLMSettings = field(default_factory=LLMSettings)
    graph_augmentation: bool = True
    resilience: ResilienceSettings = field(default_factory=ResilienceSettings)
    personas_dir: str | None = None

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_env(cls, env: Mapping[str, str], *, llm: Mapping[str, Any] | None = None) -> Settings:
        """Settings from ``LOREGRAPH_*`` variables (``KG_*`` names are accepted as aliases).

        Call at entry points only; every variable is listed in
        :data:`loregraph.settings.env.VARIABLES`. ``llm`` holds LLM field values (e.g. from
        command-line options) that win over the environment; the LLM settings are checked
        with them applied.
        """
        values = read_env(env)
        top = values.get("", {})
        base = cls()
        retrieval = preset(top.get("preset") or DEFAULT_PRESET)
        return cls(
            scope=top.get("scope") or base.scope,
            chunk=dataclasses.replace(base.chunk, **values.get("chunk", {})),
            extraction=dataclasses.replace(base.extraction, **values.get("extraction", {})),
            retrieval=retrieval.replace(**values.get("retrieval", {})),
            llm=LLMSettings(**{**values.get("llm", {}), **(llm or {})}),
            graph_augmentation=top.get("graph_augmentation", True),
            resilience=ResilienceSettings(**values.get("resilience", {})),
            personas_dir=top.get("personas_dir"),
        )
