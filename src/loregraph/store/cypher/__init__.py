"""The Cypher backends: FalkorDB and Neo4j behind one query layer.

Needs the ``falkordb`` client (``pip install 'loregraph[falkordb]'``) or the ``neo4j``
driver (``pip install 'loregraph[neo4j]'``); each is imported only when a store of that
kind is opened.
"""

from loregraph.store.cypher.store import CypherStore
from loregraph.store.cypher.url import CypherTarget, parse_cypher_url

__all__ = ["CypherStore", "CypherTarget", "parse_cypher_url"]
