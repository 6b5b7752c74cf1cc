"""A name written as code in prose ("fixed in ``Discount.apply``", "call ``price_of()``
first") is the code graph's definition known by that name: an agent's memory about the
code links to the code itself.

The code graph names a function or class by its qualified name (``shop.pricing.price_of``)
and knows it by its short name and, for a method, ``Class.method`` (its aliases). A
candidate written as code — a dotted chain of identifiers, or what
:func:`~loregraph.ingest.extract.components.code_kind` calls a function, file or module —
whose name is such an alias links to that definition, whatever type the extractor guessed
and though it is one word (prose aliases need two).
"""

from __future__ import annotations

import re

from loregraph.ingest.types import CandidateEntity
from loregraph.models import Entity, name_key
from loregraph.text.code_shapes import code_kind
from loregraph.text.entity_types import CLASS, FILE, FUNCTION, MODULE

CODE_TYPES = frozenset({FUNCTION, CLASS, MODULE, FILE})
"""The types of the code graph's definitions a name written as code may link to."""
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")


def written_as_code(name: str) -> bool:
    """Whether ``name`` is written as code: ``Cart.total``, ``price_of()``,
    ``parse_config``, ``src/app.py``."""
    return bool(_DOTTED.match(name)) or code_kind(name) in CODE_TYPES


def code_target(cand: CandidateEntity, found: dict[str, Entity]) -> Entity | None:
    """The definition a prose candidate written as code names, among the entities
    ``found`` by key (``None`` for an identifier of the code graph itself, which links by
    its own name only)."""
    if cand.exact or not written_as_code(cand.name):
        return None
    entity = found.get(name_key(cand.name))
    return entity if entity is not None and entity.type in CODE_TYPES else None
