"""Grounding: entities and relation ends the model names must be in the text it was given."""

from __future__ import annotations

import json

from loregraph.ingest.chunk.chunker import chunk_text
from loregraph.ingest.extract.llm import ENTITY_STAGE, RELATION_STAGE, LLMExtractor
from loregraph.ingest.extract.llm_ground import TextGrounder, ground_entity
from loregraph.ingest.extract.llm_schema import RawEntity
from loregraph.ingest.types import SourceDocument
from loregraph.settings import ExtractionSettings

from .fake_server import Call, FakeLLMServer, Reply

FIRST = (
    "Jonathan Harker left Munich by the night train and reached Bistritz at dusk. "
    "At the Golden Krone Hotel a letter from Count Dracula was waiting for Jonathan Harker. "
    "Jonathan Harker read the letter twice. The landlord of Bistritz crossed himself. "
) * 2 + "The road to the pass was long, and the night was cold and very dark. " * 6
SECOND = (
    "Far away in Whitby, Mina Murray walked on the cliff with Lucy Westenra. "
    "Mina Murray wrote in her journal that Lucy Westenra slept badly. "
    "Lucy Westenra walked in her sleep on the cliff at Whitby. "
) * 2
TEXT = FIRST + "\n\n" + SECOND


def entity(name: str, aliases: list[str] | None = None) -> dict[str, object]:
    return {
        "name": name,
        "type": "Person",
        "description": f"{name} in the story",
        "aliases": aliases or [],
        "salience": 5,
        "mentions": 3,
        "confidence": 0.95,
    }


def relation(source: str, target: str, kind: str, evidence: str = "") -> dict[str, object]:
    return {"source": source, "target": target, "type": kind, "evidence": evidence}


def responder(call: Call) -> Reply:
    batch = next(m["content"] for m in call.messages if m["role"] == "user")
    first = "Munich" in batch
    if "entity extraction" in call.system:
        if first:
            listed = [
                entity("Jonathon Harker"),  # misspelt: grounded fuzzily, takes the text's name
                entity("Count Dracula"),
                entity("Bistritz"),
                entity("Golden Krone Hotel"),
                entity("Professor Moriarty"),  # nowhere in the text: dropped
            ]
        else:
            listed = [entity("Mina Harker", ["Mina Murray"]), entity("Lucy Westenra")]
            listed.append(entity("WHITBY"))  # other capitals: kept, the text's spelling added
        return Reply(json.dumps({"entities": listed}))
    if first:
        rels = [relation("Count Dracula", "Jonathan Harker", "WRITES_TO")]
    else:
        rels = [
            relation("Mina Harker", "Lucy Westenra", "WALKS_WITH", "walked on the cliff"),
            # Count Dracula is an entity of the document, but this batch never names him
            relation("Count Dracula", "Lucy Westenra", "WATCHES"),
        ]
    return Reply(json.dumps({"relationships": rels}))


def test_text_grounder_finds_exact_alias_case_and_fuzzy_names() -> None:
    grounder = TextGrounder("Dr. Seward wrote to JOHN SEWARD's friend, Professor Van Helsing.")
    assert grounder.locate("Dr. Seward") == ("exact", "Dr. Seward")
    assert grounder.locate("Abraham Van Helsing", ["Van Helsing"]) == ("exact", "Van Helsing")
    assert grounder.locate("John Seward") == ("case", "JOHN SEWARD")
    assert grounder.locate("Profesor Van Helsing") == ("fuzzy", "Professor Van Helsing")
    assert grounder.locate("Sherlock Holmes") is None
    raw = RawEntity(name="Profesor Van Helsing", type="Person", aliases=["the Professor"])
    grounded = ground_entity(raw, grounder)
    assert grounded is not None and grounded[0].name == "Professor Van Helsing"


async def test_ungrounded_entities_and_relation_ends_are_dropped_and_counted(
    server: FakeLLMServer, make_client
) -> None:
    server.responder = responder
    client = make_client()
    chunks = list(chunk_text(TEXT))
    extractor = LLMExtractor(client, ExtractionSettings(), mega_batch_chars=1000)
    result = await extractor.extract(SourceDocument("Letters", TEXT, "letters.txt"), chunks)
    assert result.stats["batches"] == 2
    second_batch = next(c.last_user for c in server.chat_calls() if "Whitby" in c.last_user)
    assert "Dracula" not in second_batch and "Munich" not in second_batch
    names = {e.name for e in result.entities}
    assert "Professor Moriarty" not in names
    assert "Jonathon Harker" not in names and "Jonathan Harker" in names
    assert {"Count Dracula", "Bistritz", "Lucy Westenra", "Mina Harker", "WHITBY"} <= names
    whitby = next(e for e in result.entities if e.name == "WHITBY")
    assert {o.surface for o in whitby.occurrences} == {"Whitby"}
    mina = next(e for e in result.entities if e.name == "Mina Harker")
    # found by its alias in the text
    assert sum(o.count for o in mina.occurrences) == TEXT.count("Mina Murray")

    triples = {(r.source, r.type, r.target) for r in result.relations}
    assert ("Count Dracula", "WRITES_TO", "Jonathan Harker") in triples
    assert ("Mina Harker", "WALKS_WITH", "Lucy Westenra") in triples
    assert not any(r.type == "WATCHES" for r in result.relations)

    entities = client.usage.stage(ENTITY_STAGE)
    relations = client.usage.stage(RELATION_STAGE)
    assert entities.notes["entities_ungrounded"] == 1
    assert entities.notes["entities_grounded_fuzzy"] == 1
    assert relations.notes["relations_ungrounded"] == 1
    assert entities.dropped == 1 and relations.dropped == 1
    assert "1 relations ungrounded" in client.usage.summary()
