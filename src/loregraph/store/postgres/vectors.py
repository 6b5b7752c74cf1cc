"""Sending embeddings to pgvector in its binary form.

Formatting a 384-d vector as text costs hundreds of Python float reprs; a bundle of thousands
of chunks and entities spent most of its client time there. A :class:`PgVector` parameter is
sent in pgvector's binary wire format instead (``uint16 dim, uint16 unused, float32[dim]``,
big-endian): one NumPy byte-swap per vector. Lists of them are sent as ``vector[]``
(``unnest`` them in SQL). :func:`register_vectors` teaches a connection the type.
"""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt
from psycopg import AsyncConnection
from psycopg.adapt import Dumper
from psycopg.pq import Format
from psycopg.rows import TupleRow
from psycopg.types import TypeInfo

from loregraph.models import Vector

_HEADER = struct.Struct(">HH")
MAX_DIM = 16000
"""pgvector's largest ``vector`` dimension."""


class PgVector:
    """An embedding as a query parameter (float32, one dimension)."""

    __slots__ = ("values",)

    def __init__(self, vector: npt.ArrayLike) -> None:
        self.values: npt.NDArray[np.float32] = np.asarray(vector, dtype=np.float32).reshape(-1)

    @property
    def dim(self) -> int:
        """The number of components."""
        return int(self.values.size)


def vector_param(vector: Vector | None) -> tuple[int | None, PgVector | None]:
    """``(dim, parameter)`` of an optional embedding."""
    if vector is None:
        return None, None
    param = PgVector(vector)
    return param.dim, param


def vector_dim(vector: Vector | None) -> int | None:
    """An optional embedding's dimension."""
    return None if vector is None else int(np.asarray(vector).size)


class _VectorBinaryDumper(Dumper):
    """Dumps :class:`PgVector` in pgvector's binary input format."""

    format = Format.BINARY

    def dump(self, obj: object) -> bytes:
        assert isinstance(obj, PgVector)
        dim = obj.dim
        if not 0 < dim <= MAX_DIM:
            raise ValueError(f"a vector must have 1 to {MAX_DIM} dimensions, not {dim}")
        return _HEADER.pack(dim, 0) + obj.values.astype(">f4").tobytes()


async def register_vectors(conn: AsyncConnection[TupleRow]) -> None:
    """Let ``conn`` send :class:`PgVector` parameters (pgvector must be on its search path)."""
    info = await TypeInfo.fetch(conn, "vector")
    if info is None:
        raise LookupError("the pgvector type 'vector' is not on the search path")
    info.register(conn)
    dumper = type("VectorDumper", (_VectorBinaryDumper,), {"oid": info.oid})
    conn.adapters.register_dumper(PgVector, dumper)
