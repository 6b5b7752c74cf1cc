"""The backend-neutral write planning (no database): which entity each bundle entity becomes
and what the document contributes to it."""

from __future__ import annotations

import numpy as np
import pytest

from loregraph.models import Entity, EntityWrite
from loregraph.store.planning import StoredEntity, alias_list, best_description, plan_bundle

from .builders import Book, unit


def stored(*names: str, scope: str = "default") -> dict[str, StoredEntity]:
    return {
        Entity.make_id(scope, name): StoredEntity(Entity.make_id(scope, name), scope, name.lower())
        for name in names
    }


def test_new_id_with_a_stored_name_key_is_written_onto_the_stored_entity() -> None:
    book = Book("doc")
    chunk = book.chunk("The Alice met Bob.")
    stray = book.entity("Alice", entity_id="ent_stray", mentions=[(chunk, 2)], surface="Ali")
    bob = book.entity("Bob", mentions=[(chunk, 1)])
    book.relate(stray, "MET", bob, chunk=chunk)
    alice_id = Entity.make_id("default", "Alice")
    plan = plan_bundle(book.bundle(), {}, {"alice": alice_id})
    assert plan.final == {"ent_stray": alice_id, bob.id: bob.id}
    assert (plan.updated, plan.new) == ([alice_id], [bob.id])
    assert plan.aliases == {alice_id: {"ali": "Ali"}}
    assert list(plan.relations) == [(alice_id, "MET", bob.id, "")]


def test_stored_keys_are_known_without_a_key_lookup() -> None:
    book = Book("doc")
    book.entity("Alice")
    book.entity("ALICE", entity_id="ent_other")
    plan = plan_bundle(book.bundle(), stored("Alice"), {})
    alice_id = Entity.make_id("default", "Alice")
    assert plan.final == {alice_id: alice_id, "ent_other": alice_id}
    assert list(plan.listed) == [alice_id] and plan.listed[alice_id].stored


def test_writes_of_one_new_entity_are_merged() -> None:
    book = Book("doc")
    first = book.entity("Ann", "", salience=0.5, vector=unit(0), description="")
    book.entities[0].entity.description = "Read back."
    second = EntityWrite(
        Entity("ent_ann2", "ANN", "person", embedding=unit(1), confidence=0.4), "A sailor.", 2.0
    )
    book.entities.append(second)
    plan = plan_bundle(book.bundle(), {}, {})
    [item] = plan.listed.values()
    assert plan.final == {first.id: first.id, "ent_ann2": first.id}
    assert (item.type, item.salience, item.confidence) == ("person", 2.0, 1.0)
    assert np.array_equal(item.embedding, unit(0))  # type: ignore[arg-type]
    assert item.description() == "Read back."  # the longest; Entity.description stands in
    assert item.description(created=False) == "A sailor."
    assert plan.aliases == {}  # "ANN" has the canonical key


def test_a_stored_entity_takes_the_last_embedding_and_no_fallback_description() -> None:
    book = Book("doc")
    book.entity("Alice", vector=unit(0))
    book.entity("Alice", vector=unit(1))
    book.entities[0].entity.description = "Stored text read back."
    [item] = plan_bundle(book.bundle(), stored("Alice"), {}).listed.values()
    assert np.array_equal(item.embedding, unit(1))  # type: ignore[arg-type]
    assert item.description() == ""


def test_inconsistent_bundles_are_refused() -> None:
    book = Book("doc")
    book.relate(book.entity("Dora"), "KNOWS", "ent_ghost")
    with pytest.raises(ValueError, match="ent_ghost"):
        plan_bundle(book.bundle(), {}, {})
    with pytest.raises(ValueError, match="scope"):
        plan_bundle(Book("doc").bundle(), stored("Eve", scope="other"), {})
    other = Book("doc")
    other.entities.append(EntityWrite(Entity("ent_x", "X", "person", scope="other")))
    with pytest.raises(ValueError, match="scope"):
        plan_bundle(other.bundle(), {}, {})


def test_derived_value_rules() -> None:
    assert best_description(["", "bb", "ab", "a"]) == "ab"
    assert best_description(["", ""]) == ""
    assert alias_list("ann", {"ann": "Ann", "annie": "Annie", "a": "A", "": "x"}) == (
        ["A", "Annie"],
        ["a", "annie"],
    )
