"""Routes: the sentences where a named vehicle goes between named places, for questions
asking how someone travels from one place to another.

"How does the Count travel from Transylvania to England?" is answered by "the boxes which
arrived at Whitby from Varna in the *Demeter*": a sentence that shares no word with the
question, about a ship the question does not name, between places it does not name either.
Neither the words (BM25), nor the meaning (vector), nor the graph around the question's
entities finds it. What marks it is its shape: a vehicle, and a route.

So a question that asks how someone or something travels (:func:`asks_route`: "how" with
a verb of travel, :func:`~loregraph.retrieve.terms.asks_travel`, and "from"/"to"/"towards"
a place the question names) gets one more
passage ranking, ``routes``: the chunks holding a **route sentence**, one that names an
entity of type ``Product`` (ships, trains, carriages; the typing rules give vehicles that
type) together with at least :data:`ROUTE_PLACES` different places of the graph, one of
them right after a preposition of movement ("from Varna", "at Whitby", "for Varna"). A
newspaper or a letter is a Product too, but is seldom named between two places that way.

Vehicles are taken in order of their score in the question's neighbourhood (those the
graph expansion reached first), then by how often they are mentioned; the ranking gives
each vehicle's best route chunk (the one naming the most places) before any vehicle's
second, so that every way of travel the documents tell of is shown before the details of
one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from loregraph.models import Chunk, Entity
from loregraph.retrieve.graphindex import GraphIndex
from loregraph.retrieve.terms import asks_travel
from loregraph.store.base import Store
from loregraph.text.entity_types import LOCATION, PRODUCT
from loregraph.text.name_finder import NameFinder
from loregraph.text.sentences import split_sentences

ROUTE_PLACES = 2
"""How many different places a route sentence names besides its vehicle."""

MAX_VEHICLES = 100
"""How many of the scope's most mentioned Product entities are read for routes."""

MAX_PLACES = 5000
"""How many of the scope's most mentioned places a route may name."""

CHUNKS_PER_VEHICLE = 40
"""How many chunks naming a vehicle with two places or more are read for its routes (a
newspaper named in every chunk leaves room for the ships)."""

_MOVEMENT = r"(?:from|to|for|at|into|towards?|via|through|across|reach\w*|arriv\w*\s+at)"


def asks_route(question: str, named_places: Sequence[str]) -> bool:
    """Whether ``question`` asks how someone travels between places: "how" with a verb of
    travel, and one of ``named_places`` (the places the question names, as written)
    after "from", "to" or "towards"."""
    return asks_travel(question) and goes_to_or_from(question, named_places)


def goes_to_or_from(question: str, named_places: Sequence[str]) -> bool:
    """Whether one of ``named_places`` follows "from", "to" or "towards" in ``question``."""
    for place in named_places:
        pattern = rf"\b(?:from|to|towards?)\s+(?:the\s+)?{re.escape(place)}(?!\w)"
        if re.search(pattern, question, re.IGNORECASE):
            return True
    return False


@dataclass(frozen=True, slots=True)
class _Route:
    vehicle: str
    chunk_id: str
    places: int


_MOVED = re.compile(rf"\b{_MOVEMENT}\s+(?:the\s+)?_?$", re.IGNORECASE)


def route_sentences(
    text: str, vehicle: Entity, places: Sequence[Entity]
) -> list[tuple[int, int, int]]:
    """The route sentences of ``text`` for ``vehicle`` among ``places``: ``(start, end,
    number of places named)`` for each sentence that names the vehicle and at least
    :data:`ROUTE_PLACES` different places outside its name, one of them right after a
    preposition of movement."""
    return _routes(text, NameFinder([vehicle]), NameFinder(places))


def _routes(text: str, vehicle: NameFinder, places: NameFinder) -> list[tuple[int, int, int]]:
    out: list[tuple[int, int, int]] = []
    for start, end in split_sentences(text):
        sentence = text[start:end]
        named = vehicle.find(sentence)
        if not named:
            continue
        spans = [(a, b) for a, b, _ in named]
        found = [
            (a, b, e)
            for a, b, e in places.find(sentence)
            if not any(a < y and x < b for x, y in spans)  # "Paris" in "City of Paris"
        ]
        moved = any(_MOVED.search(sentence[max(0, a - 40) : a]) for a, _, _ in found)
        count = len({e for _, _, e in found})
        if count >= ROUTE_PLACES and moved:
            out.append((start, end, count))
    return out


async def route_ranking(
    store: Store, scope: str, index: GraphIndex, scores: Mapping[str, float]
) -> list[str]:
    """The ``routes`` passage ranking of ``scope`` (see the module docstring): chunk ids,
    best first. ``scores`` are the entity scores of the question's neighbourhood."""
    vehicles = await store.list_entities(scope, entity_type=PRODUCT, limit=MAX_VEHICLES)
    if not vehicles:
        return []
    places = await store.list_entities(scope, entity_type=LOCATION, limit=MAX_PLACES)
    place_ids = {p.id: p for p in places}
    rows = index.mentions_of([v.id for v in vehicles])
    mentioned = index.entities_in(list(dict.fromkeys(chunk for _, chunk, _ in rows)))
    places_in = {
        chunk: [place_ids[e] for e in ids if e in place_ids] for chunk, ids in mentioned.items()
    }
    read: dict[str, int] = {}  # chunks read per vehicle
    vehicles_in: dict[str, list[str]] = {}  # chunk id -> the vehicles read in it
    for vehicle_id, chunk_id, _ in rows:
        if read.get(vehicle_id, 0) < CHUNKS_PER_VEHICLE and (
            len(places_in.get(chunk_id, ())) >= ROUTE_PLACES
        ):
            read[vehicle_id] = read.get(vehicle_id, 0) + 1
            vehicles_in.setdefault(chunk_id, []).append(vehicle_id)
    chunks: dict[str, Chunk] = {c.id: c for c in await store.get_chunks(list(vehicles_in))}
    names = {v.id: NameFinder([v]) for v in vehicles}
    routes: list[_Route] = []
    for chunk_id, in_chunk_vehicles in vehicles_in.items():  # in mention order
        chunk = chunks.get(chunk_id)
        if chunk is None:
            continue
        in_chunk = NameFinder(places_in[chunk_id])
        for vehicle_id in in_chunk_vehicles:
            found = _routes(chunk.text, names[vehicle_id], in_chunk)
            if found:
                routes.append(_Route(vehicle_id, chunk_id, max(n for _, _, n in found)))
    return _interleaved(routes, vehicles, scores)


def _interleaved(
    routes: Sequence[_Route], vehicles: Sequence[Entity], scores: Mapping[str, float]
) -> list[str]:
    """Each vehicle's best route chunk before any vehicle's next one; vehicles by their
    score around the question, then by mentions (``vehicles`` is in mention order)."""
    place = {v.id: i for i, v in enumerate(vehicles)}
    per_vehicle: dict[str, list[_Route]] = {}
    for route in routes:
        per_vehicle.setdefault(route.vehicle, []).append(route)
    order = sorted(per_vehicle, key=lambda v: (-scores.get(v, 0.0), place[v]))
    lists = [sorted(per_vehicle[v], key=lambda r: -r.places) for v in order]
    out: list[str] = []
    for depth in range(max((len(rs) for rs in lists), default=0)):
        out.extend(rs[depth].chunk_id for rs in lists if depth < len(rs))
    return list(dict.fromkeys(out))
