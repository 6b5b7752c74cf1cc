"""Neo4j without a server (none can be installed here): URLs, driver construction, the
statements it would run (the same text as FalkorDB's except where the dialects differ) and a
clear error when the server is unreachable."""

from __future__ import annotations

import socket

import pytest

pytest.importorskip("neo4j")

import neo4j

from loregraph.errors import ConfigError, StoreError
from loregraph.models import DocumentBundle
from loregraph.store.cypher import CypherStore, parse_cypher_url
from loregraph.store.cypher.apply import write_statement
from loregraph.store.cypher.bolt import Neo4jConnection, driver_arguments, make_driver
from loregraph.store.cypher.dialect import CHUNK, ENTITY, FALKORDB, NEO4J
from loregraph.store.cypher.falkor import FalkorConnection
from loregraph.store.cypher.schema import index_statements
from loregraph.store.plan import WritePlan
from loregraph.store.urls import store_for_url

from .builders import Book


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_urls_choose_the_database_and_keep_credentials() -> None:
    target = parse_cypher_url("neo4j+s://kg:p%40ss@db.example:7688/people")
    assert (target.kind, target.scheme, target.host, target.port) == (
        "neo4j",
        "neo4j+s",
        "db.example",
        7688,
    )
    assert (target.name, target.user, target.password) == ("people", "kg", "p@ss")
    assert target.driver_uri == "neo4j+s://db.example:7688"
    assert "p@ss" not in target.redacted() and "p@ss" not in repr(target)
    bolt = parse_cypher_url("bolt://localhost")
    assert (bolt.port, bolt.name, bolt.user) == (7687, None, None)
    falkor = parse_cypher_url("falkordb://localhost")
    assert (falkor.kind, falkor.port, falkor.name) == ("falkordb", 6379, "loregraph")
    for scheme in ("neo4j", "neo4j+s", "bolt", "bolt+s"):
        store = store_for_url(f"{scheme}://u:pw@host:7687/db")
        assert isinstance(store, CypherStore)
        assert isinstance(store.connection, Neo4jConnection)
        assert "pw" not in repr(store)
    assert isinstance(store_for_url("falkordb://h:1/g").connection, FalkorConnection)  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="graph name"):
        parse_cypher_url("falkordb://localhost/bad name`")
    with pytest.raises(ConfigError, match="query string"):
        parse_cypher_url("neo4j://localhost/db?x=1")


async def test_driver_is_built_with_basic_auth() -> None:
    target = parse_cypher_url("neo4j://kg:secret@db.example:7690/people")
    uri, auth = driver_arguments(target)
    assert uri == "neo4j://db.example:7690"
    assert (auth.scheme, auth.principal, auth.credentials) == ("basic", "kg", "secret")
    assert driver_arguments(parse_cypher_url("bolt://localhost")) == (
        "bolt://localhost:7687",
        None,
    )
    driver = make_driver(target)
    try:
        assert isinstance(driver, neo4j.AsyncDriver)
        assert driver.encrypted is False
    finally:
        await driver.close()


async def test_unreachable_server_is_a_clear_store_error() -> None:
    store = CypherStore(f"neo4j://kg:secret@127.0.0.1:{_free_port()}/people")
    with pytest.raises(StoreError, match="cannot connect to Neo4j") as info:
        await store.open()
    assert "secret" not in str(info.value)
    with pytest.raises(StoreError, match="not open"):
        await store.get_document("x")


def _plan() -> WritePlan:
    book = Book("doc")
    chunk = book.chunk("Ann met Bob.")
    plan = WritePlan("default", "doc", seq=3, replace=True)
    bundle: DocumentBundle = book.bundle()
    plan.document = {"id": "doc", "title": bundle.document.title}
    plan.chunks = [{"id": chunk.id, "embedding": [1.0, 0.0]}]
    plan.new_entities = [{"id": "e1", "embedding": [0.0, 1.0]}]
    plan.dead_relations = ["r0"]
    plan.relation_weights = [{"id": "r1", "weight": 1.0, "confidence": 1.0}]
    return plan


def test_write_statements_are_the_same_text_but_for_vectors() -> None:
    falkor, params = write_statement(_plan(), FALKORDB)
    bolt, bolt_params = write_statement(_plan(), NEO4J)
    assert falkor.replace("vecf32(x.embedding)", "x.embedding") == bolt
    assert "vecf32" not in bolt
    params.pop("token")
    bolt_params.pop("token")
    assert params == bolt_params
    # only fixed text: no id, title or type from the data is in the statement
    for value in ("doc#c0", "e1", "r0", "r1"):
        assert value not in falkor


def test_index_statements_differ_only_in_spelling() -> None:
    class Fake:
        def __init__(self, dialect: object) -> None:
            self.dialect = dialect

    falkor = index_statements(Fake(FALKORDB))  # type: ignore[arg-type]
    bolt = index_statements(Fake(NEO4J))  # type: ignore[arg-type]
    assert len(falkor) == len(bolt)
    assert all("IF NOT EXISTS" in statement for statement in bolt)
    assert "db.index.fulltext.queryNodes('lg_chunk_text', $query)" in NEO4J.fulltext_nodes(CHUNK)
    assert "db.idx.fulltext.queryNodes('LgChunk', $query)" in FALKORDB.fulltext_nodes(CHUNK)
    assert "`vector.dimensions`: 384" in NEO4J.vector_index(ENTITY, 384)
    assert "dimension: 384" in FALKORDB.vector_index(ENTITY, 384)
    assert NEO4J.fulltext_query(["ann", "bob"]) == "ann OR bob"
    assert FALKORDB.fulltext_query(["ann", "bob"]) == "ann|bob"
    assert NEO4J.similarity("score") == "2.0 * score - 1.0"
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError):
            NEO4J.vector_index(ENTITY, bad)  # type: ignore[arg-type]
