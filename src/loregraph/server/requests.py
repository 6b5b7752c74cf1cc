"""The bodies the API accepts, as pydantic models (so ``/openapi.json`` documents them).

Limits that depend on the server's configuration (the longest question) are checked by the
routes; the rest is checked here.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Annotated, Any, Literal, Self

from fastapi import Query
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    model_validator,
)

from loregraph import FORMATS_HINT, MIN_BUDGET, ContextFormat, has_surrogates, user_time

Preset = Literal["global", "hybrid", "local", "passages", "ppr"]
"""A retrieval preset's name (a test keeps this list equal to the engine's presets)."""


def _moment(end_of_day: bool) -> BeforeValidator:
    """Read a time as every face reads one (:func:`~loregraph.text.dates.user_time`):
    ISO 8601 or a phrase such as "last month"; never a number, which pydantic would read
    as seconds since 1970."""

    def read(value: Any) -> Any:
        text = value.decode() if isinstance(value, bytes) else value
        if isinstance(text, bool | int | float) or (isinstance(text, str) and _numeric(text)):
            raise ValueError(f"a time is text, not a number: {FORMATS_HINT}")
        if isinstance(text, str):
            return user_time(text, end_of_day=end_of_day)  # ValueError naming the forms
        return value

    return BeforeValidator(read)


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


TIME_SCHEMA = WithJsonSchema(
    {
        "type": "string",
        "description": "ISO 8601 (2026-01-15, 2026-01-15T09:30, 2026-01-15T09:30+02:00; UTC "
        "unless an offset is given) or a phrase such as 'yesterday' or 'last month'.",
        "examples": ["2026-01-15", "2026-01-15T09:30:00Z", "last month"],
    }
)
Moment = Annotated[datetime, _moment(False), TIME_SCHEMA]
"""A point in time as the API takes it: ISO 8601 text (no zone: UTC; a date alone: its
start) or a phrase such as "last month", read as the CLI reads it; never a number."""
Until = Annotated[datetime, _moment(True), TIME_SCHEMA]
"""A time closing a range: as :data:`Moment`, but a date alone is its end (as ``--until``)."""


class Body(BaseModel):
    """A request body: unknown fields are refused, and so is text that is not Unicode (a
    lone surrogate such as ``"\\ud800"``, which no store can keep)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="after")
    def _unicode(self) -> Self:
        for value in _strings(self.model_dump()):
            if has_surrogates(value):
                raise ValueError("text must be valid Unicode (it holds a lone surrogate)")
        return self


VisibilityName = Literal["public", "private", "personal"]
"""Who may read a document or memory."""


class Readers(Body):
    """Who may read what a request writes: ``visibility`` and ``owner``."""

    visibility: VisibilityName | None = Field(
        None,
        description="public (anyone who reads the scope), private (its writers) or personal "
        "(only its owner). Default public; a document sent again keeps its own.",
    )
    owner: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="The principal it belongs to (a personal one's default: the key's).",
    )


def _strings(value: Any) -> Iterator[str]:
    """Every string in ``value`` (keys of mappings included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


class AskRequest(Body):
    """A question to answer with citations."""

    question: str = Field(min_length=1, description="The question.")
    preset: Preset | None = Field(None, description="Retrieval preset (default: the server's).")
    as_of: Moment | None = Field(
        None,
        description="See the world as it stood then (ISO 8601 or a phrase such as 'last "
        "month'); content with no stated time is timeless (the time rule: README, 'Time: "
        "--as-of and --known-at').",
    )
    known_at: Moment | None = Field(
        None, description="See only what the store knew at this time (the same rule)."
    )
    show_ended: bool | None = Field(
        None,
        description="Show facts that have ended, marked as ended ('until 2026-02-10; "
        "replaced by Hono'), or leave them out (default: the server's setting, off).",
    )
    only: Literal["memories", "documents"] | None = Field(
        None, description="Retrieve from memories only, or from documents only."
    )
    conversation: str | None = Field(
        None,
        max_length=200,
        description="The conversation the question belongs to: the names its questions "
        "resolved are remembered for the next ones (until the graph changes).",
    )
    persona: str | None = Field(
        None,
        max_length=100,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
        description="Ask through a persona (biographer, friend, colleague, family, or one "
        "of the server's persona directory).",
    )
    history: list[Annotated[str, Field(max_length=10_000)]] = Field(
        default_factory=list,
        max_length=20,
        description="The conversation's earlier turns, oldest first: 'her' or 'that place' "
        "in the question stands for what they named last.",
    )


class ContextRequest(AskRequest):
    """A question whose graph-augmented context to build."""

    format: ContextFormat = Field("markdown", description="The context's layout.")
    budget: int | None = Field(
        None, ge=MIN_BUDGET, description="Token budget (default 4000).", le=1_000_000
    )


class RememberRequest(Readers):
    """A memory to store."""

    text: str = Field(min_length=1, description="What to remember.")
    at: Moment | None = Field(
        None,
        description="When it happened (ISO 8601, without a zone UTC, or a phrase such as "
        "'yesterday'; default now). A time after now is refused unless `planned`.",
    )
    planned: bool = Field(
        False,
        description="A plan: `at` may be after now, and its facts hold only from then on.",
    )
    tags: list[str] = Field(default_factory=list, max_length=100)
    source: str | None = Field(None, max_length=500, description="Where it comes from.")
    metadata: dict[str, Any] = Field(default_factory=dict)


class MergeRequest(Body):
    """Two entities to join by hand: ``other`` is merged into ``name``."""

    name: str = Field(
        min_length=1,
        max_length=500,
        description="The entity that stays: its exact name, an alias or its id.",
    )
    other: str = Field(
        min_length=1,
        max_length=500,
        description="The entity merged into it, named exactly too (its names stay as aliases).",
    )


class RenameRequest(Body):
    """An entity and its new name (its id, mentions and relations stay)."""

    name: str = Field(min_length=1, max_length=500, description="The entity's name or alias.")
    new_name: str = Field(min_length=1, max_length=500, description="Its new name.")


class RetypeRequest(Body):
    """An entity and its new type."""

    name: str = Field(min_length=1, max_length=500, description="The entity's name or alias.")
    type: str = Field(
        min_length=1,
        max_length=100,
        description="Its type: Person, Organization, Location, Product, Concept, Event, "
        "Role, Time or Code (or a word for one, such as company), or a type the scope's "
        "entities already have; any other is refused (422, the known types as "
        "`candidates`) unless new_type is true.",
    )
    new_type: bool = Field(
        False, description="Create the type as given when it is none of the known types."
    )


class IngestTextRequest(Readers):
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


class IngestPathsRequest(Readers):
    """Files or folders on the server's machine, inside the folders it allows."""

    paths: list[str] = Field(min_length=1, max_length=100, description="Paths to ingest.")


class BackfillRequest(Body):
    """A backfill of the key's scope (both fields optional)."""

    rate: float | None = Field(
        None, gt=0, strict=True, description="At most this many documents per second."
    )
    limit: int | None = Field(
        None, ge=1, strict=True, description="At most this many documents in this run."
    )


TIME_RULE = "(the time rule: README, 'Time: --as-of and --known-at')"
AsOf = Annotated[
    Moment | None,
    Query(
        description="Only relations true at this world time (ISO 8601; default now; no "
        f"zone: UTC); content with no stated time is timeless {TIME_RULE}."
    ),
]
KnownAt = Annotated[
    Moment | None,
    Query(description=f"Only what the store knew at this time {TIME_RULE}."),
]
