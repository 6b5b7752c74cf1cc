"""What the store contract writes once above a backend's primitives: the checks a
backend's query arguments carry, and a store that answers neither hop query."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from loregraph.errors import ConfigError
from loregraph.store.hops import Hop, Hops
from loregraph.store.queries import RelationFilter, RelationQuery, VectorSearch

SPELLING = {"live": "LIVE", "at": "AT", "types": "TYPES", "min_weight": "HEAVY"}


def test_a_filter_is_spelled_in_the_backends_words_with_its_parameters() -> None:
    assert RelationFilter().spelled(SPELLING) == (["LIVE"], {})
    at = datetime(2026, 3, 1, 12, tzinfo=UTC)
    conditions, params = RelationFilter.of(["KNOWS"], at, 0.5).spelled(SPELLING)
    assert conditions == ["AT", "TYPES", "HEAVY"]
    assert params == {"at": "2026-03-01T12:00:00.000000+00:00", "types": ("KNOWS",),
                      "min_weight": 0.5}  # fmt: skip
    naive = RelationFilter.of(None, datetime(2026, 3, 1, 12)).spelled(SPELLING)[1]
    assert naive == {"at": "2026-03-01T12:00:00.000000+00:00"}  # a naive time is UTC
    assert RelationFilter(history=True).spelled(SPELLING) == ([], {})


def test_a_query_vector_of_another_dimension_is_refused_with_both_named() -> None:
    ask = VectorSearch("entity", "default", np.ones(3, dtype=np.float32), 5)
    ask.check(3, "entity")
    with pytest.raises(ConfigError, match="dimension 3 for entity embeddings of dimension 4"):
        ask.check(4, "entity")


async def test_a_store_answering_neither_hop_query_says_so() -> None:
    class Bare(Hops):
        """Implements neither ``_relations_touching`` nor ``_entity_relations``."""

    with pytest.raises(NotImplementedError, match="neither"):
        await Bare()._relations_touching(Hop(["e"], RelationFilter(), None))
    with pytest.raises(NotImplementedError, match="neither"):
        await Bare()._entity_relations(RelationQuery("e", "both", RelationFilter(), None))
