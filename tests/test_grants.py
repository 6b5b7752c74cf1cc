"""Grants, scope links and the visibility and owner of what is ingested or remembered,
through the engine (the blocking facade)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import loregraph
from loregraph.access import LOCAL, Grant, Principal, Role, ScopeLink
from loregraph.errors import InputError, NotFoundError

STORY = "Grandma Rose planted the apple orchard by the river in 1952."
LETTER = "Uncle Tom wrote from Lisbon about the harbour and the fishing boats."


@pytest.fixture()
def graph(tmp_path: Path) -> Iterator[loregraph.Graph]:
    with loregraph.open(tmp_path / "family.db") as g:
        g.ingest_text(STORY, title="Orchard", source="orchard", scope="family")
        g.ingest_text(LETTER, title="Letter", source="letter", scope="friends")
        yield g


def test_grants_are_kept_replaced_revoked_and_audited(graph: loregraph.Graph) -> None:
    assert graph.access.grant("ann", "admirer", "family", by="op") == Grant(
        "ann", "family", Role.READER
    )
    graph.access.grant("ann", Role.WRITER, "*")
    graph.access.grant("ann", "creator", "family")
    graph.access.grant(" bob ", "viewer", "friends")
    assert graph.access.grants() == [
        Grant("ann", "*", Role.WRITER),
        Grant("ann", "family", Role.OWNER),
        Grant("bob", "friends", Role.READER),
    ]
    assert graph.access.principal_named("ann") == Principal(
        "ann", {"*": Role.WRITER, "family": Role.OWNER}
    )
    assert graph.access.principal_named("nobody") == Principal("nobody", {})
    assert graph.access.revoke_grant("ann", "family") == Grant("ann", "family", Role.OWNER)
    with pytest.raises(NotFoundError, match="'ann' has no role in scope 'family'"):
        graph.access.revoke_grant("ann", "family")
    audit = [
        (e.action, e.subject, e.detail, e.principal) for e in graph.access.audit(scope="family")
    ]
    assert audit == [
        ("revoke grant", "ann", "was owner", ""),
        ("grant", "ann", "owner", ""),
        ("grant", "ann", "reader", "op"),
    ]
    graph.acting_as(Principal("root", {"*": Role.OWNER})).access.grant("cat", "editor", "friends")
    assert graph.access.audit(scope="friends")[0].principal == "root"


def test_a_grant_names_a_known_role_and_a_scope(graph: loregraph.Graph) -> None:
    with pytest.raises(InputError, match="unknown role 'boss'"):
        graph.access.grant("ann", "boss", "family")
    with pytest.raises(InputError, match="principal's name"):
        graph.access.grant("  ", "reader", "family")
    with pytest.raises(InputError, match="scope's name"):
        graph.access.grant("ann", "reader", " ")
    assert graph.access.grants() == []
    # a scope that holds no documents yet: access is set up before data arrives
    assert graph.access.grant("ann", "reader", "later") == Grant("ann", "later", Role.READER)
    assert list(graph.scopes()) == ["family", "friends"]


def test_a_blank_principal_name_is_refused(graph: loregraph.Graph) -> None:
    with pytest.raises(InputError, match="principal's name"):
        graph.access.principal_named(" ")


def test_links_share_all_or_the_documents_named(graph: loregraph.Graph) -> None:
    [letter] = graph.documents(scope="friends")
    assert graph.access.link("family", "friends") == ScopeLink("family", "friends", "all")
    shared = graph.access.link("friends", "family", "selective", ["Orchard"])  # by title
    [orchard] = graph.documents(scope="family")
    assert shared == ScopeLink("friends", "family", "selective", (orchard.id,))
    graph.access.link("family", "friends", "selective", [letter.id])  # replaces the full link
    assert graph.access.links() == [
        ScopeLink("family", "friends", "selective", (letter.id,)),
        ScopeLink("friends", "family", "selective", (orchard.id,)),
    ]
    assert graph.access.links("friends") == [shared]
    assert graph.access.unlink("family", "friends").linked == "friends"
    with pytest.raises(NotFoundError, match="not linked"):
        graph.access.unlink("family", "friends")
    actions = [(e.action, e.detail) for e in graph.access.audit(scope="family")]
    assert actions[0] == ("unlink", "friends")
    assert actions[1] == ("link", f"friends (selective: {letter.id})")


def test_a_link_is_checked_before_it_is_kept(graph: loregraph.Graph) -> None:
    with pytest.raises(InputError, match="stands for every scope"):
        graph.access.link("family", "*")
    with pytest.raises(InputError, match="selective link needs"):
        graph.access.link("family", "friends", "selective")
    with pytest.raises(NotFoundError, match="no document 'Orchard' in scope 'friends'"):
        graph.access.link("family", "friends", "selective", ["Orchard"])  # a document of family
    with pytest.raises(InputError, match="allowed: all, selective"):
        graph.access.link("family", "friends", "some")
    assert graph.access.links() == []


def test_documents_keep_the_visibility_and_owner_they_are_ingested_with(
    graph: loregraph.Graph, tmp_path: Path
) -> None:
    note = tmp_path / "diary.txt"
    note.write_text("Ann kept a diary of the summer at the lake house.", encoding="utf-8")
    graph.ingest(note, scope="family", visibility="personal", owner="ann")
    found = {d.title: (d.visibility, d.owner) for d in graph.documents(scope="family")}
    assert found == {"Orchard": ("public", None), "diary": ("personal", "ann")}
    report = graph.ingest(note, scope="family")  # unchanged, no visibility asked: skipped
    assert report.skipped == 1
    report = graph.ingest(note, scope="family", visibility="private")  # a new visibility
    assert report.skipped == 0
    [diary] = [d for d in graph.documents(scope="family") if d.title == "diary"]
    assert (diary.visibility, diary.owner) == ("private", None)
    note.write_text("Ann kept a diary of the winter at the lake house.", encoding="utf-8")
    graph.ingest(note, scope="family")  # changed text: the stored visibility stays
    [diary] = [d for d in graph.documents(scope="family") if d.title == "diary"]
    assert diary.visibility == "private" and diary.to_dict()["visibility"] == "private"
    graph.ingest(note, scope="family", owner="bob")  # a new owner; the visibility stays
    [diary] = [d for d in graph.documents(scope="family") if d.title == "diary"]
    assert (diary.visibility, diary.owner) == ("private", "bob")
    assert graph.ingest(note, scope="family", owner="bob").skipped == 1


def test_a_personal_document_needs_an_owner(graph: loregraph.Graph) -> None:
    with pytest.raises(InputError, match="personal document needs an owner"):
        graph.ingest_text("A secret recipe.", title="Recipe", visibility="personal")
    with pytest.raises(InputError, match="unknown visibility 'secret'; allowed: public"):
        graph.ingest_text("A secret recipe.", title="Recipe", visibility="secret")
    with pytest.raises(InputError, match="personal"):
        graph.memories.remember("Ann likes plums.", visibility="personal")
    ann = graph.acting_as(Principal("ann", {"*": Role.WRITER}))
    memory = ann.memories.remember("Ann likes plums.", visibility="personal")
    assert (memory.visibility, memory.owner) == ("personal", "ann")
    assert graph.memories.all()[0].to_dict()["owner"] == "ann"
    local = graph.acting_as(LOCAL)
    report = local.ingest_text("A shared recipe.", title="Recipe", visibility="private")
    assert len(report.document_ids) == 1
    docs = {d.title: (d.visibility, d.owner) for d in graph.documents()}
    assert docs["Recipe"] == ("private", None)


async def test_a_keys_principal_gets_the_grants_of_its_name(tmp_path: Path) -> None:
    graph = await loregraph.open_async(tmp_path / "keys.db")
    try:
        await graph.ingest_text(STORY, title="Orchard", source="orchard", scope="family")
        made = await graph.access.create_key("ann", {"default": Role.READER, "family": Role.WRITER})
        await graph.access.grant("ann", "reader", "family")
        await graph.access.grant("ann", "admin", "*")
        principal = await graph.access.principal_for_key(made.secret)
        assert principal == Principal(
            "ann", {"default": Role.READER, "family": Role.WRITER, "*": Role.ADMIN}
        )
        await graph.access.revoke_key("ann")
        assert await graph.access.principal_for_key(made.secret) is None
    finally:
        await graph.close()
