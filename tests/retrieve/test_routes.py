"""Questions about how someone travels: the route sentences of named vehicles, from a real
store, though they share no word with the question."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from retrieve_corpus import EntitySpec, build_bundle, sample_result

from loregraph.answer.extractive import NOT_STATED, extractive_answer
from loregraph.embed.hashing import HashingEmbedder
from loregraph.models import Entity
from loregraph.retrieve.formats import format_context
from loregraph.retrieve.pipeline import Retriever
from loregraph.retrieve.routes import asks_route, route_sentences
from loregraph.retrieve.terms import Focus, answer_shape, asks_travel
from loregraph.settings import PRESETS
from loregraph.store.sqlite import SqliteStore

ROUTE = "The bales unloaded at Saltmere from Corvo on the Swallow were his."

SEASONS = ("spring", "summer", "autumn", "winter", "harvest", "thaw", "flood", "frost")
ROADS = "".join(
    f"In the {season} Aldo Brenn travelled the Hollin road towards the coast. "
    f"The coast fairs of the {season} paid him poorly for the travel. "
    for season in SEASONS
)
"""Chunks holding the question's words, which push the route below the passages shown."""

TALE = (
    f"{ROADS}"
    "Aldo Brenn was a wool merchant of Hollin. "
    "He had sold his wool at every fair in Hollin for twenty years. "
    "The winter was long and the roads out of Hollin were deep in snow. "
    "Brenn spoke to nobody of his plans. "
    "The Hollin Herald printed the news of Saltmere and Corvo every week. "
    "Its readers cared little for the merchants of Saltmere. "
    "In March the harbour of Corvo was loud with carts and buyers. "
    "Nobody there asked the merchants where they came from. "
    f"{ROUTE} "
    "His cousin in Saltmere sold them before the summer. "
    "Brenn came home rich and bought the mill by the river. "
    "The miller's children still tell the tale."
)

SPECS = [
    EntitySpec("Aldo Brenn", "Person", "A wool merchant of Hollin", ["Brenn"]),
    EntitySpec("Hollin", "Location", "A town of wool merchants"),
    EntitySpec("Saltmere", "Location", "A port town"),
    EntitySpec("Corvo", "Location", "A harbour town"),
    EntitySpec("Swallow", "Product", "A ship"),
    EntitySpec("Hollin Herald", "Product", "A newspaper"),
]

QUESTION = "How did Aldo Brenn travel from Hollin to the coast?"


def _places(*names: str) -> list[Entity]:
    return [Entity(id=n, name=n, type="Location") for n in names]


def test_a_question_asks_for_a_means_of_travel_when_how_governs_a_verb_of_travel() -> None:
    assert asks_travel("How did Aldo Brenn travel from Hollin to the coast?")
    assert asks_travel("How does one get from Hollin to Corvo?")
    assert asks_travel("How did the merchant make his way to Corvo?")
    assert asks_travel("How did the cousin plan to follow him along the river?")
    assert answer_shape("How did Brenn travel to Corvo?") == "means"
    # "how" with another verb, and a verb of travel far from "how", are other questions
    assert not asks_travel("How did the captain learn where the merchant was after he fled?")
    assert not asks_travel("How was the cargo found when the ship came ashore?")
    assert not asks_travel("How did the clerks learn the ship's movements?")
    assert not asks_travel("Why did Brenn travel to Corvo?")
    # a verb of travel in another sense, with no place to go to or from
    assert not asks_travel("How do I get the current date?")
    assert not asks_travel("How did the war go?")
    assert not asks_travel("How did the two brothers get along?")
    assert not asks_travel("How can I move a table to another tablespace?")
    assert not asks_travel("How did the captain come to know of the storm?")
    assert asks_travel("How did the merchant, with his bales, travel to Corvo?")
    assert asks_travel("How were the bales carried to Saltmere?")


def test_a_route_is_asked_for_only_between_places_the_question_names() -> None:
    assert asks_route(QUESTION, ["Hollin"])
    assert asks_route("How did Brenn get towards Corvo?", ["Corvo"])
    assert not asks_route(QUESTION, [])  # no place named
    assert not asks_route("How did Brenn travel with the Hollin wool?", ["Hollin"])
    assert not asks_route("What did Brenn sell in Hollin?", ["Hollin"])


def test_a_route_sentence_names_its_vehicle_between_places_it_moves_from_or_to() -> None:
    ship = Entity(id="s", name="Swallow", type="Product")
    places = _places("Saltmere", "Corvo", "Hollin")
    text = f"He waited. {ROUTE} Then he left."
    assert [(text[a:b], n) for a, b, n in route_sentences(text, ship, places)] == [(ROUTE, 2)]
    emphasised = ROUTE.replace("Swallow", "_Swallow_")  # markdown emphasis joins no words
    assert len(route_sentences(emphasised, ship, places)) == 1
    paper = Entity(id="p", name="Hollin Herald", type="Product")
    news = "The Hollin Herald printed the news of Saltmere and Corvo every week."
    assert route_sentences(news, paper, places) == []  # places, but nothing moves
    city = Entity(id="c", name="City of Corvo", type="Product")
    sailed = "The City of Corvo sailed from Saltmere at dawn."
    assert route_sentences(sailed, city, places) == []  # Corvo in the ship's name is no place
    harbour = [Entity(id="w", name="Saltmere", type="Location", aliases=["Saltmere Harbour"])]
    twice = "The Swallow left Saltmere Harbour and was soon back at Saltmere."
    assert route_sentences(twice, ship, [*harbour, *_places("Hollin")]) == []  # one place
    one = "The Swallow sailed from Corvo at dawn."
    assert route_sentences(one, ship, places) == []  # a departure, not a route


def test_a_means_of_travel_is_a_vehicle_or_a_place_moved_from_or_to() -> None:
    focus = Focus.of([], {}, "How did Brenn travel from Hollin to Corvo?")
    assert focus.shape_matches(ROUTE) == ["at Saltmere"]  # Corvo is the question's own
    assert focus.shape_matches("He took the diligence and then a steamer.") == [
        "diligence",
        "steamer",
    ]
    assert focus.shape_matches("Coaches, buses and carts; he went on foot.") == [
        "Coaches",
        "buses",
        "carts",
        "on foot",
    ]
    assert not focus.holds_shape("He sold the wool for a good price, and cares little.")
    # a route has two ends: "to Saltmere" alone, or "for Aldo", is none
    assert not focus.holds_shape("He wrote a letter to Saltmere for Aldo.")


def test_a_letter_to_a_person_is_no_route() -> None:
    result = sample_result("How did Tomas Reyes travel to the island?")
    letter, voyage = result.passages[0], result.passages[1]
    letter.text = "Reyes wrote from Osray to Elena Varga every winter."
    voyage.text = "Reyes went by ship from Port Calder to Osray."
    result = dataclasses.replace(result, focus=Focus.of([], {}, result.question))
    answer = extractive_answer(result, max_sentences=1)
    assert [c.quote for c in answer.citations] == [voyage.text]


async def _retrieve(path: Path, question: str) -> object:
    embedder = HashingEmbedder(dim=256)
    bundle = build_bundle(
        "default", "The Merchant", "merchant.txt", TALE, embedder, entity_specs=SPECS, relations=[]
    )
    async with SqliteStore(path) as store:
        await store.write_document(bundle)
        return await Retriever(store, embedder, PRESETS["hybrid"]).retrieve(question, "default")


async def test_how_someone_travels_is_answered_by_the_route_sentence_of_a_vehicle(
    tmp_path: Path,
) -> None:
    result = await _retrieve(tmp_path / "kg.db", QUESTION)
    assert "routes" in result.debug["passages"]["ran"]
    routed = [p for p in result.passages if "routes" in p.found_by]
    assert len(routed) == 1 and ROUTE in routed[0].text  # the newspaper has no route
    assert ROUTE in format_context(result, "markdown", budget=300)
    answer = extractive_answer(result, max_sentences=2)
    assert ROUTE in [c.quote for c in answer.citations]
    assert NOT_STATED not in answer.text  # the route states the means


async def test_other_questions_do_not_look_for_routes(tmp_path: Path) -> None:
    result = await _retrieve(tmp_path / "kg.db", "What did Aldo Brenn sell in Hollin?")
    assert "routes" not in result.debug["passages"]["ran"]
