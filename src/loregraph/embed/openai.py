"""Embeddings through an OpenAI-compatible ``/v1/embeddings`` API, as an alternative to the
packaged local model.

:class:`OpenAIEmbedder` implements loregraph's synchronous
:class:`~loregraph.embed.base.Embedder` protocol (callers run it in a worker thread), with
the SDK's synchronous client. The SDK's own retries (which honour ``Retry-After``) are
kept here, since this path is synchronous. Vectors are L2-normalised float32.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from loregraph.errors import ConfigError
from loregraph.llm.config import connection
from loregraph.llm.errors import LLMError
from loregraph.llm.sdk import body_message, import_sdk, sdk_client, translate_error
from loregraph.llm.usage import UsageTracker
from loregraph.settings import LLMSettings

KNOWN_DIMENSIONS: dict[str, int] = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
    "nomic-embed-text": 768,
    "mxbai-embed-large": 1024,
    "all-minilm": 384,
}
"""Dimensions of common embedding models; others are probed with one call on first use."""


class OpenAIEmbedder:
    """An :class:`~loregraph.embed.base.Embedder` backed by an OpenAI-compatible server.

    Args:
        model: the embedding model name.
        base_url / api_key / headers / timeout: as for
            :class:`~loregraph.llm.openai_client.OpenAIChat`.
        dim: the vector size; ``None`` looks the model up in :data:`KNOWN_DIMENSIONS` and
            otherwise asks the server once.
        dimensions: ask the server for shorter vectors (``text-embedding-3-*`` only).
        batch_size: texts per request.
        max_retries: the SDK's retries per request (transient errors, ``Retry-After``).
        usage: counts calls and tokens under the stage ``embed``.
        client: an ``openai.OpenAI`` to use instead of creating one.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        dim: int | None = None,
        dimensions: int | None = None,
        batch_size: int = 128,
        max_retries: int = 4,
        usage: UsageTracker | None = None,
        client: Any | None = None,
    ) -> None:
        self.model = model
        self.name = f"openai:{model}" + (f":{dimensions}" if dimensions else "")
        self.dimensions = dimensions
        self.batch_size = max(1, batch_size)
        self.usage = usage or UsageTracker()
        self._openai = import_sdk("openai", "the OpenAI-compatible LLM provider")
        self._client = client or sdk_client(
            self._openai.OpenAI,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            headers=headers,
            max_retries=max_retries,
        )
        self._dim = dim or dimensions or KNOWN_DIMENSIONS.get(model.rsplit("/", 1)[-1])

    @property
    def dim(self) -> int:
        """The vector size (asks the server once when it is not known)."""
        if self._dim is None:
            self._dim = int(self._request(["dimension probe"]).shape[1])
        return self._dim

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed texts; shape ``(len(texts), dim)``, rows L2-normalised."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._request(list(texts[i : i + self.batch_size]))
            for i in range(0, len(texts), self.batch_size)
        ]
        matrix = np.concatenate(parts).astype(np.float32)
        if self._dim is None:
            self._dim = int(matrix.shape[1])
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return np.asarray(matrix / np.where(norms > 0, norms, 1.0), dtype=np.float32)

    def _request(self, texts: list[str]) -> npt.NDArray[np.float32]:
        kwargs: dict[str, Any] = {"model": self.model, "input": [t or " " for t in texts]}
        if self.dimensions:
            kwargs["dimensions"] = self.dimensions
        self.usage.count("embed", calls=1)
        try:
            response = self._client.embeddings.create(**kwargs)
        except self._openai.OpenAIError as exc:
            self.usage.count("embed", failures=1)
            raise translate_error(exc, self._openai, body_message) from exc
        rows = sorted(response.data, key=lambda d: int(getattr(d, "index", 0)))
        if len(rows) != len(texts):
            raise LLMError(
                f"the embedding server returned {len(rows)} vectors for {len(texts)} texts"
            )
        usage = getattr(response, "usage", None)
        self.usage.count("embed", prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0))
        return np.asarray([list(r.embedding) for r in rows], dtype=np.float32)

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()


def build_embedder(
    settings: LLMSettings, *, usage: UsageTracker | None = None
) -> OpenAIEmbedder | None:
    """An :class:`~loregraph.embed.openai.OpenAIEmbedder` when ``embedding_model`` is set
    (OpenAI-compatible providers only), else ``None`` (use the local model)."""
    if not settings.embedding_model:
        return None
    if settings.provider == "anthropic":
        raise ConfigError(
            "Anthropic has no embeddings API; set LOREGRAPH_LLM_EMBEDDING_MODEL only with an "
            "OpenAI-compatible provider, or leave it unset to embed locally"
        )
    return OpenAIEmbedder(
        settings.embedding_model, dim=settings.embedding_dim, usage=usage, **connection(settings)
    )
