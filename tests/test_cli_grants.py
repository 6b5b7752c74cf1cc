"""The command line's grants, scope links, --principal, and the visibility and owner of
what ``ingest`` and ``remember`` write."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from loregraph.access import Principal, Role
from loregraph.cli.app import main
from loregraph.errors import NotAllowedError, NotFoundError
from loregraph.graph import AsyncGraph


def run(db: Path | str, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args], input=stdin)


def ok(db: Path | str, *args: str) -> Result:
    result = run(db, *args)
    assert result.exit_code == 0, result.output
    return result


def as_json(db: Path | str, *args: str) -> Any:
    return json.loads(ok(db, *args, "--json").stdout)


def failed(db: Path, *args: str, code: int = 2) -> str:
    result = run(db, *args)
    assert result.exit_code == code, result.output
    return result.output


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "family.db"
    (tmp_path / "orchard.txt").write_text(
        "Grandma Rose planted the apple orchard by the river in 1952.", encoding="utf-8"
    )
    (tmp_path / "letter.txt").write_text(
        "Uncle Tom wrote from Lisbon about the harbour and the fishing boats.", encoding="utf-8"
    )
    ok(path, "ingest", str(tmp_path / "orchard.txt"), "--scope", "family")
    ok(path, "ingest", str(tmp_path / "letter.txt"), "--scope", "friends")
    yield path


def test_grant_list_and_revoke(db: Path) -> None:
    made = as_json(db, "grant", "ann", "admirer", "--scope", "family")
    assert made == {"principal": "ann", "scope": "family", "role": "reader"}
    assert (
        "granted bob  owner  in every scope"
        in ok(db, "grant", "bob", "creator", "--scope", "*").output
    )
    ok(db, "--scope", "friends", "grant", "ann", "editor")  # the current scope
    listed = as_json(db, "grant", "--list")
    assert [(g["principal"], g["scope"], g["role"]) for g in listed] == [
        ("ann", "family", "reader"), ("ann", "friends", "writer"), ("bob", "*", "owner"),
    ]  # fmt: skip
    assert [g["scope"] for g in as_json(db, "grant", "--list", "ann")] == ["family", "friends"]
    assert as_json(db, "grant", "ann", "--revoke", "--scope", "family")["role"] == "reader"
    assert "'ann' has no role in scope 'family'" in failed(
        db, "grant", "ann", "--revoke", "--scope", "family", code=NotFoundError.exit_code
    )
    audit = as_json(db, "--scope", "family", "audit")
    assert [(e["action"], e["subject"]) for e in audit][:2] == [
        ("revoke grant", "ann"), ("grant", "ann"),
    ]  # fmt: skip


def test_grant_errors_say_what_to_do(db: Path) -> None:
    assert "unknown role 'boss'" in failed(db, "grant", "ann", "boss", "--scope", "family")
    typo = ok(db, "grant", "ann", "reader", "--scope", "famly")  # a scope yet to come
    assert "scope 'famly' holds no documents yet" in typo.output
    assert "scopes with documents: 'family', 'friends'" in typo.output
    assert "give the ROLE" in failed(db, "grant", "ann", "--scope", "family")
    assert "--revoke takes no ROLE" in failed(db, "grant", "ann", "reader", "--revoke")
    assert "NAME and a ROLE" in failed(db, "grant")
    assert as_json(db, "grant", "--list") == [
        {"principal": "ann", "scope": "famly", "role": "reader"}
    ]


def test_link_all_selective_list_and_remove(db: Path) -> None:
    [letter] = as_json(db, "--scope", "friends", "documents")
    assert as_json(db, "link", "family", "friends") == {
        "scope": "family", "linked": "friends", "share": "all", "documents": []
    }  # fmt: skip
    made = as_json(
        db, "link", "friends", "family", "--documents", "orchard", str(db.parent / "orchard.txt")
    )
    assert made["share"] == "selective" and len(made["documents"]) == 1  # by title, once
    again = as_json(db, "link", "family", "friends", "--share", "selective", "--documents",
                    letter["id"])  # fmt: skip
    assert again["documents"] == [letter["id"]]
    lines = ok(db, "link", "--list").output.splitlines()
    assert lines == [
        f"family reads friends  (selective: {letter['id']})",
        f"friends reads family  (selective: {made['documents'][0]})",
    ]
    assert [x["scope"] for x in as_json(db, "link", "--list", "friends")] == ["friends"]
    assert "removed the link" in ok(db, "link", "family", "friends", "--remove").output
    assert "not linked" in failed(
        db, "link", "family", "friends", "--remove", code=NotFoundError.exit_code
    )


def test_link_errors_say_what_to_do(db: Path) -> None:
    assert "scope 'work' holds no documents yet" in ok(db, "link", "family", "work").output
    ok(db, "link", "family", "work", "--remove")
    out = failed(db, "link", "family", "friends", "--share", "selective")
    assert "needs the documents it shares" in out and "documents --scope friends" in out
    assert "no document 'orchard' in scope 'friends'" in failed(
        db, "link", "family", "friends", "--documents", "orchard", code=NotFoundError.exit_code
    )
    assert "--share all" in failed(db, "link", "family", "friends", "--share", "all",
                                   "--documents", "x")  # fmt: skip
    assert "SCOPE that reads" in failed(db, "link", "family")
    assert "itself" in failed(db, "link", "family", "family")
    assert as_json(db, "link", "--list") == []


def test_ingest_and_remember_take_a_visibility_and_an_owner(db: Path, tmp_path: Path) -> None:
    diary = tmp_path / "diary.txt"
    diary.write_text("Ann kept a diary of the summer at the lake house.", encoding="utf-8")
    ok(db, "ingest", str(diary), "--scope", "family", "--visibility", "personal",
       "--owner", "ann")  # fmt: skip
    docs = {d["title"]: (d["visibility"], d["owner"]) for d in
            as_json(db, "--scope", "family", "documents")}  # fmt: skip
    assert docs == {"orchard": ("public", None), "diary": ("personal", "ann")}
    listed = ok(db, "--scope", "family", "documents").output
    assert "diary  (" in listed and listed.rstrip().endswith("[personal: ann]")
    memory = as_json(db, "remember", "Ann likes plums.", "--visibility", "private")
    assert (memory["visibility"], memory["owner"]) == ("private", None)
    out = failed(db, "remember", "Ann likes pears.", "--visibility", "personal")
    assert "personal document needs an owner" in out
    refused = failed(
        db, "--principal", "ann", "--scope", "family", "remember", "Ann likes figs.", code=9
    )
    assert "may not remember in scope 'family'" in refused  # no role there yet
    ok(db, "grant", "ann", "editor", "--scope", "family")
    mine = as_json(db, "--principal", "ann", "--scope", "family", "remember", "Ann likes figs.",
                   "--visibility", "personal")  # fmt: skip
    assert (mine["visibility"], mine["owner"]) == ("personal", "ann")
    theirs = failed(db, "--principal", "ann", "--scope", "family", "remember", "Bob likes figs.",
                    "--visibility", "personal", "--owner", "bob", code=9)  # fmt: skip
    assert "may not write documents owned by 'bob'" in theirs
    assert "'secret' is not one of" in failed(db, "ingest", str(diary), "--visibility", "secret")


def test_principal_runs_every_command_as_that_principal(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok(db, "grant", "ann", "viewer", "--scope", "family")
    seen: list[Principal | None] = []
    stats = AsyncGraph.stats

    async def watched(self: AsyncGraph, **kwargs: Any) -> Any:
        seen.append(self.principal)
        return await stats(self, **kwargs)

    monkeypatch.setattr(AsyncGraph, "stats", watched)
    ok(db, "--principal", "ann", "stats", "--scope", "family")
    ok(db, "stats", "--principal", "ann")  # after the command too
    ok(db, "stats")
    result = run(db, "stats", "--principal", "zed")
    assert "principal 'zed' has no role in any scope" in result.output
    assert seen == [
        Principal("ann", {"family": Role.READER}),
        Principal("ann", {"family": Role.READER}),
        None,
        Principal("zed", {}),
    ]
    assert "does not apply to serve" in failed(db, "--principal", "ann", "serve")


@pytest.fixture(params=["sqlite", "json", "postgres"])
def new_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | str]:
    """Where no store is yet: a file path in a folder not made, or an empty PostgreSQL."""
    if request.param != "postgres":
        yield tmp_path / "new" / ("kg.db" if request.param == "sqlite" else "memory.json")
        return
    from store.pg_server import start_server

    server = start_server(tmp_path / "pg")
    try:
        yield f"{server.url}&schema=new_store"
    finally:
        server.stop()


def test_grant_link_and_keys_work_on_a_new_store(new_store: Path, tmp_path: Path) -> None:
    """An administrator sets up access before any data arrives: the store is made."""
    db = new_store
    made = ok(db, "grant", "ann", "reader", "--scope", "family")
    assert "granted ann  reader  in scope 'family'" in made.output
    assert "scope 'family' holds no documents yet (scopes with documents: none yet)" in (
        made.output
    )
    assert as_json(db, "link", "family", "friends") == {
        "scope": "family", "linked": "friends", "share": "all", "documents": []
    }  # fmt: skip
    assert ok(db, "keys", "create", "agent", "--scope", "family").stdout.startswith("lg_")
    assert as_json(db, "grant", "--list") == [
        {"principal": "ann", "scope": "family", "role": "reader"}
    ]
    assert [k["name"] for k in as_json(db, "keys", "list")] == ["agent"]
    # the grant holds once documents arrive
    note = tmp_path / "note.txt"
    note.write_text("Grandma Rose planted the apple orchard in 1952.", encoding="utf-8")
    ok(db, "ingest", str(note), "--scope", "family")
    found = as_json(db, "--principal", "ann", "search", "orchard", "--scope", "family")["hits"]
    assert [hit["title"] for hit in found] == ["note"]


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["--principal", ""], {}),
        (["--principal", "   "], {}),
        ([], {"LOREGRAPH_PRINCIPAL": ""}),
        ([], {"LOREGRAPH_PRINCIPAL": " "}),
    ],
)
def test_an_empty_principal_is_an_error_never_the_operator(
    db: Path, args: list[str], env: dict[str, str]
) -> None:
    result = CliRunner().invoke(
        main, ["--db", str(db), *args, "stats", "--scope", "family"], env=env
    )
    assert result.exit_code == 2, result.output
    assert "is empty: name the principal to act for" in result.output
    assert "documents" not in result.stdout
    unset = CliRunner().invoke(
        main, ["--db", str(db), "stats", "--scope", "family"], env={"LOREGRAPH_PRINCIPAL": None}
    )
    assert unset.exit_code == 0 and "documents 1" in unset.stdout  # unset: the operator


@pytest.mark.parametrize("command", ["ask", "search", "context"])
def test_a_principal_without_a_role_is_told_so_not_that_the_scope_is_empty(
    db: Path, command: str
) -> None:
    refused = run(
        db, "--principal", "zed", command, "Who planted the orchard?", "--scope", "family"
    )
    assert refused.exit_code == NotAllowedError.exit_code, refused.output
    assert "principal 'zed' has no role in scope 'family'" in refused.output
    assert "loregraph grant zed reader --scope family" in refused.output
    assert "ingest some first" not in refused.output
    # a role in a scope linked to this one reads it: no refusal
    ok(db, "grant", "bob", "reader", "--scope", "friends")
    ok(db, "link", "friends", "family")
    ok(db, "--principal", "bob", command, "Who planted the orchard?", "--scope", "family")
