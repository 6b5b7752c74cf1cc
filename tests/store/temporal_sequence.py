"""A seeded random sequence of memories about where people live (remembered at random
dates, in random order, some forgotten), and a plain Python model of what should hold.

About a third of the facts name a city the person was already said to live in (a target
that comes back after being replaced, or a restatement); the others name a new city.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

PEOPLE = ("Alice Moreau", "Bruno Keller", "Chiara Lindqvist")
CITIES = [
    "Lisbon",
    "Oslo",
    "Nairobi",
    "Toronto",
    "Kyoto",
    "Lima",
    "Dublin",
    "Warsaw",
    "Cairo",
    "Madrid",
    "Vienna",
    "Prague",
    "Helsinki",
    "Santiago",
    "Bogota",
    "Manila",
    "Jakarta",
    "Istanbul",
    "Athens",
    "Budapest",
    "Copenhagen",
    "Melbourne",
    "Seoul",
    "Havana",
    "Montreal",
    "Marseille",
    "Munich",
    "Edinburgh",
    "Chicago",
    "Boston",
    "Denver",
    "Seattle",
    "Houston",
    "Phoenix",
    "Dallas",
    "Miami",
    "Atlanta",
    "Reykjavik",
    "Tallinn",
    "Riga",
    "Vilnius",
    "Sofia",
    "Bucharest",
    "Belgrade",
    "Zagreb",
    "Lyon",
    "Porto",
    "Seville",
    "Naples",
    "Florence",
    "Geneva",
    "Zurich",
    "Hamburg",
    "Cologne",
    "Antwerp",
    "Rotterdam",
]
START = datetime(2025, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Fact:
    person: str
    city: str
    at: datetime

    @property
    def text(self) -> str:
        return f"{self.person} lives in {self.city}."


@dataclass(frozen=True, slots=True)
class Step:
    """Remember ``fact``, or forget the memory of the earlier step ``forget`` (an index)."""

    fact: Fact | None = None
    forget: int | None = None


@dataclass(slots=True)
class Model:
    """The facts remembered and not forgotten; where each person lives at a time."""

    live: dict[int, Fact] = field(default_factory=dict)

    def apply(self, index: int, step: Step) -> None:
        if step.fact is not None:
            self.live[index] = step.fact
        elif step.forget is not None:
            del self.live[step.forget]

    def city(self, person: str, at: datetime | None = None) -> list[str]:
        """Where ``person`` lives at ``at`` (now when ``None``): the latest fact by then."""
        known = [f for f in self.live.values() if f.person == person]
        if at is not None:
            known = [f for f in known if f.at <= at]
        return [max(known, key=lambda f: f.at).city] if known else []


def sequence(seed: int, steps: int = 50) -> list[Step]:
    """``steps`` steps: mostly remembering (a date of 2025 no other fact has; a city the
    person was said to live in before, a third of the time, else a new one), sometimes
    forgetting a memory still held."""
    rng = random.Random(seed)
    days = rng.sample(range(365), steps)
    cities = iter(CITIES)
    out: list[Step] = []
    held: list[int] = []
    named: dict[str, list[str]] = {person: [] for person in PEOPLE}
    for index in range(steps):
        if held and rng.random() < 0.25:
            gone = held.pop(rng.randrange(len(held)))
            out.append(Step(forget=gone))
            continue
        person = rng.choice(PEOPLE)
        before = named[person]
        city = rng.choice(before) if before and rng.random() < 0.35 else next(cities)
        before.append(city)
        out.append(Step(fact=Fact(person, city, START + timedelta(days=days[index]))))
        held.append(index)
    return out


def returns(steps: list[Step]) -> int:
    """How many facts name a city their person was said to live in before."""
    seen: set[tuple[str, str]] = set()
    count = 0
    for step in steps:
        if step.fact is not None:
            key = (step.fact.person, step.fact.city)
            count += key in seen
            seen.add(key)
    return count


def probe_times(seed: int, count: int = 8) -> list[datetime]:
    """Times of 2025 to ask about (at noon: never a fact's own time)."""
    rng = random.Random(seed + 1)
    return sorted(START + timedelta(days=d, hours=12) for d in rng.sample(range(365), count))
