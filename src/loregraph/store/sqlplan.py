"""A write plan's rows as a SQL store writes them (:mod:`.sqlite.apply`,
:mod:`.postgres.apply`): the entities it names, its evidence with the tables' pks, and the
stored relations' changes grouped by the columns they set."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from loregraph.store.plan import WritePlan

Row = dict[str, Any]


def entity_ids(plan: WritePlan) -> set[str]:
    """Every entity the plan's rows name."""
    rows = [*plan.new_entities, *plan.entity_updates]
    named = [*plan.contributions, *plan.mentions, *plan.merges]
    ends = [(r["source_id"], r["target_id"]) for r in plan.new_relations]
    found = {r["id"] for r in rows} | {r["entity_id"] for r in named}
    return found | {i for pair in ends for i in pair}


def evidence_rows(
    plan: WritePlan, relations: dict[str, int], doc_pk: int | None, chunks: dict[str, int]
) -> list[Row]:
    """The document's evidence rows with ``relation``, ``document`` and ``chunk`` pks."""
    return [
        x
        | {"relation": relations[x["relation_id"]], "document": doc_pk}
        | {"chunk": chunks[x["chunk_id"]] if x["chunk_id"] else None}
        for x in plan.evidence
    ]


def relation_changes(plan: WritePlan) -> dict[tuple[str, ...], list[Row]]:
    """The stored relations' new values (weights, confidences, facts, times), grouped by
    the columns each sets (one ``UPDATE`` statement a group)."""
    groups: dict[tuple[str, ...], list[Row]] = defaultdict(list)
    for row in [*plan.relation_updates, *plan.relation_weights]:
        groups[tuple(name for name in row if name != "id")].append(row)
    return groups
