"""A store's whole graph as comparable data, for tests that undo a change exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import loregraph


def graph_state(graph: loregraph.Graph, tmp: Path) -> dict[str, Any]:
    """The export (less relations' `created_at`, the time of writing) and every mention,
    sorted, so that two states compare equal exactly when the graphs are the same."""
    out = tmp / "export.json"
    graph.export(out)
    data = json.loads(out.read_text(encoding="utf-8"))
    for relation in data["relations"]:
        del relation["created_at"]
    data["entities"].sort(key=lambda e: e["id"])
    data["relations"].sort(key=lambda r: r["id"])
    mentions = []
    for doc in graph.documents():
        bundle = graph._run(graph.store.read_bundle(doc.id))
        assert bundle is not None
        mentions += [(m.entity_id, m.chunk_id, m.surface, m.count) for m in bundle.mentions]
    data["mentions"] = sorted(mentions)
    return data
