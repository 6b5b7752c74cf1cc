"""Entity resolution: a document's candidates to entities of the store, cheapest rule first.

In-document clustering (variant names of one entity) is :func:`cluster_candidates`
(module :mod:`loregraph.ingest.resolve.cluster`, re-exported here). :class:`Resolver` then links
each clustered candidate to an existing entity of the scope, or creates one:

1. **exact** — the candidate's name key is an entity's name key (entity ids derive from
   the name key, so this match is forced);
2. **alias** — a name of two or more words among the candidate's name, its
   honorific-stripped name and its surface forms is an entity's name or alias; the entity
   has the same type and a compatible name (:func:`~loregraph.text.names.names_compatible`:
   never ``Jonathan Harker`` / ``Mina Harker``, never ``Louis XIV`` / ``Louis XV``).
   One-word names ("Victoria") are too ambiguous across a corpus to link by alias, but a
   name written as code is a code definition's alias (:mod:`.codenames`);
3. **fuzzy** — trigram similarity ≥ ``fuzzy_threshold`` to an entity of the same type with
   a compatible name (a one-word name only to a one-word entity; a threshold above 1
   switches this stage off: it costs one store query per candidate);
4. **embedding** — cosine similarity ≥ ``embedding_threshold`` between the embedding of
   ``"{name} {type} {description}"`` and an entity of the same type, names
   compatible and alike as strings (:func:`~loregraph.text.names.name_similarity` ≥
   0.6, or an acronym): two different places with one description must not merge. Types
   are never crossed by similarity alone.

A document-title candidate with a qualifier ("Carol Hughes (actress)", "Lambert, Margrave
of Tuscany") is what its document is about, named to tell it from namesakes: it is only
ever matched exactly (others may still link to it through its aliases), and so is an
identifier (``CandidateEntity.exact``: a code symbol, a file path). Stages 3-4 can be
confirmed by an optional async ``confirm(candidate, entity)`` callable (an LLM decision,
for instance). Each entity is claimed by at most one candidate of a document except
through an exact match. The candidates left after stage 3 are embedded in one call (in a
worker thread) unless a caller embedded them ahead (:meth:`Resolver.plan_embeddings`);
those that become new entities keep their vectors. The store does not change while one
document resolves, so the fuzzy and vector lookups of all its candidates are each one
batched store call. Merge rules switched off, splits, hand merges and a document's earlier
links are honoured as :mod:`loregraph.ingest.resolve.decisions` describes (:attr:`Resolver.rules`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

import numpy as np
import numpy.typing as npt

from loregraph.embed.base import Embedder
from loregraph.ingest.resolve.cluster import cluster_candidates
from loregraph.ingest.resolve.codenames import code_target
from loregraph.ingest.resolve.decisions import MANUAL, MergeRules, load_targets, pinned_link
from loregraph.ingest.types import CandidateEntity, Resolution
from loregraph.models import Entity, Merge, Scored, Vector, name_key
from loregraph.settings import ResolutionSettings
from loregraph.store.base import Store
from loregraph.text import names
from loregraph.text.entity_types import PERSON, normalize_type

__all__ = ["Confirm", "Resolver", "cluster_candidates", "embedding_text"]

Confirm = Callable[[CandidateEntity, Entity], Awaitable[bool]]
"""An optional last word on a non-exact match: ``await confirm(candidate, entity)``."""

FUZZY_LIMIT = VECTOR_LIMIT = 5


def embedding_text(candidate: CandidateEntity) -> str:
    """The text embedded for an entity: ``"{name} {type} {description}"``."""
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
        self.rules = MergeRules(off=frozenset(settings.merge_rules_off))
        """Splits, hand merges and pins to honour (:mod:`loregraph.ingest.resolve.decisions`)."""
        self._vectors: dict[str, Vector] = {}
        self._targets: dict[str, Entity] = {}

    async def resolve(
        self, scope: str, candidates: list[CandidateEntity], document_id: str
    ) -> Resolution:
        """Map every candidate name to an entity of ``scope`` (existing or new)."""
        res = Resolution()
        claimed: set[str] = set()
        pins = self.rules.pins.get(document_id)
        self._targets = await load_targets(self.store, self.rules, pins)
        ordered = sorted(candidates, key=lambda c: (-c.mentions, c.name))
        keys = {c.name: _lookup_keys(c) for c in ordered}
        wanted = list(dict.fromkeys(k for ks in keys.values() for k in ks))
        found = await self.store.find_entities_by_key(scope, wanted) if wanted else {}

        rest: list[CandidateEntity] = []
        own: set[int] = set()  # pinned to an entity of their own name: exact or new only
        for cand in ordered:
            key = name_key(cand.name)
            exact = found.get(key)
            pinned = pinned_link(self.rules, self._targets, cand.name, pins)
            if pinned is not None:
                self._link(res, claimed, cand, *pinned, scope, document_id)
            elif exact is not None and name_key(exact.name) == key:
                self._link(res, claimed, cand, exact, "exact", 1.0, scope, document_id)
            else:
                rest.append(cand)
                if pins is not None and Entity.make_id(scope, cand.name) in pins.own:
                    own.add(id(cand))

        # the store does not change while one document resolves: look every candidate that
        # may reach the fuzzy stage up at once (those linked earlier simply ignore theirs)
        alone = {id(c) for c in rest if c.exact or _qualified_title(c) or id(c) in own}
        fuzzy = await self._fuzzy_hits(
            scope, [c for c in rest if c.name not in res.entities and id(c) not in alone]
        )
        unmatched: list[CandidateEntity] = []
        for cand in rest:
            if cand.name in res.entities:
                continue
            if id(cand) in alone:
                unmatched.append(cand)
                continue
            entity = self._alias_match(cand, keys[cand.name], found, claimed)
            if entity is not None:
                self._link(res, claimed, cand, entity, "alias", 1.0, scope, document_id)
                continue
            match = await self._fuzzy_match(cand, fuzzy.get(id(cand), []), claimed)
            if match is not None:
                entity, rule, score = match
                self._link(res, claimed, cand, entity, rule, score, scope, document_id)
                continue
            unmatched.append(cand)

        # a name merged by hand into an entity only this document makes is created last
        unmatched.sort(
            key=lambda c: self.rules.joined_away(self._targets, Entity.make_id(scope, c.name))
        )
        vectors = await self._embed(unmatched)
        searched = [
            (cand, vectors[i])
            for i, cand in enumerate(unmatched)
            if vectors is not None
            and self.settings.use_embeddings
            and "embedding" not in self.rules.off
            and cand.name not in res.entities
            and id(cand) not in alone
        ]
        near = await self._vector_hits(scope, searched)
        for i, cand in enumerate(unmatched):
            if cand.name in res.entities:
                continue
            vector = vectors[i] if vectors is not None else None
            if id(cand) in near:
                hit = await self._vector_match(cand, near[id(cand)], claimed)
                if hit is not None:
                    entity, score = hit
                    self._link(res, claimed, cand, entity, "embedding", score, scope, document_id)
                    continue
            self._create(res, claimed, cand, vector, scope, document_id)
        return res

    # ------------------------------------------------------------------ embedding ahead
    async def plan_embeddings(
        self, scope: str, groups: Sequence[Sequence[CandidateEntity]]
    ) -> list[str]:
        """The texts that resolving these documents (in order) will likely embed.

        A caller that embeds many documents' chunks at once can embed these texts in the
        same call and hand the vectors over with :meth:`add_embeddings`; :meth:`resolve`
        then embeds only what this guess missed. Left out: candidates that match a stored
        entity exactly or by alias (never embedded) and names already seen in an earlier
        document of ``groups`` (they will most likely match its entity exactly). Forgets the
        vectors added for an earlier plan.
        """
        self._vectors.clear()
        if self.embedder is None:
            return []
        keys = [{c.name: _lookup_keys(c) for c in group} for group in groups]
        wanted = list(dict.fromkeys(k for ks in keys for names_ in ks.values() for k in names_))
        found = await self.store.find_entities_by_key(scope, wanted) if wanted else {}
        seen: set[str] = set()
        texts: dict[str, None] = {}
        for group, group_keys in zip(groups, keys, strict=True):
            for cand in group:
                key = name_key(cand.name)
                if key in seen:
                    continue
                exact = found.get(key)
                if exact is not None and name_key(exact.name) == key:
                    continue
                if not _qualified_title(cand) and (
                    self._alias_match(cand, group_keys[cand.name], found, set()) is not None
                ):
                    continue
                texts[embedding_text(cand)] = None
            seen.update(name_key(c.name) for c in group)
        return list(texts)

    def add_embeddings(self, texts: Sequence[str], vectors: npt.ArrayLike) -> None:
        """Vectors of :func:`embedding_text` texts, used instead of embedding them again."""
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.shape[0] != len(texts):
            raise ValueError(f"expected {len(texts)} vectors, got {matrix.shape[0]}")
        for text, row in zip(texts, matrix, strict=True):
            self._vectors[text] = row

    def _alias_match(
        self,
        cand: CandidateEntity,
        keys: list[str],
        found: dict[str, Entity],
        claimed: set[str],
    ) -> Entity | None:
        if (code := code_target(cand, found)) is not None and code.id not in claimed:
            cand.description = ""  # the definition known by it, which describes itself
            return code
        kind = normalize_type(cand.type)
        for key in keys:
            if " " not in key:
                continue
            entity = found.get(key)
            if entity is None or entity.id in claimed or normalize_type(entity.type) != kind:
                continue
            if self.rules.blocks(cand.name, entity, "alias"):
                continue
            if names.names_compatible(cand.name, entity.name, person=kind == PERSON):
                return entity
        return None

    async def _fuzzy_hits(
        self, scope: str, cands: list[CandidateEntity]
    ) -> dict[int, list[tuple[Entity, float]]]:
        """``id(candidate)`` → its fuzzy hits at or above the threshold, best first."""
        if self.settings.fuzzy_threshold > 1.0 or not cands or "fuzzy" in self.rules.off:
            return {}
        queries = [(c.name, normalize_type(c.type)) for c in cands]
        rows = await self.store.search_entities_fuzzy_many(scope, queries, FUZZY_LIMIT)
        good = [[h for h in row if h.score >= self.settings.fuzzy_threshold] for row in rows]
        return await self._with_entities(cands, good)

    async def _vector_hits(
        self, scope: str, searched: list[tuple[CandidateEntity, Vector]]
    ) -> dict[int, list[tuple[Entity, float]]]:
        """``id(candidate)`` → its vector hits at or above the threshold, best first."""
        if not searched:
            return {}
        queries = [(vector, normalize_type(c.type)) for c, vector in searched]
        rows = await self.store.search_entities_vector_many(scope, queries, VECTOR_LIMIT)
        good = [[h for h in row if h.score >= self.settings.embedding_threshold] for row in rows]
        return await self._with_entities([c for c, _ in searched], good)

    async def _with_entities(
        self, cands: list[CandidateEntity], rows: list[list[Scored]]
    ) -> dict[int, list[tuple[Entity, float]]]:
        ids = list(dict.fromkeys(h.id for row in rows for h in row))
        by_id = {e.id: e for e in await self.store.get_entities(ids)} if ids else {}
        return {
            id(cand): [(by_id[h.id], h.score) for h in row if h.id in by_id]
            for cand, row in zip(cands, rows, strict=True)
            if row
        }

    async def _fuzzy_match(
        self, cand: CandidateEntity, hits: list[tuple[Entity, float]], claimed: set[str]
    ) -> tuple[Entity, str, float] | None:
        kind = normalize_type(cand.type)
        one_word = " " not in name_key(cand.name)
        for entity, score in hits:
            if entity.id in claimed or self.rules.blocks(cand.name, entity, "fuzzy"):
                continue
            if one_word and " " in name_key(entity.name):
                continue  # "Larry" is like "Larry Miller" only through an alias
            if names.names_compatible(cand.name, entity.name, person=kind == PERSON) and (
                await self._confirmed(cand, entity)
            ):
                return entity, "fuzzy", score
        return None

    async def _vector_match(
        self, cand: CandidateEntity, hits: list[tuple[Entity, float]], claimed: set[str]
    ) -> tuple[Entity, float] | None:
        kind = normalize_type(cand.type)
        for entity, score in hits:
            if entity.id in claimed or normalize_type(entity.type) != kind:
                continue
            if self.rules.blocks(cand.name, entity, "embedding"):
                continue
            if not names.names_compatible(cand.name, entity.name, person=kind == PERSON):
                continue
            if names.name_similarity(cand.name, entity.name) < names.EMBEDDING_NAME_SIMILARITY:
                continue
            if await self._confirmed(cand, entity):
                return entity, score
        return None

    async def _confirmed(self, cand: CandidateEntity, entity: Entity) -> bool:
        return self.confirm is None or await self.confirm(cand, entity)

    async def _embed(self, cands: list[CandidateEntity]) -> list[Vector] | None:
        """The candidates' vectors: those added ahead, the rest embedded in one call."""
        if self.embedder is None or not cands:
            return None
        texts = [embedding_text(c) for c in cands]
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            matrix = await asyncio.to_thread(self.embedder.embed, missing)
            self.add_embeddings(missing, matrix)
        return [self._vectors[t] for t in texts]

    # ------------------------------------------------------------------ outcomes
    def _link(
        self,
        res: Resolution,
        claimed: set[str],
        cand: CandidateEntity,
        entity: Entity,
        rule: str,
        score: float,
        scope: str,
        document_id: str,
    ) -> None:
        joined = self._targets.get(self.rules.joins.get(entity.id, ""))
        if joined is not None:
            entity, rule, score = joined, MANUAL, 1.0
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

    def _create(
        self,
        res: Resolution,
        claimed: set[str],
        cand: CandidateEntity,
        vector: Vector | None,
        scope: str,
        document_id: str,
    ) -> None:
        entity_id = Entity.make_id(scope, cand.name)
        joined = self.rules.join_target(self._targets, res.entities.values(), entity_id)
        if joined is not None:
            self._link(res, claimed, cand, joined, MANUAL, 1.0, scope, document_id)
            return
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
