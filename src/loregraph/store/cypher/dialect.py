"""What differs between FalkorDB's and Neo4j's Cypher: index DDL and index procedures.

Everything else (every MATCH, UNWIND, SET and DELETE) is the same text on both databases and
lives in the query modules. Labels, relationship types, index names and property names are
fixed by this code; the only value ever formatted into a statement is a vector dimension,
which must be a positive ``int``. Data always travels as query parameters.

The graph model (labels and relationship types are constants, never taken from data):

* ``(:LgDocument)``, ``(:LgChunk)``, ``(:LgEntity)``, ``(:LgKey)`` (an entity's name and
  alias keys, for exact lookup), ``(:LgContribution)`` (what one document said about one
  entity: description, aliases, salience, confidence), ``(:LgEvidence)``, ``(:LgMerge)``,
  ``(:LgCache)`` (no longer written; its index and the relations' full-text index stay, so
  that the graph schema is unchanged), ``(:LgScope)`` (graph version per scope),
  ``(:LgLedger)`` (API keys, grants, scope links, merge decisions and the audit log, one
  node per ledger row: :mod:`.ledger`) and one ``(:LgMeta)`` (schema version, write
  sequence, ledger counter);
* ``(:LgChunk)-[:LG_MENTIONS {surface, count}]->(:LgEntity)``;
* ``(:LgEntity)-[:LG_REL {id, type, ...}]->(:LgEntity)``: the relation *type* is a property
  of one generic relationship type, so no relation type from data ever reaches the query
  text (Cypher injection through a type such as ``KNOWS]->() DETACH DELETE (n`` is
  impossible by construction).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DOCUMENT, CHUNK, ENTITY, KEY = "LgDocument", "LgChunk", "LgEntity", "LgKey"
CONTRIBUTION, EVIDENCE, MERGE, CACHE = "LgContribution", "LgEvidence", "LgMerge", "LgCache"
SCOPE, LEDGER = "LgScope", "LgLedger"
REL = "LG_REL"

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 64

RANGE_INDEXES: tuple[tuple[str, str], ...] = (
    (DOCUMENT, "id"),
    (DOCUMENT, "scope"),
    (CHUNK, "id"),
    (CHUNK, "document_id"),
    (CHUNK, "scope"),
    (ENTITY, "id"),
    (ENTITY, "scope"),
    (KEY, "key"),
    (KEY, "entity_id"),
    (CONTRIBUTION, "entity_id"),
    (CONTRIBUTION, "document_id"),
    (EVIDENCE, "relation_id"),
    (EVIDENCE, "document_id"),
    (MERGE, "scope"),
    (MERGE, "entity_id"),
    (MERGE, "document_id"),
    (CACHE, "key"),
    (SCOPE, "scope"),
    (LEDGER, "kind"),  # not "part": FalkorDB's index finds no node by an empty string
)
REL_INDEXES = ("id", "scope")


def identifier(name: str) -> str:
    """``name`` if it is a plain identifier (letters, digits, ``_``); else ``ValueError``.

    Every label, relationship type and property name placed in a statement goes through
    this check (they are all constants of this package).
    """
    if not _IDENTIFIER.fullmatch(name):
        raise ValueError(f"not a safe Cypher identifier: {name!r}")
    return name


def search_words(text: str) -> list[str]:
    """The distinct lower-case words of a full-text query (punctuation dropped)."""
    return list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))[:MAX_TERMS]


def _dimension(dim: int) -> int:
    if not isinstance(dim, int) or isinstance(dim, bool) or dim <= 0:
        raise ValueError(f"a vector dimension must be a positive int, not {dim!r}")
    return dim


@dataclass(frozen=True)
class Dialect:
    """The statements one database spells its own way (FalkorDB's spelling here)."""

    name: str = "falkordb"

    def vector(self, expr: str) -> str:
        """A vector value for storing/querying from a parameter expression."""
        return f"vecf32({expr})"

    def range_index(self, label: str, prop: str) -> str:
        """Create a range index on a node property."""
        return f"CREATE INDEX FOR (n:{identifier(label)}) ON (n.{identifier(prop)})"

    def rel_index(self, prop: str) -> str:
        """Create a range index on a property of the relation relationship type."""
        return f"CREATE INDEX FOR ()-[r:{REL}]-() ON (r.{identifier(prop)})"

    def fulltext_indexes(self) -> list[str]:
        """Create the full-text indexes (chunks, entities, relations)."""
        return [
            f"CALL db.idx.fulltext.createNodeIndex({{label: '{CHUNK}', language: 'English'}}, "
            "'text', {field: 'title', weight: 0.5})",
            f"CALL db.idx.fulltext.createNodeIndex({{label: '{ENTITY}', language: 'English'}}, "
            "{field: 'name', weight: 2.0}, {field: 'alias_text', weight: 1.5}, 'description')",
            f"CREATE FULLTEXT INDEX FOR ()-[r:{REL}]-() ON (r.fact, r.type_text)",
        ]

    def vector_index(self, label: str, dim: int) -> str:
        """Create a cosine vector index on ``label.embedding`` of dimension ``dim``."""
        return (
            f"CREATE VECTOR INDEX FOR (n:{identifier(label)}) ON (n.embedding) "
            f"OPTIONS {{dimension: {_dimension(dim)}, similarityFunction: 'cosine'}}"
        )

    def fulltext_query(self, words: list[str]) -> str:
        """A full-text query string matching any of ``words`` (already plain words)."""
        return "|".join(words)

    def fulltext_nodes(self, label: str) -> str:
        """A CALL yielding ``node, score`` for the full-text query in ``$query``."""
        return f"CALL db.idx.fulltext.queryNodes('{identifier(label)}', $query) YIELD node, score"

    def vector_nodes(self, label: str) -> str:
        """A CALL yielding ``node, score`` for the ``$k`` nearest to ``$vector``."""
        return (
            f"CALL db.idx.vector.queryNodes('{identifier(label)}', 'embedding', $k, "
            f"{self.vector('$vector')}) YIELD node, score"
        )

    def similarity(self, score: str) -> str:
        """The cosine similarity from a vector procedure's ``score`` (a distance here)."""
        return f"1.0 - {score}"


@dataclass(frozen=True)
class Neo4jDialect(Dialect):
    """Neo4j 5 spellings: named indexes, ``IF NOT EXISTS``, ``db.index.*`` procedures."""

    name: str = "neo4j"

    def vector(self, expr: str) -> str:
        return expr

    def range_index(self, label: str, prop: str) -> str:
        name = f"lg_{identifier(label).lower()}_{identifier(prop)}"
        return f"CREATE INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.{prop})"

    def rel_index(self, prop: str) -> str:
        return (
            f"CREATE INDEX lg_rel_{identifier(prop)} IF NOT EXISTS "
            f"FOR ()-[r:{REL}]-() ON (r.{prop})"
        )

    def fulltext_indexes(self) -> list[str]:
        return [
            f"CREATE FULLTEXT INDEX lg_chunk_text IF NOT EXISTS FOR (n:{CHUNK}) "
            "ON EACH [n.text, n.title]",
            f"CREATE FULLTEXT INDEX lg_entity_text IF NOT EXISTS FOR (n:{ENTITY}) "
            "ON EACH [n.name, n.alias_text, n.description]",
            f"CREATE FULLTEXT INDEX lg_rel_text IF NOT EXISTS FOR ()-[r:{REL}]-() "
            "ON EACH [r.fact, r.type_text]",
        ]

    def vector_index(self, label: str, dim: int) -> str:
        return (
            f"CREATE VECTOR INDEX lg_{identifier(label).lower()}_embedding IF NOT EXISTS "
            f"FOR (n:{label}) ON n.embedding OPTIONS {{indexConfig: "
            f"{{`vector.dimensions`: {_dimension(dim)}, "
            "`vector.similarity_function`: 'cosine'}}"
        )

    def fulltext_query(self, words: list[str]) -> str:
        return " OR ".join(words)

    def fulltext_nodes(self, label: str) -> str:
        index = {CHUNK: "lg_chunk_text", ENTITY: "lg_entity_text"}[label]
        return f"CALL db.index.fulltext.queryNodes('{index}', $query) YIELD node, score"

    def vector_nodes(self, label: str) -> str:
        return (
            f"CALL db.index.vector.queryNodes('lg_{identifier(label).lower()}_embedding', $k, "
            "$vector) YIELD node, score"
        )

    def similarity(self, score: str) -> str:
        # Neo4j reports cosine as (1 + cos) / 2
        return f"2.0 * {score} - 1.0"


FALKORDB = Dialect()
NEO4J = Neo4jDialect()
