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
from loregraph.text.sentences import split_sentences

ROUTE_PLACES = 2
"""How many different places a route sentence names besides its vehicle."""

MAX_VEHICLES = 100
"""How many of the scope's most mentioned Product entities are read for routes."""

MAX_ROUTE_CHUNKS = 400
"""How many chunks mentioning those vehicles are read at most."""

_MOVEMENT = r"(?:from|to|for|at|into|towards?|via|through|across|reach\w*|arriv\w*\s+at)"


def asks_route(question: str, named_places: Sequence[str]) -> bool:
    """Whether ``question`` asks how someone travels between places: "how" with a verb of
    travel, and one of ``named_places`` (the places the question names, as written)
    after "from", "to" or "towards"."""
    if not asks_travel(question):
        return False
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


def _surface_pattern(entities: Sequence[Entity]) -> re.Pattern[str] | None:
    surfaces = {n.strip() for e in entities for n in (e.name, *e.aliases) if len(n.strip()) > 2}
    if not surfaces:
        return None
    body = "|".join(re.escape(s) for s in sorted(surfaces, key=len, reverse=True))
    # "_Demeter_": an underscore (markdown emphasis) does not join a name to its neighbours
    return re.compile(rf"(?<![^\W_])(?:{body})(?![^\W_])", re.IGNORECASE)


def route_sentences(
    text: str, vehicle: Entity, places: Sequence[Entity]
) -> list[tuple[int, int, int]]:
    """The route sentences of ``text`` for ``vehicle`` among ``places``: ``(start, end,
    number of places named)`` for each sentence that names the vehicle and at least
    :data:`ROUTE_PLACES` different places, one of them after a preposition of movement."""
    named = _surface_pattern([vehicle])
    place_pattern = _surface_pattern(places)
    if named is None or place_pattern is None:
        return []
    moved = re.compile(rf"\b{_MOVEMENT}\s+(?:the\s+)?(?:{place_pattern.pattern})", re.IGNORECASE)
    out: list[tuple[int, int, int]] = []
    for start, end in split_sentences(text):
        sentence = text[start:end]
        if not named.search(sentence):
            continue
        found = {m.group(0).casefold() for m in place_pattern.finditer(sentence)}
        if len(found) >= ROUTE_PLACES and moved.search(sentence):
            out.append((start, end, len(found)))
    return out


async def route_ranking(
    store: Store, scope: str, index: GraphIndex, scores: Mapping[str, float]
) -> list[str]:
    """The ``routes`` passage ranking of ``scope`` (see the module docstring): chunk ids,
    best first. ``scores`` are the entity scores of the question's neighbourhood."""
    vehicles = await store.list_entities(scope, entity_type=PRODUCT, limit=MAX_VEHICLES)
    if not vehicles:
        return []
    rows = index.mentions_of([v.id for v in vehicles])
    chunk_ids = list(dict.fromkeys(chunk for _, chunk, _ in rows))[:MAX_ROUTE_CHUNKS]
    mentioned = index.entities_in(chunk_ids)
    others = list(dict.fromkeys(e for ids in mentioned.values() for e in ids))
    by_id = {e.id: e for e in await store.get_entities(others)}
    places_in = {
        chunk: [by_id[e] for e in ids if e in by_id and by_id[e].type == LOCATION]
        for chunk, ids in mentioned.items()
    }
    candidates = [c for c in chunk_ids if len(places_in.get(c, ())) >= ROUTE_PLACES]
    chunks: dict[str, Chunk] = {c.id: c for c in await store.get_chunks(candidates)}
    vehicle_of = {v.id: v for v in vehicles}
    routes: list[_Route] = []
    for vehicle_id, chunk_id, _ in rows:
        chunk = chunks.get(chunk_id)
        if chunk is None:
            continue
        found = route_sentences(chunk.text, vehicle_of[vehicle_id], places_in[chunk_id])
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
