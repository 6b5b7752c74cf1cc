"""The backend-agnostic store contract: every backend's test module subclasses
:class:`StoreContract` and provides one fixture, ``store_factory``: an async callable that
returns a new, opened, empty store on each call (and closes them all at teardown).

The assertions are what the rest of loregraph relies on, whatever the backend. Beyond
the docstrings of :class:`~loregraph.store.base.Store`, they pin down:

* ``invalidate_relation`` raises ``NotFoundError`` for an unknown id; ``delete_document``
  of an unknown id returns an all-zero report and changes nothing;
* an inconsistent bundle (a reference to an unknown entity or chunk, an entity of another
  scope) raises ``ValueError`` and leaves the store exactly as it was;
* a bundle entity with a new id but an existing name key is written onto the existing
  entity; aliases never repeat the canonical name's key;
* after any sequence of writes and deletes, every derived value (mention counts, aliases,
  descriptions, entity salience and confidence, relation weights and confidences) equals
  what a store built from the remaining documents alone holds;
* a principal sees exactly the graph built from the documents it may read (random cases,
  ``visibility_default_cases`` of them, ``LOREGRAPH_VISIBILITY_CASES`` to change it).
"""

from __future__ import annotations

from .contract_code import CodeContract
from .contract_copy import CopyContract
from .contract_documents import DocumentContract
from .contract_grants import GrantContract
from .contract_graph import GraphContract
from .contract_keys import KeyContract
from .contract_memories import MemoryContract
from .contract_merges import EngineMergeContract, MergeContract
from .contract_patterns import PatternContract
from .contract_scores import ScoreContract
from .contract_search import SearchContract
from .contract_temporal import TemporalContract
from .contract_visibility import VisibilityContract
from .scenarios import StoreFactory, day, shared_pair, star


class StoreContract(
    DocumentContract,
    SearchContract,
    GraphContract,
    PatternContract,
    CopyContract,
    CodeContract,
    MemoryContract,
    TemporalContract,
    KeyContract,
    GrantContract,
    ScoreContract,
    MergeContract,
    EngineMergeContract,
    VisibilityContract,
):
    """Every contract test; a backend's test module subclasses this."""


__all__ = ["StoreContract", "StoreFactory", "day", "shared_pair", "star"]
