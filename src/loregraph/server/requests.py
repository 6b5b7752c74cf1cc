"""The bodies the API accepts, as pydantic models (so ``/openapi.json`` documents them).

Limits that depend on the server's configuration (the longest question) are checked by the
routes; the rest is checked here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from loregraph.settings import MIN_BUDGET

Preset = Literal["global", "hybrid", "local", "passages", "ppr"]
"""A retrieval preset's name (a test keeps this list equal to the engine's presets)."""
ContextFormat = Literal["markdown", "xml", "json", "mermaid"]


class Body(BaseModel):
    """A request body: unknown fields are refused."""

    model_config = ConfigDict(extra="forbid")


class AskRequest(Body):
    """A question to answer with citations."""

    question: str = Field(min_length=1, description="The question.")
    preset: Preset | None = Field(None, description="Retrieval preset (default: the server's).")


class ContextRequest(AskRequest):
    """A question whose graph-augmented context to build."""

    format: ContextFormat = Field("markdown", description="The context's layout.")
    budget: int | None = Field(
        None, ge=MIN_BUDGET, description="Token budget (default 4000).", le=1_000_000
    )


class RememberRequest(Body):
    """A memory to store."""

    text: str = Field(min_length=1, description="What to remember.")
    at: datetime | None = Field(
        None, description="When it happened (ISO 8601; default now; without a zone: UTC)."
    )
    tags: list[str] = Field(default_factory=list, max_length=100)
    source: str | None = Field(None, max_length=500, description="Where it comes from.")
    metadata: dict[str, Any] = Field(default_factory=dict)


class IngestTextRequest(Body):
    """A document given as text in the body."""

    text: str = Field(min_length=1, description="The document's text (plain or Markdown).")
    title: str | None = Field(None, max_length=500, description="Default: its first line.")
    id: str | None = Field(
        None,
        min_length=1,
        max_length=500,
        description="The document's identity: ingesting the same id again replaces it "
        "(default: the hash of its text).",
    )


class IngestPathsRequest(Body):
    """Files or folders on the server's machine, inside the folders it allows."""

    paths: list[str] = Field(min_length=1, max_length=100, description="Paths to ingest.")
