"""The JSON memory file keeps what belongs to no document (merge decisions, the audit log,
API keys) and how each relation ended, and still reads files of the first layout."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from loregraph.access import ApiKey, Grant, Role, ScopeLink
from loregraph.errors import StoreError
from loregraph.models import Relation
from loregraph.store.changes import JOIN, SPLIT, AuditEntry, Decision
from loregraph.store.jsonfile import JsonFileStore
from loregraph.store.jsonfile.layout import VERSION

from .contract import shared_pair

WHEN = datetime(2026, 3, 1, 12, 30, tzinfo=UTC)


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


async def relations(store: JsonFileStore) -> list[Relation]:
    return [r async for r in store.iter_relations("default")]


async def fill(store: JsonFileStore) -> dict[str, str]:
    """Two documents, an ended relation, decisions in two scopes, audit entries, two keys."""
    ids = await shared_pair(store)
    ended = (await relations(store))[0]
    await store.invalidate_relation(ended.id, WHEN, by="doc-ender")
    await store.add_decision(Decision(JOIN, "mrg_1", "ent_a", "Bobby", principal="ann"))
    await store.add_decision(
        Decision(SPLIT, "mrg_2", "ent_b", "Rob", scope="other", rule="fuzzy", score=0.8,
                 document_id="doc-9", created_at=WHEN)
    )  # fmt: skip
    for action in ("merge", "unmerge", "rename"):
        await store.add_audit(AuditEntry(action, "Bob", detail=action, principal="ann"))
    await store.add_audit(AuditEntry("forget", "doc-9", scope="other", at=WHEN))
    await store.add_api_key(ApiKey("ci", "hash-ci", {"default": Role.READER}, created_at=WHEN))
    await store.add_api_key(
        ApiKey("ops", "hash-ops", {"default": Role.ADMIN, "other": Role.WRITER})
    )
    await store.revoke_api_key("ci", WHEN)
    await store.add_grant(Grant("ann", "default", Role.OWNER))
    await store.add_grant(Grant("bob", "*", Role.READER))
    await store.add_scope_link(ScopeLink("default", "other", "selective", ("doc-9",)))
    ids["ended"] = ended.id
    return ids


async def records(store: JsonFileStore) -> tuple[object, ...]:
    return (
        [(r.id, r.invalid_at, r.expired_at, r.invalidated_by) for r in await relations(store)],
        await store.list_decisions("default"),
        await store.list_decisions("other"),
        await store.list_audit("default"),
        await store.list_audit("other"),
        await store.list_api_keys(),
        await store.list_grants(),
        await store.scope_links(),
    )


async def test_decisions_audit_keys_and_endings_survive_the_file(tmp_path: Path) -> None:
    path = tmp_path / "context.json"
    async with JsonFileStore(path) as store:
        ids = await fill(store)
        before = await records(store)
    data = load(path)
    assert data["version"] == VERSION
    assert [d["surface"] for d in data["merge_decisions"]] == ["Bobby", "Rob"]
    assert data["merge_decisions"][1]["scope"] == "other"
    assert "scope" not in data["merge_decisions"][0]
    assert [e["action"] for e in data["audit_log"]] == ["merge", "unmerge", "rename", "forget"]
    assert [(k["name"], k["roles"]) for k in data["api_keys"]] == [
        ("ci", {"default": "reader"}), ("ops", {"default": "admin", "other": "writer"}),
    ]  # fmt: skip
    assert data["grants"] == [
        {"principal": "ann", "scope": "default", "role": "owner"},
        {"principal": "bob", "scope": "*", "role": "reader"},
    ]
    assert data["scope_links"] == [
        {"scope": "default", "linked": "other", "share": "selective", "documents": ["doc-9"]}
    ]
    ended = next(r for r in data["relationships"] if r["id"] == ids["ended"])
    assert (ended["invalid_at"], ended["invalidated_by"]) == (WHEN.isoformat(), "doc-ender")
    written = path.read_bytes()
    async with JsonFileStore(path) as store:
        after = await records(store)
        (ci, ops) = await store.list_api_keys()
        assert (ci.revoked_at, ops.revoked_at) == (WHEN, None)
        assert await store.api_key_by_hash("hash-ops") == ops
        relation = next(r for r in await relations(store) if r.id == ids["ended"])
        assert (relation.invalid_at, relation.invalidated_by) == (WHEN, "doc-ender")
    assert after == before
    assert path.read_bytes() == written  # read and written back unchanged: not rewritten
    async with JsonFileStore(path) as store:
        await store.add_audit(AuditEntry("retype", "Bob"))
    assert [e["action"] for e in load(path)["audit_log"]][-2:] == ["forget", "retype"]


async def test_a_file_of_the_first_layout_still_opens(tmp_path: Path) -> None:
    path = tmp_path / "context.json"
    async with JsonFileStore(path) as store:
        await shared_pair(store)
        entities = await store.stats("default")
    data = load(path)
    for section in ("merge_decisions", "audit_log", "api_keys", "grants", "scope_links"):
        del data[section]
    for relationship in data["relationships"]:
        del relationship["invalidated_by"]
    data["version"] = 1
    path.write_text(json.dumps(data), encoding="utf-8")
    async with JsonFileStore(path) as store:
        assert (await store.stats("default")).entities == entities.entities
        assert await store.list_api_keys() == []
        assert await store.list_grants() == [] and await store.scope_links() == []
        await store.add_audit(AuditEntry("rename", "Bob"))
    rewritten = load(path)
    assert rewritten["version"] == VERSION
    assert [e["subject"] for e in rewritten["audit_log"]] == ["Bob"]


async def test_grants_and_links_of_a_file_edited_by_hand_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "context.json"
    async with JsonFileStore(path) as store:
        await shared_pair(store)
    data = load(path)
    bad = {
        "grants": [{"principal": "ann", "scope": "default", "role": "boss"}],
        "scope_links": [{"scope": "default", "linked": "other", "share": "selective"}],
    }
    for section, records_given in bad.items():
        edited = {**data, section: records_given}
        path.write_text(json.dumps(edited), encoding="utf-8")
        with pytest.raises(StoreError, match=f"{section}\\[0\\]"):
            async with JsonFileStore(path):
                pass
    twice = [{"principal": "ann", "scope": "default", "role": "viewer"}] * 2
    path.write_text(json.dumps({**data, "grants": twice}), encoding="utf-8")
    with pytest.raises(StoreError, match="two roles"):
        async with JsonFileStore(path):
            pass
