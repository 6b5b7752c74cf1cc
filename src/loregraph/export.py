"""Export a scope's graph as JSON or GraphML, and render a part of it as mermaid or GraphML."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, Literal
from xml.etree import ElementTree as ET

from loregraph.errors import InputError
from loregraph.models import Entity, Relation
from loregraph.retrieve.context.formats import mermaid_diagram
from loregraph.store.base import Store
from loregraph.timepoint import TimePoint

GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"


def _entity_record(entity: Entity) -> dict[str, Any]:
    return {
        "id": entity.id,
        "name": entity.name,
        "type": entity.type,
        "description": entity.description,
        "aliases": list(entity.aliases),
        "mention_count": entity.mention_count,
        "salience": entity.salience,
        "confidence": entity.confidence,
        "scope": entity.scope,
    }


def _relation_record(rel: Relation) -> dict[str, Any]:
    return {
        "id": rel.id,
        "source": rel.source_id,
        "target": rel.target_id,
        "type": rel.type,
        "fact": rel.fact,
        "weight": rel.weight,
        "confidence": rel.confidence,
        "valid_at": rel.valid_at.isoformat() if rel.valid_at else None,
        "invalid_at": rel.invalid_at.isoformat() if rel.invalid_at else None,
        "created_at": rel.created_at.isoformat(),
        "evidence": [{"chunk_id": ev.chunk_id, "sentence": ev.sentence} for ev in rel.evidence],
    }


async def export_graph(
    store: Store,
    scope: str,
    path: Path | IO[bytes],
    fmt: Literal["json", "graphml"],
    point: TimePoint | None = None,
) -> int:
    """Write every entity and relation of ``scope`` to ``path`` (a file, written whole or
    not at all, or a binary stream such as stdout's buffer); returns the entity count.
    With ``point``, only the relations begun by its world time and known at its
    ``known_at``, the entities and documents the store held then
    (:mod:`loregraph.timepoint`)."""
    known = point.known_at if point is not None else None
    entities = [
        _entity_record(e)
        async for e in store.iter_entities(scope)
        if known is None or e.created_at <= known
    ]
    relations = [
        _relation_record(r)
        async for r in store.iter_relations(scope)
        if point is None or point.begun(r)
    ]
    if fmt == "json":
        documents = [
            {"id": d.id, "title": d.title, "source": d.source, "content_hash": d.content_hash}
            for d in await store.list_documents(scope)
            if point is None or point.sees(d.valid_at, d.created_at)
        ]
        payload = {
            "scope": scope,
            "documents": documents,
            "entities": entities,
            "relations": relations,
        }
        data = json.dumps(payload, ensure_ascii=False, indent=1).encode("utf-8")
    else:
        data = _graphml(entities, relations)
    if isinstance(path, Path):
        _write_atomically(path, data)
    else:
        path.write(data)
        path.flush()
    return len(entities)


def subgraph_text(
    entities: Sequence[Entity], relations: Sequence[Relation], fmt: Literal["mermaid", "graphml"]
) -> str:
    """Some entities and the relations among them as a mermaid diagram or a GraphML
    document (relations whose ends are not all listed are left out)."""
    listed = {e.id for e in entities}
    inside = [r for r in relations if r.source_id in listed and r.target_id in listed]
    if fmt == "mermaid":
        edges = [(r.source_id, r.type, r.target_id) for r in inside]
        return mermaid_diagram({e.id: e.name for e in entities}, edges)
    records = [_entity_record(e) for e in entities], [_relation_record(r) for r in inside]
    return _graphml(*records).decode("utf-8")


def _write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it into place."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _graphml(entities: list[dict[str, Any]], relations: list[dict[str, Any]]) -> bytes:
    ET.register_namespace("", GRAPHML_NS)
    root = ET.Element(f"{{{GRAPHML_NS}}}graphml")
    keys = [
        ("name", "node", "string"),
        ("type", "node", "string"),
        ("description", "node", "string"),
        ("aliases", "node", "string"),
        ("mention_count", "node", "int"),
        ("rel_type", "edge", "string"),
        ("fact", "edge", "string"),
        ("weight", "edge", "double"),
        ("confidence", "edge", "double"),
    ]
    for name, domain, kind in keys:
        ET.SubElement(
            root,
            f"{{{GRAPHML_NS}}}key",
            {"id": name, "for": domain, "attr.name": name, "attr.type": kind},
        )
    graph = ET.SubElement(root, f"{{{GRAPHML_NS}}}graph", {"id": "G", "edgedefault": "directed"})
    for ent in entities:
        node = ET.SubElement(graph, f"{{{GRAPHML_NS}}}node", {"id": ent["id"]})
        values = {**ent, "aliases": "; ".join(ent["aliases"])}
        for name in ("name", "type", "description", "aliases", "mention_count"):
            ET.SubElement(node, f"{{{GRAPHML_NS}}}data", {"key": name}).text = str(values[name])
    for rel in relations:
        edge = ET.SubElement(
            graph,
            f"{{{GRAPHML_NS}}}edge",
            {"id": rel["id"], "source": rel["source"], "target": rel["target"]},
        )
        values = {**rel, "rel_type": rel["type"]}
        for name in ("rel_type", "fact", "weight", "confidence"):
            ET.SubElement(edge, f"{{{GRAPHML_NS}}}data", {"key": name}).text = str(values[name])
    buffer = io.BytesIO()
    ET.ElementTree(root).write(buffer, encoding="utf-8", xml_declaration=True)
    return buffer.getvalue()


def check_writable_target(path: Path) -> None:
    """Raise :class:`InputError` when ``path`` cannot be written as a new or replaced file."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise InputError(f"cannot write {path}: it is a folder; give a file name")
    if not folder.is_dir():
        raise InputError(f"cannot write {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError(f"cannot write {path}: permission denied")
