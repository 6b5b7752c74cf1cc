"""Store contract: principals' roles by scope, links between scopes, and each document's
visibility and owner, kept on every backend."""

from __future__ import annotations

from loregraph.access import Grant, Role, ScopeLink
from loregraph.store.base import Store

from .builders import Book
from .scenarios import ContractBase


def _document(doc_id: str) -> Book:
    book = Book(doc_id, scope="family", title=doc_id.title())
    book.chunk(f"{doc_id} tells of the orchard by the river.")
    return book


class GrantContract(ContractBase):
    """Grants and scope links on the backend."""

    async def test_a_grant_replaces_the_role_in_its_scope(self, store: Store) -> None:
        assert await store.list_grants() == []
        await store.add_grant(Grant("ann", "family", Role.READER))
        await store.add_grant(Grant("ann", "*", Role.WRITER))
        await store.add_grant(Grant("bob", "family", Role.OWNER))
        await store.add_grant(Grant("ann", "family", Role.ADMIN))  # replaces her reader role
        assert await store.list_grants() == [
            Grant("ann", "*", Role.WRITER),
            Grant("ann", "family", Role.ADMIN),
            Grant("bob", "family", Role.OWNER),
        ]
        assert await store.list_grants("bob") == [Grant("bob", "family", Role.OWNER)]
        assert await store.list_grants("nobody") == []

    async def test_a_grant_is_removed_once(self, store: Store) -> None:
        await store.add_grant(Grant("ann", "family", Role.READER))
        await store.add_grant(Grant("ann", "work", Role.WRITER))
        assert await store.remove_grant("ann", "family")
        assert not await store.remove_grant("ann", "family")
        assert not await store.remove_grant("bob", "work")
        assert await store.list_grants() == [Grant("ann", "work", Role.WRITER)]

    async def test_a_link_replaces_the_link_of_its_pair(self, store: Store) -> None:
        assert await store.scope_links() == []
        await store.add_scope_link(ScopeLink("family", "friends", "all"))
        await store.add_scope_link(ScopeLink("family", "work", "selective", ("doc-1", "doc-2")))
        await store.add_scope_link(ScopeLink("friends", "family", "selective", ("doc-9",)))
        await store.add_scope_link(ScopeLink("family", "friends", "selective", ("doc-3",)))
        assert await store.scope_links() == [
            ScopeLink("family", "friends", "selective", ("doc-3",)),
            ScopeLink("family", "work", "selective", ("doc-1", "doc-2")),
            ScopeLink("friends", "family", "selective", ("doc-9",)),
        ]
        assert await store.scope_links("friends") == [
            ScopeLink("friends", "family", "selective", ("doc-9",))
        ]
        await store.add_scope_link(ScopeLink("family", "friends", "all"))
        [link] = [link for link in await store.scope_links("family") if link.linked == "friends"]
        assert link == ScopeLink("family", "friends", "all") and link.documents == ()

    async def test_a_link_is_removed_once(self, store: Store) -> None:
        await store.add_scope_link(ScopeLink("family", "friends", "all"))
        await store.add_scope_link(ScopeLink("friends", "family", "all"))
        assert await store.remove_scope_link("family", "friends")
        assert not await store.remove_scope_link("family", "friends")
        assert await store.scope_links() == [ScopeLink("friends", "family", "all")]

    async def test_documents_keep_their_visibility_and_owner(self, store: Store) -> None:
        shown = {"doc-pub": ("public", None), "doc-priv": ("private", "ann"),
                 "doc-mine": ("personal", "bob")}  # fmt: skip
        for doc_id, (visibility, owner) in shown.items():
            bundle = _document(doc_id).bundle()
            bundle.document.visibility, bundle.document.owner = visibility, owner
            await store.write_document(bundle)
        for doc_id, expected in shown.items():
            doc = await store.get_document(doc_id)
            assert doc is not None and (doc.visibility, doc.owner) == expected
            bundle = await store.read_bundle(doc_id)
            assert bundle is not None
            assert (bundle.document.visibility, bundle.document.owner) == expected
        listed = {d.id: (d.visibility, d.owner) for d in await store.list_documents("family")}
        assert listed == shown
        found = await store.find_document("family", source="doc-mine.txt")
        assert found is not None and (found.visibility, found.owner) == ("personal", "bob")
