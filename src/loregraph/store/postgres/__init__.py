"""The PostgreSQL backend: pgvector, pg_trgm, full-text search and recursive CTEs.

Needs ``psycopg`` and ``psycopg-pool`` (``pip install 'loregraph[postgres]'``).
"""

from loregraph.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
