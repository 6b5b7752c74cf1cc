"""Roles (with the persona design's names), visibilities, grants and scope links."""

from __future__ import annotations

import pytest

from loregraph.access import Grant, Role, ScopeLink, Visibility, merged_roles
from loregraph.errors import InputError


@pytest.mark.parametrize(
    ("name", "role"),
    [
        ("reader", Role.READER), ("viewer", Role.READER), ("Admirer", Role.READER),
        ("writer", Role.WRITER), ("editor", Role.WRITER), (" advocate ", Role.WRITER),
        ("admin", Role.ADMIN), ("owner", Role.OWNER), ("CREATOR", Role.OWNER),
    ],
)  # fmt: skip
def test_roles_are_parsed_by_their_names_and_aliases(name: str, role: Role) -> None:
    assert Role.parse(name) is role


def test_a_role_keeps_its_canonical_name_and_order() -> None:
    assert [str(r) for r in Role] == ["reader", "writer", "admin", "owner"]
    assert Role.READER < Role.WRITER < Role.ADMIN < Role.OWNER
    with pytest.raises(InputError, match=r"unknown role .boss.*owner.*creator"):
        Role.parse("boss")


def test_visibility_names_the_allowed_values() -> None:
    assert Visibility.parse(" Personal ") is Visibility.PERSONAL
    assert str(Visibility.PUBLIC) == "public"
    with pytest.raises(InputError, match="'secret'; allowed: public, private, personal"):
        Visibility.parse("secret")


def test_links_check_what_they_hold() -> None:
    with pytest.raises(InputError, match="selective link needs"):
        ScopeLink("family", "friends", "selective")
    with pytest.raises(InputError, match="itself"):
        ScopeLink("family", "family")
    with pytest.raises(InputError, match="allowed: all, selective"):
        ScopeLink("family", "friends", "some")
    with pytest.raises(InputError, match="use share selective"):
        ScopeLink("family", "friends", "all", ("doc-1",))
    assert ScopeLink("a", "b", "selective", ("d", "d", "e")).documents == ("d", "e")
    assert ScopeLink("a", "b").to_dict() == {
        "scope": "a", "linked": "b", "share": "all", "documents": []
    }  # fmt: skip


def test_roles_from_keys_and_grants_take_the_highest() -> None:
    key = {"family": Role.READER, "work": Role.ADMIN}
    granted = {"family": Role.WRITER, "*": Role.READER}
    assert merged_roles(key, granted) == {
        "family": Role.WRITER, "work": Role.ADMIN, "*": Role.READER
    }  # fmt: skip
    assert Grant("ann", "family", Role.OWNER).to_dict() == {
        "principal": "ann", "scope": "family", "role": "owner"
    }  # fmt: skip
