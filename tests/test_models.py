"""Each model the faces print has one JSON shape, its ``to_dict()``."""

from __future__ import annotations

import json

from loregraph.answer.types import Answer, Citation
from loregraph.graph import EntityView, SearchHit
from loregraph.models import (
    DeleteReport,
    DocStatus,
    Document,
    Entity,
    Evidence,
    Relation,
    StoreStats,
)


def entity(name: str, entity_id: str) -> Entity:
    return Entity(entity_id, name, "Person", description=f"{name} here.", aliases=["x"])


def test_entity_and_document() -> None:
    assert entity("Lucy", "e1").to_dict() == {
        "id": "e1",
        "name": "Lucy",
        "type": "Person",
        "mentions": 0,
        "aliases": ["x"],
        "description": "Lucy here.",
    }
    doc = Document("d1", "Notes", "h", source="/n.txt", status=DocStatus.DONE, char_count=12)
    assert doc.to_dict() == {
        "id": "d1",
        "title": "Notes",
        "source": "/n.txt",
        "chars": 12,
        "status": "done",
        "visibility": "public",
        "owner": None,
    }


def test_relation_names_its_ends_and_shows_three_sentences() -> None:
    evidence = [Evidence("c1", f"sentence {i}") for i in range(5)]
    relation = Relation("r1", "e1", "e2", "KNOWS", weight=2.0, confidence=0.5, evidence=evidence)
    assert relation.to_dict({"e1": "Lucy"}) == {
        "source": "Lucy",
        "type": "KNOWS",
        "target": "e2",  # an end the names do not know is shown by id
        "weight": 2.0,
        "confidence": 0.5,
        "evidence": ["sentence 0", "sentence 1", "sentence 2"],
    }


def test_entity_view_is_the_entity_with_named_relations() -> None:
    lucy, mina = entity("Lucy", "e1"), entity("Mina", "e2")
    relation = Relation("r1", "e2", "e1", "WRITES_TO", evidence=[Evidence("c1", "Mina wrote.")])
    data = EntityView(lucy, [relation], {"e2": mina}).to_dict()
    assert data == {
        **lucy.to_dict(),
        "relations": [
            {
                "source": "Mina",
                "type": "WRITES_TO",
                "target": "Lucy",
                "weight": 1.0,
                "confidence": 1.0,
                "evidence": ["Mina wrote."],
            }
        ],
    }


def test_answer_hit_and_counts_are_json_ready() -> None:
    citation = Citation(1, "d1", "Notes", "c1", 0, 4, 9, "quote")
    answer = Answer("Who?", "Lucy [1]", [citation], llm=True)
    hit = SearchHit("entity", "e1", "Lucy", 0.5, {"type": "Person"})
    payloads = [
        answer.to_dict(),
        hit.to_dict(),
        StoreStats(documents=2, relation_types={"KNOWS": 1}).to_dict(),
        DeleteReport("d1", chunks=3).to_dict(),
    ]
    assert json.loads(json.dumps(payloads)) == payloads
    assert answer.to_dict() == {
        "question": "Who?",
        "answer": "Lucy [1]",
        "found": True,
        "llm": True,
        "citations": [
            {
                "index": 1,
                "document_id": "d1",
                "document_title": "Notes",
                "chunk_id": "c1",
                "seq": 0,
                "start": 4,
                "end": 9,
                "quote": "quote",
                "section": "",
            }
        ],
    }
    assert hit.to_dict() == {
        "kind": "entity",
        "id": "e1",
        "title": "Lucy",
        "score": 0.5,
        "relevance": 0.0,
        "relevant": True,
        "extra": {"type": "Person"},
    }
    assert set(payloads[2]) == {
        "documents",
        "chunks",
        "entities",
        "relations",
        "mentions",
        "schema_version",
        "relation_types",
        "entity_types",
    }
    assert payloads[3] == {
        "document_id": "d1",
        "chunks": 3,
        "mentions": 0,
        "entities_removed": 0,
        "relations_removed": 0,
        "relations_weakened": 0,
    }
