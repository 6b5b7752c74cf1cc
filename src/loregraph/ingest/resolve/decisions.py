"""What entity resolution must honour besides its own rules: merge rules switched off, the
splits and hand merges people made (:class:`~loregraph.store.changes.Decision`), and, when
stored documents are processed again, the decisions each of them had before.

* a **split** keeps a name apart from an entity: resolution never links a candidate of that
  name to it, and clustering (the pipeline's and the offline extractor's) never joins that
  name to the entity's name, nor, found after resolution, to any name that resolved to it;
* a **join** redirects an entity to another: whatever resolves to the first entity is
  linked to the second instead (rule ``manual``);
* a **pin** (documents processed again only) links a candidate as it was linked before:
  to the entity of its recorded merge, or, when it had none, only to an entity of its own
  name, so that processing a document again changes nothing but what was asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from loregraph.ingest.resolve.cluster import Record
from loregraph.ingest.types import ClusterRules
from loregraph.models import Entity, Merge, name_key
from loregraph.store.base import Store
from loregraph.store.changes import JOIN, SPLIT, Decision

RESOLVER_RULES = frozenset({"alias", "fuzzy", "embedding"})
"""The merge rules of resolution across documents (the others are clustering's)."""
SAME_KEY_RULES = frozenset({"exact"})
"""Rules that join names of one key: such names are one entity by construction."""
MANUAL = "manual"


@dataclass(frozen=True, slots=True)
class MergeRules:
    """What resolution and clustering honour (see the module docstring)."""

    off: frozenset[str] = frozenset()
    apart: frozenset[tuple[str, str]] = frozenset()
    """(name key, entity id) pairs never merged."""
    joins: Mapping[str, str] = field(default_factory=dict)
    """Entity id → the entity id it was merged into by hand."""
    pins: Mapping[str, Pins] = field(default_factory=dict)
    """Document id → its pins (documents processed again only)."""
    names: frozenset[tuple[str, str]] = frozenset()
    """(name key, name key) pairs clustering keeps apart: a split name and the name of the
    entity it was split from (other names it was joined to by way of that entity are kept
    apart after resolution, see :meth:`names_apart`)."""

    @classmethod
    def of(
        cls,
        decisions: Iterable[Decision],
        off: Iterable[str] = (),
        pins: Mapping[str, Pins] | None = None,
        entities: Mapping[str, Entity] | None = None,
    ) -> MergeRules:
        """The rules from a scope's remembered decisions, the rules switched off and the
        stored entities splits name (by id)."""
        apart: set[tuple[str, str]] = set()
        pairs: set[tuple[str, str]] = set()
        joins: dict[str, str] = {}
        for decision in decisions:
            key = name_key(decision.surface)
            if decision.kind == SPLIT:
                apart.add((key, decision.entity_id))
                entity = (entities or {}).get(decision.entity_id)
                if entity is not None and name_key(entity.name) != key:
                    pairs.add((key, name_key(entity.name)))
            elif decision.kind == JOIN:
                joins[Entity.make_id(decision.scope, decision.surface)] = decision.entity_id
        return cls(frozenset(off), frozenset(apart), joins, pins or {}, frozenset(pairs))

    def blocks(self, name: str, entity: Entity, rule: str) -> bool:
        """Whether a candidate called ``name`` may not be linked to ``entity`` by ``rule``."""
        return rule in self.off or (name_key(name), entity.id) in self.apart

    def join_target(
        self, targets: Mapping[str, Entity], made: Iterable[Entity], entity_id: str
    ) -> Entity | None:
        """The entity a hand merge redirects ``entity_id`` to: the stored one (in
        ``targets``), else the one the document being resolved makes (``made``: a document
        processed again is deleted first, so the entity kept may live only in it)."""
        target = self.joins.get(entity_id)
        if target is None:
            return None
        return targets.get(target) or next((e for e in made if e.id == target), None)

    def joined_away(self, targets: Mapping[str, Entity], entity_id: str) -> bool:
        """Whether a hand merge redirects ``entity_id`` to an entity that is not stored: a
        candidate of that name is resolved after the others, which may make that entity."""
        return self.joins.get(entity_id, "") not in {"", *targets}

    def cluster_rules(self, apart: frozenset[tuple[str, str]] = frozenset()) -> ClusterRules:
        """The rules of in-document clustering, with name key pairs kept apart."""
        return ClusterRules(self.off - RESOLVER_RULES, self.names | apart)

    def names_apart(
        self, records: Iterable[Record], entities: Mapping[str, Entity]
    ) -> frozenset[tuple[str, str]]:
        """(surface key, canonical key) of the clustering joins that would put a name into
        an entity it was split from; clustering again without them honours the splits."""
        if not self.apart:
            return frozenset()
        found = set()
        for surface, canonical, _rule in records:
            entity = entities.get(canonical)
            key = name_key(surface)
            apart = entity is not None and (key, entity.id) in self.apart
            if apart and key != name_key(canonical):
                found.add((key, name_key(canonical)))
        return frozenset(found)


@dataclass(frozen=True, slots=True)
class Pins:
    """A stored document's earlier links, honoured when it is processed again."""

    merged: Mapping[str, Merge] = field(default_factory=dict)
    """Candidate name key → its resolution merge (alias, fuzzy, embedding; merges by hand
    follow the scope's decisions instead)."""
    own: frozenset[str] = frozenset()
    """Ids of the entities the document linked: a candidate whose own name's id is one of
    them was linked to it exactly (or created it), and is again, by no other rule."""

    @classmethod
    def of(cls, merges: Iterable[Merge], entity_ids: Iterable[str]) -> Pins:
        """The pins of a document from its recorded merges and the entities it linked."""
        merged = {name_key(m.surface): m for m in merges if m.rule in RESOLVER_RULES}
        return cls(merged, frozenset(entity_ids))


async def load_targets(store: Store, rules: MergeRules, pins: Pins | None) -> dict[str, Entity]:
    """The entities hand merges redirect to and a document's pinned merges link to, by id."""
    ids = set(rules.joins.values())
    if pins is not None:
        ids.update(m.entity_id for m in pins.merged.values())
    return {e.id: e for e in await store.get_entities(sorted(ids))} if ids else {}


def pinned_link(
    rules: MergeRules, targets: Mapping[str, Entity], name: str, pins: Pins | None
) -> tuple[Entity, str, float] | None:
    """The entity, rule and score of a candidate's earlier merge, if it still holds."""
    merge = None if pins is None else pins.merged.get(name_key(name))
    entity = None if merge is None else targets.get(merge.entity_id)
    if merge is None or entity is None or rules.blocks(name, entity, merge.rule):
        return None
    return entity, merge.rule, merge.score
