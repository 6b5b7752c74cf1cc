"""The synthetic data of the scale benchmark: realistic shape, deterministic, valid bundles."""

from __future__ import annotations

from collections import Counter

import numpy as np
from bench.synth import RELATIONS_PER_ENTITY, Synthesizer, typo

from loregraph.models import name_key


def test_bundles_hold_the_requested_entities_chunks_and_relations() -> None:
    synth = Synthesizer("s", seed=3, vocabulary=500)
    bundles = list(synth.bundles(1_200, 500))
    assert [len(b.entities) for b in bundles] == [500, 500, 200]
    entity_ids = [w.entity.id for b in bundles for w in b.entities]
    assert len(set(entity_ids)) == 1_200
    assert len({name_key(w.entity.name) for b in bundles for w in b.entities}) == 1_200
    relations = [r for b in bundles for r in b.relations]
    # five per entity, minus the few self-loops and duplicates that are dropped or merged
    assert 0.95 * 5 * 1_200 <= sum(len(r.evidence) for r in relations) <= 5 * 1_200
    assert all(r.source_id != r.target_id for r in relations)
    known = set(entity_ids)
    assert all(r.target_id in known and r.source_id in known for r in relations)


def test_chunks_mention_their_entity_and_vectors_are_unit_float32() -> None:
    bundle = Synthesizer("s", seed=3, vocabulary=500).bundle(0, 200)
    chunks = {c.id: c for c in bundle.chunks}
    for mention in bundle.mentions:
        assert mention.surface in chunks[mention.chunk_id].text
    lengths = [len(c.text) for c in bundle.chunks]
    assert 250 <= float(np.mean(lengths)) <= 350
    for vector in [c.embedding for c in bundle.chunks] + [
        w.entity.embedding for w in bundle.entities
    ]:
        assert vector is not None and vector.dtype == np.float32 and vector.shape == (384,)
        assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-4
    for relation in bundle.relations:
        assert all(ev.chunk_id in chunks for ev in relation.evidence)


def test_target_degree_is_heavy_tailed() -> None:
    bundles = list(Synthesizer("s", seed=5, vocabulary=500).bundles(2_000, 2_000))
    degree = Counter(r.target_id for b in bundles for r in b.relations)
    counts = sorted(degree.values(), reverse=True)
    # a few hubs take a large share while most entities are targeted rarely
    assert counts[0] > 50 * float(np.median(counts))
    assert len(counts) < 2_000


def test_same_seed_gives_the_same_data() -> None:
    a = Synthesizer("s", seed=9, vocabulary=500).bundle(0, 50)
    b = Synthesizer("s", seed=9, vocabulary=500).bundle(0, 50)
    assert [w.entity.name for w in a.entities] == [w.entity.name for w in b.entities]
    assert [c.text for c in a.chunks] == [c.text for c in b.chunks]
    assert RELATIONS_PER_ENTITY == 5


def test_typo_changes_a_name_by_one_edit() -> None:
    rng = np.random.default_rng(0)
    for name in ["Vainddru", "Kaimkaik Duthse", "Ab"]:
        changed = typo(name, rng)
        assert changed != name
        assert abs(len(changed) - len(name)) <= 1
