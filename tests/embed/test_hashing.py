"""The feature-hashing embedder: deterministic, normalised, similarity-preserving."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from loregraph.embed.base import Embedder
from loregraph.embed.hashing import HashingEmbedder


def test_implements_the_embedder_protocol() -> None:
    embedder = HashingEmbedder()
    assert isinstance(embedder, Embedder)
    assert embedder.dim == 256
    assert embedder.name


def test_shape_dtype_and_unit_norm() -> None:
    vectors = HashingEmbedder(dim=64).embed(["Count Dracula", "a castle in the mountains"])
    assert vectors.shape == (2, 64)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)


def test_empty_input_gives_empty_matrix() -> None:
    assert HashingEmbedder(dim=32).embed([]).shape == (0, 32)


def test_text_without_words_is_the_zero_vector() -> None:
    vectors = HashingEmbedder().embed(["", "  ...  "])
    assert not vectors.any()


def test_case_insensitive_and_batch_independent() -> None:
    embedder = HashingEmbedder()
    alone = embedder.embed(["Jonathan Harker"])[0]
    batch = embedder.embed(["something else", "JONATHAN HARKER"])
    assert np.array_equal(alone, batch[1])


def test_similar_texts_are_closer_than_unrelated_ones() -> None:
    a, b, c = HashingEmbedder().embed(
        [
            "the vampire sleeps in his coffin at the castle",
            "the vampire sleeps in a coffin in the castle",
            "quarterly revenue grew by four percent",
        ]
    )
    assert float(a @ b) > float(a @ c) + 0.3


def test_stable_across_processes() -> None:
    """Python's hash() is salted per process; the embedder must not depend on it."""
    code = (
        "from loregraph.embed.hashing import HashingEmbedder;"
        "print(HashingEmbedder(16).embed(['Mina Murray'])[0].round(5).tolist())"
    )
    search_path = os.pathsep.join(p for p in sys.path if p)
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PYTHONPATH": search_path},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(runs) == 1


def test_rejects_non_positive_dim() -> None:
    with pytest.raises(ValueError):
        HashingEmbedder(dim=0)
