"""Every face shows a principal the graph built from the documents it may read: the engine's
questions and graph queries, export, ``copy --as`` and the command line's ``--principal``,
on SQLite, PostgreSQL and FalkorDB.

One family scope holds a public, a private and a personal document about Ada Lovelace, and
a second scope shares one document with it through a selective link. Each principal is
checked against what its readable documents say, and nothing else.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import loregraph
from loregraph import Graph
from loregraph.access import Principal, Role
from loregraph.cli.app import main
from loregraph.embed.hashing import HashingEmbedder
from loregraph.errors import NotAllowedError, NotFoundError

PUBLIC = (
    "Ada Lovelace lived in London. Ada Lovelace worked with Charles Babbage on the "
    "Analytical Engine."
)
PRIVATE = "Ada Lovelace married William King in Ockham. William King loved Ada Lovelace."
PERSONAL = "Ada Lovelace wrote to Mary Somerville about the secret notes."
SHARED = "Augustus De Morgan taught Ada Lovelace mathematics in London."
UNSHARED = "Augustus De Morgan met Sophia Frend in Bloomsbury."

SECRETS = {
    "bob": ["William", "Ockham", "Somerville", "Augustus", "Sophia"],
    "cy": ["Somerville", "Sophia", "Bloomsbury"],
    "ann": ["William", "Ockham", "Sophia", "Bloomsbury"],
}
"""Words each principal must never meet: those only its unreadable documents hold."""


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A PostgreSQL and a FalkorDB server for this module: backend name -> store URL."""
    from store.falkor_server import start_server as start_falkor
    from store.pg_server import start_server as start_pg

    # not under pytest's temporary directory: another pytest session may make it unreadable
    # (mode 0700) to the user the server runs as when the tests run as root
    pg = start_pg(Path(tempfile.gettempdir()) / "loregraph-pgtest-faces")
    falkor = start_falkor(tmp_path_factory.mktemp("falkor"))
    try:
        yield {"postgres": f"{pg.url}&schema=access_faces", "falkordb": falkor.url("faces")}
    finally:
        falkor.stop()
        pg.stop()


def _family(path: str) -> str:
    """Write the family store at ``path`` (a file path or a database URL)."""
    with loregraph.open(path, embedder=HashingEmbedder(dim=64)) as g:
        g.ingest_text(PUBLIC, title="London", scope="family", visibility="public")
        g.ingest_text(PRIVATE, title="Marriage", scope="family", visibility="private")
        g.ingest_text(PERSONAL, title="Letters", scope="family", visibility="personal", owner="ann")
        g.ingest_text(SHARED, title="Lessons", scope="friends", visibility="private")
        g.ingest_text(UNSHARED, title="Frend", scope="friends", visibility="private")
        g.access.grant("bob", "viewer", "family")
        g.access.grant("ann", "viewer", "family")
        g.access.grant("cy", "editor", "family")
        g.access.link("family", "friends", "selective", ["Lessons"])
    return path


@pytest.fixture(scope="module", params=["sqlite", "postgres", "falkordb"])
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The family store on each backend."""
    if request.param == "sqlite":
        return _family(str(tmp_path_factory.mktemp("access") / "family.db"))
    return _family(request.getfixturevalue("servers")[request.param])


def _as(path: str, name: str) -> Iterator[Graph]:
    with loregraph.open(path, embedder=HashingEmbedder(dim=64)) as g:
        yield g.acting_as(g.access.principal_named(name))


def _never(text: str, name: str) -> None:
    for word in SECRETS[name]:
        assert word not in text, f"{name} met {word!r}"


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_questions_see_only_readable_passages(store: str, name: str) -> None:
    for g in _as(store, name):
        for question in ("Who did Ada Lovelace marry?", "Who wrote to Mary Somerville?"):
            _never(g.context(question, scope="family"), name)
            answer = g.ask(question, scope="family").to_dict()
            answer.pop("question")
            _never(json.dumps(answer), name)
        _never(
            json.dumps(
                [hit.to_dict() for hit in g.search("William King Ockham notes", scope="family")]
            ),
            name,
        )
        _never(
            json.dumps([hit.to_dict() for hit in g.search("Sophia Frend", scope="friends")]), name
        )


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_graph_queries_see_only_readable_entities(store: str, name: str) -> None:
    for g in _as(store, name):
        ada = g.explore.entity("Ada Lovelace", scope="family")
        _never(json.dumps(ada.to_dict()), name)
        _never(json.dumps(g.explore.relations("Ada Lovelace", scope="family").to_dict()), name)
        _never(json.dumps(g.explore.neighbors("Ada Lovelace", scope="family").to_dict()), name)
        _never(json.dumps(g.explore.history("Ada Lovelace", scope="family").to_dict()), name)
        for entity in g.explore.entities(scope="family", limit=None):
            _never(entity.name + " " + " ".join(entity.aliases) + entity.description, name)
        if "William" in SECRETS[name]:
            with pytest.raises(NotFoundError):
                g.explore.entity("William King", scope="family")
            with pytest.raises(NotFoundError):
                g.explore.path("Ada Lovelace", "William King", scope="family")
        else:
            assert g.explore.entity("William King", scope="family").entity.name == "William King"


def test_counts_follow_the_readable_documents(store: str) -> None:
    seen = {}
    for name in sorted(SECRETS):
        for g in _as(store, name):
            seen[name] = (
                g.stats(scope="family").documents,
                g.stats(scope="friends").documents,
            )
    assert seen == {"ann": (2, 1), "bob": (1, 1), "cy": (2, 1)}
    with loregraph.open(store, embedder=HashingEmbedder(dim=64)) as g:
        assert g.stats(scope="family").documents == 3
        assert g.stats(scope="friends").documents == 2


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_export_and_the_command_line_see_what_the_principal_reads(
    store: str, tmp_path: Path, name: str
) -> None:
    runner = CliRunner()
    exported = runner.invoke(
        main, ["--db", store, "--principal", name, "--scope", "family", "export", "-"]
    )
    assert exported.exit_code == 0, exported.output
    _never(exported.stdout, name)
    assert "Ada Lovelace" in exported.stdout
    copied = tmp_path / f"{name}.db"
    done = runner.invoke(main, ["copy", store, str(copied), "--as", name, "--json"])
    assert done.exit_code == 0, done.output
    with loregraph.open(copied, embedder=HashingEmbedder(dim=64)) as g:
        text = json.dumps([e.to_dict() for e in g.explore.entities(scope="family", limit=None)])
        _never(text, name)
        assert "Ada Lovelace" in text


def test_writing_needs_a_role_that_allows_it(tmp_path: Path) -> None:
    copied = Path(_family(str(tmp_path / "writes.db")))
    with loregraph.open(copied, embedder=HashingEmbedder(dim=64)) as g:
        for name, allowed in (("bob", False), ("cy", True)):
            who = g.acting_as(g.access.principal_named(name))
            attempts = (
                lambda w=who: w.ingest_text("Ada Lovelace met Faraday.", title="x", scope="family"),
                lambda w=who: w.memories.remember("Ada liked music.", scope="family"),
                lambda w=who: w.delete("London", scope="family"),
            )
            for attempt in attempts:
                if allowed:
                    attempt()
                else:
                    with pytest.raises(NotAllowedError, match="bob"):
                        attempt()
            with pytest.raises(NotAllowedError, match="admin"):
                who.access.grant("eve", "viewer", "family")
            with pytest.raises(NotAllowedError, match="admin"):
                who.access.link("family", "friends", "all")
        ann = g.acting_as(g.access.principal_named("ann"))
        with pytest.raises(NotAllowedError):
            ann.memories.remember(
                "Bob's secret.", scope="family", visibility="personal", owner="bob"
            )
        keeper = g.acting_as(Principal("keeper", {"family": Role.ADMIN}))
        given = keeper.memories.remember(
            "Bob hides keys.", scope="family", visibility="personal", owner="bob"
        )
        assert (given.visibility, given.owner) == ("personal", "bob")  # written, shown back
        assert "Bob hides keys." not in [m.text for m in keeper.memories.all(scope="family")]
