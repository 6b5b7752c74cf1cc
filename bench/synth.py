"""Synthetic but realistic graph data for the scale benchmark, as store ``DocumentBundle``s.

Entity names come from a syllable generator (1-3 capitalised words of 2-3 syllables, unique
by normalised key); chunks are ~300 characters of generated words drawn from a Zipf-shaped
vocabulary with the entity names they mention; embeddings are random 384-d unit vectors
(float32); each entity has five outgoing relations whose targets follow a power law
(a few hubs, a long tail). Everything is seeded, so a size always gives the same data.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from loregraph.models import (
    Chunk,
    DocStatus,
    Document,
    DocumentBundle,
    Entity,
    EntityWrite,
    Evidence,
    Mention,
    Relation,
    content_hash,
    name_key,
    stable_id,
)

DIM = 384
RELATIONS_PER_ENTITY = 5
CHUNK_CHARS = 300
ENTITY_TYPES = ("person", "place", "organization", "event", "concept", "object")
RELATION_TYPES = (
    "KNOWS",
    "LOCATED_IN",
    "MEMBER_OF",
    "PART_OF",
    "CAUSED",
    "OWNS",
    "WORKS_WITH",
    "VISITED",
    "RELATED_TO",
    "DESCRIBED_BY",
)
_ONSETS: tuple[str, ...] = ("b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s")
_ONSETS += ("t", "v", "w", "z", "br", "ch", "dr", "gl", "kr", "pl", "sh", "st", "th", "tr")
_NUCLEI = ("a", "e", "i", "o", "u", "ai", "ea", "ou", "y")
_CODAS = ("", "", "", "n", "r", "l", "s", "th", "m", "k", "nd")
# the exponent of target choice: index = n * u**_SKEW gives a heavy head of hub entities
_SKEW = 3.0


@dataclass(slots=True)
class SynthState:
    """What the generator remembers across bundles (ids and names of existing entities)."""

    entity_ids: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)


class Synthesizer:
    """Generates ``DocumentBundle``s of ``batch`` entities each, deterministically from ``seed``."""

    def __init__(self, scope: str, seed: int = 7, vocabulary: int = 20_000) -> None:
        self.scope = scope
        self.rng = np.random.default_rng(seed)
        self.py = random.Random(seed)
        self.state = SynthState()
        self.vocab = [self._word(self.py.randint(1, 3)).lower() for _ in range(vocabulary)]
        weights = 1.0 / np.arange(1, vocabulary + 1, dtype=np.float64)
        self.vocab_cdf = np.cumsum(weights) / weights.sum()

    # ----------------------------------------------------------------- text
    def _syllable(self) -> str:
        choice = self.py.choice
        return choice(_ONSETS) + choice(_NUCLEI) + choice(_CODAS)

    def _word(self, syllables: int) -> str:
        return "".join(self._syllable() for _ in range(int(syllables))).capitalize()

    def name(self) -> str:
        """A new entity name, unique by normalised key among those generated so far."""
        while True:
            words = self.py.choices((1, 2, 3), weights=(2, 6, 2))[0]
            candidate = " ".join(self._word(self.py.randint(2, 3)) for _ in range(words))
            key = name_key(candidate)
            if key not in self.state.keys:
                self.state.keys.add(key)
                return candidate

    def text(self, names: list[str], chars: int = CHUNK_CHARS) -> str:
        """About ``chars`` characters of generated sentences that mention ``names``."""
        draws = np.searchsorted(self.vocab_cdf, self.rng.random(chars // 5))
        top = len(self.vocab) - 1
        tokens = [self.vocab[min(int(i), top)] for i in draws]
        last = 0
        for n, name in enumerate(names):
            last = min(len(tokens), 2 + n * 5)
            tokens.insert(last, name)
        out: list[str] = []
        length = 0
        for i, token in enumerate(tokens):
            if length >= chars and i > last:
                break
            starts = i == 0 or out[-1].endswith(".")
            out.append(token[:1].upper() + token[1:] if starts else token)
            if i % 11 == 10:
                out[-1] += "."
            length += len(token) + 1
        return " ".join(out).rstrip(".") + "."

    def unit_vectors(self, n: int) -> npt.NDArray[np.float32]:
        """``n`` random 384-d unit vectors (float32)."""
        matrix = self.rng.standard_normal((n, DIM), dtype=np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix

    def targets(self, n: int, available: int) -> npt.NDArray[np.int64]:
        """``n`` target indices in ``0..available-1``, power-law: low indices are hubs."""
        u = self.rng.random(n)
        return np.minimum((available * u**_SKEW).astype(np.int64), available - 1)

    # ----------------------------------------------------------------- bundles
    def bundle(self, number: int, size: int) -> DocumentBundle:
        """Bundle ``number``: ``size`` new entities, one chunk each, five relations each."""
        scope = self.scope
        doc_id = stable_id("doc", scope, f"synthetic:{number}")
        first = len(self.state.entity_ids)
        names = [self.name() for _ in range(size)]
        ids = [Entity.make_id(scope, n) for n in names]
        self.state.entity_ids.extend(ids)
        self.state.names.extend(names)
        available = len(self.state.entity_ids)
        entity_vectors = self.unit_vectors(size)
        chunk_vectors = self.unit_vectors(size)
        types = self.rng.integers(len(ENTITY_TYPES), size=size)
        targets = self.targets(size * RELATIONS_PER_ENTITY, available)
        rel_types = self.rng.integers(len(RELATION_TYPES), size=size * RELATIONS_PER_ENTITY)

        chunks: list[Chunk] = []
        mentions: list[Mention] = []
        writes: list[EntityWrite] = []
        relations: dict[str, Relation] = {}
        offset = 0
        for i, (name, entity_id) in enumerate(zip(names, ids, strict=True)):
            chunk_id = stable_id("chk", doc_id, str(i))
            # the chunk mentions its entity and the in-bundle targets of its first two edges
            linked = [
                int(t) for t in targets[i * RELATIONS_PER_ENTITY : i * RELATIONS_PER_ENTITY + 2]
            ]
            local = [t for t in linked if t >= first and t != first + i]
            text = self.text([name, *(self.state.names[t] for t in local)])
            chunks.append(
                Chunk(
                    id=chunk_id,
                    document_id=doc_id,
                    seq=i,
                    start=offset,
                    end=offset + len(text),
                    text=text,
                    token_count=len(text) // 4,
                    embedding=chunk_vectors[i],
                )
            )
            offset += len(text) + 1
            mentions.append(Mention(entity_id, chunk_id, name, 1 + int(i % 3)))
            for t in local:
                mentions.append(Mention(self.state.entity_ids[t], chunk_id, self.state.names[t]))
            entity = Entity(
                id=entity_id,
                name=name,
                type=ENTITY_TYPES[int(types[i])],
                scope=scope,
                description=self.text([name], 120),
                salience=float(1 + i % 5),
                embedding=entity_vectors[i],
            )
            writes.append(EntityWrite(entity, entity.description, entity.salience))
            for j in range(RELATIONS_PER_ENTITY):
                r = i * RELATIONS_PER_ENTITY + j
                target = self.state.entity_ids[int(targets[r])]
                if target == entity_id:
                    continue
                rel_type = RELATION_TYPES[int(rel_types[r])]
                rel_id = Relation.make_id(scope, entity_id, rel_type, target)
                rel = relations.get(rel_id)
                if rel is None:
                    rel = Relation(
                        id=rel_id,
                        source_id=entity_id,
                        target_id=target,
                        type=rel_type,
                        scope=scope,
                        fact=f"{name} {rel_type.lower().replace('_', ' ')} "
                        f"{self.state.names[int(targets[r])]}",
                        weight=0.0,
                    )
                    relations[rel_id] = rel
                rel.evidence.append(Evidence(chunk_id, rel.fact, 0, len(text)))
                rel.weight = float(len(rel.evidence))
        body = "\n".join(c.text for c in chunks)
        document = Document(
            id=doc_id,
            title=f"Synthetic document {number}",
            content_hash=content_hash(body),
            scope=scope,
            source=f"synthetic:{number}",
            status=DocStatus.DONE,
            char_count=len(body),
        )
        return DocumentBundle(document, chunks, writes, mentions, list(relations.values()))

    def bundles(self, entities: int, batch: int) -> Iterator[DocumentBundle]:
        """Bundles of ``batch`` entities until ``entities`` exist."""
        number = 0
        while len(self.state.entity_ids) < entities:
            size = min(batch, entities - len(self.state.entity_ids))
            yield self.bundle(number, size)
            number += 1


def typo(name: str, rng: np.random.Generator) -> str:
    """``name`` with one typing error: a dropped, doubled, swapped or replaced letter."""
    letters = [i for i, c in enumerate(name) if c.isalpha()]
    if len(letters) < 3:
        return name + "e"
    i = letters[int(rng.integers(1, len(letters) - 1))]
    kind = int(rng.integers(4))
    if kind == 0:
        return name[:i] + name[i + 1 :]
    if kind == 1:
        return name[:i] + name[i] + name[i:]
    if kind == 2 and i + 1 < len(name):
        return name[:i] + name[i + 1] + name[i] + name[i + 2 :]
    replacement = "aeiou"[int(rng.integers(5))] if name[i] not in "aeiou" else "x"
    return name[:i] + replacement + name[i + 1 :]
