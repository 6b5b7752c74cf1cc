"""Entity resolution: a document's candidates to entities of the store, cheapest rule first.

In-document clustering (variant names of one entity) is :func:`cluster_candidates`
(module :mod:`loregraph.ingest.cluster`, re-exported here). :class:`Resolver` then links
each clustered candidate to an existing entity of the scope, or creates one:

1. **exact** — the candidate's name key is an entity's name key (entity ids derive from
   the name key, so this match is forced);
2. **alias** — a name of two or more words among the candidate's name, its
   honorific-stripped name and its surface forms is an entity's name or alias; the entity
   has the same type and a compatible name
   (:func:`~loregraph.ingest.names.names_compatible`: never ``Jonathan Harker`` /
   ``Mina Harker``, never ``Louis XIV`` / ``Louis XV``). One-word names ("Victoria",
   "Arthur") are too ambiguous across a corpus to link by alias: they link across
   documents only by exact name or by the later stages;
3. **fuzzy** — trigram similarity ≥ ``fuzzy_threshold`` to an entity of the same type with
   a compatible name (a one-word name only to a one-word entity; a threshold above 1
   switches this stage off: it costs one store query per candidate);
4. **embedding** — cosine similarity ≥ ``embedding_threshold`` between the embedding of
   ``"{name} {type} {description}"`` (seed 000) and an entity of the same type, names
   compatible and alike as strings (:func:`~loregraph.ingest.names.name_similarity` ≥
   0.6, or an acronym): two different places with one description must not merge. Types
   are never crossed by similarity alone.

A document-title candidate with a qualifier ("Carol Hughes (actress)", "Lambert, Margrave
of Tuscany") is what its document is about, named to tell it from namesakes: it is only
ever matched exactly (others may still link to it through its aliases). Stages 3-4 can be
confirmed by an optional async ``confirm(candidate, entity)`` callable (an LLM decision,
for instance). Each entity is claimed by at most one candidate of a document except
through an exact match. The texts of all candidates left after stage 3 are embedded in one
embedder call (in a worker thread); the vectors of the ones that become new entities are
kept as their embeddings.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import numpy as np

from loregraph.embed.base import Embedder
from loregraph.ingest import names
from loregraph.ingest.cluster import cluster_candidates
from loregraph.ingest.normalize import PERSON, normalize_type
from loregraph.ingest.types import CandidateEntity
from loregraph.models import Entity, Merge, Vector, name_key
from loregraph.settings import ResolutionSettings
from loregraph.store.base import Store

__all__ = ["Confirm", "Resolution", "Resolver", "cluster_candidates", "embedding_text"]

Confirm = Callable[[CandidateEntity, Entity], Awaitable[bool]]
"""An optional last word on a non-exact match: ``await confirm(candidate, entity)``."""

FUZZY_LIMIT = 5


@dataclass(slots=True)
class Resolution:
    """Each candidate name → its entity (existing or new), and the merges decided."""

    entities: dict[str, Entity] = field(default_factory=dict)
    merges: list[Merge] = field(default_factory=list)
    new_ids: set[str] = field(default_factory=set)


def embedding_text(candidate: CandidateEntity) -> str:
    """The text embedded for an entity (seed 000): ``"{name} {type} {description}"``."""
    return f"{candidate.name} {normalize_type(candidate.type)} {candidate.description}".strip()


def _lookup_keys(cand: CandidateEntity) -> list[str]:
    """The candidate's own key, then the keys of two or more words it may be known by."""
    keys = [name_key(names.split_title(cand.name)[1])]
    for occ in sorted(cand.occurrences, key=lambda o: -o.count):
        keys.append(name_key(occ.surface))
        keys.append(name_key(names.split_title(occ.surface)[1]))
    own = name_key(cand.name)
    return [own] + [k for k in dict.fromkeys(keys) if k != own and " " in k]


def _qualified_title(cand: CandidateEntity) -> bool:
    return cand.is_title and bool(names.split_qualifier(cand.name)[1])


class Resolver:
    """Links candidates to the store's entities (rules in the module docstring).

    Args:
        store: the store to look entities up in (nothing is written).
        embedder: embeds new entities and enables the embedding stage; ``None`` skips both.
        settings: thresholds; ``use_embeddings=False`` skips the embedding *match* (new
            entities are still embedded when an embedder is given).
        confirm: optional async check of every fuzzy or embedding match.
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None,
        settings: ResolutionSettings,
        confirm: Confirm | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.confirm = confirm

    async def resolve(
        self, scope: str, candidates: list[CandidateEntity], document_id: str
    ) -> Resolution:
        """Map every candidate name to an entity of ``scope`` (existing or new)."""
        res = Resolution()
        claimed: set[str] = set()
        ordered = sorted(candidates, key=lambda c: (-c.mentions, c.name))
        keys = {c.name: _lookup_keys(c) for c in ordered}
        wanted = list(dict.fromkeys(k for ks in keys.values() for k in ks))
        found = await self.store.find_entities_by_key(scope, wanted) if wanted else {}

        rest: list[CandidateEntity] = []
        for cand in ordered:
            key = name_key(cand.name)
            exact = found.get(key)
            if exact is not None and name_key(exact.name) == key:
                self._link(res, claimed, cand, exact, "exact", 1.0, scope, document_id)
            else:
                rest.append(cand)

        unmatched: list[CandidateEntity] = []
        for cand in rest:
            if cand.name in res.entities:
                continue
            if _qualified_title(cand):
                unmatched.append(cand)
                continue
            entity = self._alias_match(cand, keys[cand.name], found, claimed)
            if entity is not None:
                self._link(res, claimed, cand, entity, "alias", 1.0, scope, document_id)
                continue
            match = await self._fuzzy_match(scope, cand, claimed)
            if match is not None:
                entity, rule, score = match
                self._link(res, claimed, cand, entity, rule, score, scope, document_id)
                continue
            unmatched.append(cand)

        vectors = await self._embed(unmatched)
        for i, cand in enumerate(unmatched):
            if cand.name in res.entities:
                continue
            vector = vectors[i] if vectors is not None else None
            if vector is not None and self.settings.use_embeddings and not _qualified_title(cand):
                hit = await self._vector_match(scope, cand, vector, claimed)
                if hit is not None:
                    entity, score = hit
                    self._link(res, claimed, cand, entity, "embedding", score, scope, document_id)
                    continue
            self._create(res, cand, vector, scope)
        return res

    # ------------------------------------------------------------------ stages
    def _alias_match(
        self,
        cand: CandidateEntity,
        keys: list[str],
        found: dict[str, Entity],
        claimed: set[str],
    ) -> Entity | None:
        kind = normalize_type(cand.type)
        for key in keys:
            if " " not in key:
                continue
            entity = found.get(key)
            if entity is None or entity.id in claimed or normalize_type(entity.type) != kind:
                continue
            if names.names_compatible(cand.name, entity.name, person=kind == PERSON):
                return entity
        return None

    async def _fuzzy_match(
        self, scope: str, cand: CandidateEntity, claimed: set[str]
    ) -> tuple[Entity, str, float] | None:
        if self.settings.fuzzy_threshold > 1.0:
            return None
        kind = normalize_type(cand.type)
        hits = await self.store.search_entities_fuzzy(
            scope, cand.name, FUZZY_LIMIT, entity_type=kind
        )
        good = [h for h in hits if h.score >= self.settings.fuzzy_threshold]
        if not good:
            return None
        by_id = {e.id: e for e in await self.store.get_entities([h.id for h in good])}
        one_word = " " not in name_key(cand.name)
        for hit in good:
            entity = by_id.get(hit.id)
            if entity is None or entity.id in claimed:
                continue
            if one_word and " " in name_key(entity.name):
                continue  # "Larry" is like "Larry Miller" only through an alias
            if names.names_compatible(cand.name, entity.name, person=kind == PERSON) and (
                await self._confirmed(cand, entity)
            ):
                return entity, "fuzzy", hit.score
        return None

    async def _vector_match(
        self, scope: str, cand: CandidateEntity, vector: Vector, claimed: set[str]
    ) -> tuple[Entity, float] | None:
        kind = normalize_type(cand.type)
        hits = await self.store.search_entities_vector(scope, vector, 5, entity_type=kind)
        good = [h for h in hits if h.score >= self.settings.embedding_threshold]
        if not good:
            return None
        by_id = {e.id: e for e in await self.store.get_entities([h.id for h in good])}
        for hit in good:
            entity = by_id.get(hit.id)
            if entity is None or entity.id in claimed or normalize_type(entity.type) != kind:
                continue
            if not names.names_compatible(cand.name, entity.name, person=kind == PERSON):
                continue
            if names.name_similarity(cand.name, entity.name) < names.EMBEDDING_NAME_SIMILARITY:
                continue
            if await self._confirmed(cand, entity):
                return entity, hit.score
        return None

    async def _confirmed(self, cand: CandidateEntity, entity: Entity) -> bool:
        return self.confirm is None or await self.confirm(cand, entity)

    async def _embed(self, cands: list[CandidateEntity]) -> list[Vector] | None:
        if self.embedder is None or not cands:
            return None
        texts = [embedding_text(c) for c in cands]
        matrix = await asyncio.to_thread(self.embedder.embed, texts)
        array = np.asarray(matrix, dtype=np.float32)
        return [array[i] for i in range(len(cands))]

    # ------------------------------------------------------------------ outcomes
    @staticmethod
    def _link(
        res: Resolution,
        claimed: set[str],
        cand: CandidateEntity,
        entity: Entity,
        rule: str,
        score: float,
        scope: str,
        document_id: str,
    ) -> None:
        res.entities[cand.name] = entity
        claimed.add(entity.id)
        if rule != "exact" or cand.name != entity.name:
            res.merges.append(
                Merge(
                    entity_id=entity.id,
                    surface=cand.name,
                    rule=rule,
                    score=float(score),
                    scope=scope,
                    document_id=document_id,
                )
            )

    @staticmethod
    def _create(res: Resolution, cand: CandidateEntity, vector: Vector | None, scope: str) -> None:
        entity_id = Entity.make_id(scope, cand.name)
        if entity_id in res.new_ids:  # a second candidate with the same name key
            res.entities[cand.name] = next(e for e in res.entities.values() if e.id == entity_id)
            return
        own = name_key(cand.name)
        aliases = sorted({o.surface for o in cand.occurrences if name_key(o.surface) != own})
        entity = Entity(
            id=entity_id,
            name=cand.name,
            type=normalize_type(cand.type),
            scope=scope,
            description=cand.description,
            aliases=aliases,
            mention_count=cand.mentions,
            salience=cand.salience,
            confidence=cand.confidence,
            embedding=vector,
        )
        res.entities[cand.name] = entity
        res.new_ids.add(entity_id)
