"""Store contract: merge decisions, the audit log and hand edits (rename, retype), then
merges seen and undone through the engine, on every backend."""

from __future__ import annotations

from datetime import timedelta

import pytest

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.errors import InputError, NotFoundError
from loregraph.models import Merge, utcnow
from loregraph.settings import ResolutionSettings, Settings
from loregraph.store.base import Store
from loregraph.store.changes import JOIN, SPLIT, AuditEntry, Decision

from .scenarios import ContractBase, StoreFactory, shared_pair


class MergeContract(ContractBase):
    """Merge decisions, audit entries and entity edits on the backend."""

    async def test_decisions_are_kept_replaced_and_removed(self, store: Store) -> None:
        now = utcnow()
        split = Decision(SPLIT, "mrg_1", "ent_a", "Mina", rule="fuzzy", score=0.93,
                         document_id="doc-1", principal="ann", created_at=now)  # fmt: skip
        join = Decision(JOIN, "mrg_2", "ent_b", "Jack Seward", principal="bob",
                        created_at=now + timedelta(seconds=1))  # fmt: skip
        other = Decision(SPLIT, "mrg_3", "ent_c", "X", scope="elsewhere", created_at=now)
        for decision in (split, join, other):
            await store.add_decision(decision)
        assert await store.list_decisions("default") == [split, join]
        again = Decision(SPLIT, "mrg_1", "ent_a", "Mina", principal="carol", created_at=now)
        await store.add_decision(again)
        assert [d.principal for d in await store.list_decisions("default")] == ["carol", "bob"]
        assert await store.remove_decision("default", JOIN, "mrg_2")
        assert not await store.remove_decision("default", JOIN, "mrg_2")
        assert not await store.remove_decision("default", JOIN, "mrg_1")
        assert await store.list_decisions("default") == [again]
        assert await store.list_decisions("elsewhere") == [other]

    async def test_audit_log_is_newest_first_per_scope(self, store: Store) -> None:
        now = utcnow()
        entries = [
            AuditEntry("merge", f"A{i}", "into B", "ann", at=now + timedelta(seconds=i))
            for i in range(3)
        ]
        for entry in entries:
            await store.add_audit(entry)
        await store.add_audit(AuditEntry("rename", "Z", scope="elsewhere"))
        assert await store.list_audit("default") == entries[::-1]
        assert await store.list_audit("default", limit=2) == entries[:0:-1]
        assert [e.subject for e in await store.list_audit("elsewhere")] == ["Z"]

    async def test_rename_and_retype_keep_the_entity(self, store: Store) -> None:
        ids = await shared_pair(store)
        before = (await store.get_entities([ids["alice"]]))[0]
        renamed = await store.update_entity(ids["alice"], name="Alice Stone")
        assert renamed.id == ids["alice"] and renamed.name == "Alice Stone"
        assert renamed.mention_count == before.mention_count
        found = await store.find_entities_by_key("default", ["alice stone", "alice morgan"])
        assert found["alice stone"].id == ids["alice"]
        assert "alice morgan" not in found
        hits = await store.search_entities_text("default", "Stone", 10)
        assert ids["alice"] in {h.id for h in hits}
        fuzzy = await store.search_entities_fuzzy("default", "Alice Stone", 3)
        assert fuzzy and fuzzy[0].id == ids["alice"]
        retyped = await store.update_entity(ids["city"], entity_type="organization")
        assert retyped.type == "organization" and retyped.name == "Harbor City"
        relations = await store.entity_relations(ids["alice"])
        assert {r.id for r in relations} >= {ids["met"], ids["travelled"]}
        with pytest.raises(NotFoundError):
            await store.update_entity("ent_missing", name="Nobody")

    async def test_merges_have_stable_ids(self, store: Store) -> None:
        await shared_pair(store)
        [merge] = await store.list_merges("default")
        assert isinstance(merge, Merge)
        again = Merge(merge.entity_id, merge.surface, "other", scope=merge.scope,
                      document_id=merge.document_id)  # fmt: skip
        assert merge.id == again.id and merge.id.startswith("mrg_")


class EngineMergeContract(ContractBase):
    """Merges listed, made by hand and undone through :class:`AsyncGraph` on the backend."""

    async def test_manual_merge_and_unmerge_round_trip(self, store: Store) -> None:
        graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))
        texts = [
            "Bob Jones lives in Paris. Bob Jones works for Acme Corporation.",
            "Robert Jones met Alice Smith in Berlin. Robert Jones plays chess.",
        ]
        for i, text in enumerate(texts):
            await graph.ingest_text(text, title=f"note {i}", source=f"note-{i}")
        before = await _snapshot(graph)
        made = await graph.corrections.merge("Bob Jones", "Robert Jones", by="ann")
        assert made.rule == "manual" and made.entity == "Bob Jones"
        names = {e.name for e in await graph.explore.entities(limit=None)}
        assert "Robert Jones" not in names
        bob = await graph.explore.find_entity("Bob Jones")
        assert bob is not None and "Robert Jones" in bob.aliases
        listed = [m for m in await graph.corrections.merges() if m.rule == "manual"]
        assert [m.id for m in listed] == [made.id]
        undone = await graph.corrections.unmerge(made.id, by="bob")
        assert undone.id == made.id
        assert await _snapshot(graph) == before
        with pytest.raises(NotFoundError, match="already undone"):
            await graph.corrections.unmerge(made.id)
        with pytest.raises(NotFoundError, match="no merge"):
            await graph.corrections.unmerge("mrg_unknown")
        actions = [(e.action, e.principal) for e in await graph.access.audit()]
        assert actions == [("unmerge", "bob"), ("merge", "ann")]

    async def test_undoing_every_merge_equals_an_ingest_without_those_rules(
        self, store: Store, store_factory: StoreFactory
    ) -> None:
        texts = [
            "Arthur Holmwood came to lunch with Lucy Westenra in Whitby. Arthur was quiet. "
            "Arthur left early for London.",
            "Arthur Holmwood wrote a letter to Quincey Morris in Texas.",
        ]
        graph = await _ingest(store, texts)
        rules = set()
        for merge in [m for m in await graph.corrections.merges() if m.rule != "exact"]:
            rules.add(merge.rule)
            await graph.corrections.unmerge(merge.id)
        assert rules == {"alias", "part-of-name"}
        assert {m.rule for m in await graph.corrections.merges()} <= {"exact"}
        names = {e.name for e in await graph.explore.entities(limit=None)}
        assert {"Arthur", "Arthur Holmwood"} <= names
        off = Settings(resolution=ResolutionSettings(merge_rules_off=tuple(sorted(rules))))
        plain = await _ingest(await store_factory(), texts, off)
        assert await _snapshot(graph) == await _snapshot(plain)
        # the split is remembered: the same text again merges nothing back
        await graph.ingest_text(texts[1] + " Arthur Holmwood smiled.", title="note 2")
        holmwood = await graph.explore.find_entity("Arthur Holmwood")
        assert holmwood.name == "Arthur Holmwood"
        assert "Arthur Holmwood" not in (await graph.explore.find_entity("Arthur")).aliases

    async def test_a_merge_of_one_name_is_refused_and_changes_nothing(self, store: Store) -> None:
        text = "Dr. John Seward met Lucy Westenra in London. John Seward smiled at Lucy Westenra."
        graph = await _ingest(store, [text])
        [merge] = [m for m in await graph.corrections.merges() if m.surface == "Dr. John Seward"]
        before = await _snapshot(graph)
        with pytest.raises(InputError, match="one name"):
            await graph.corrections.unmerge(merge.id)
        assert await _snapshot(graph) == before
        assert merge.id in {m.id for m in await graph.corrections.merges()}
        assert await graph.store.list_decisions("default") == []
        assert await graph.access.audit() == []


async def _ingest(store: Store, texts: list[str], settings: Settings | None = None) -> AsyncGraph:
    graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64), settings=settings or Settings())
    for i, text in enumerate(texts):
        await graph.ingest_text(text, title=f"note {i}", source=f"note-{i}")
    return graph


async def _snapshot(graph: AsyncGraph) -> tuple[object, ...]:
    """Entities (name, type, aliases, mentions) and relations (ends, type, weight)."""
    entities = await graph.explore.entities(limit=None)
    by_id = {e.id: e.name for e in entities}
    relations = []
    for entity in entities:
        for rel in await graph.store.entity_relations(entity.id, direction="out"):
            relations.append((by_id[rel.source_id], rel.type, by_id[rel.target_id], rel.weight))
    return (
        sorted((e.name, e.type, tuple(e.aliases), e.mention_count) for e in entities),
        sorted(relations),
    )
