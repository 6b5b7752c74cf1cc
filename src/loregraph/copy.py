"""Copying a whole store, or some of its scopes, from one backend to another.

The copy goes through the :class:`~loregraph.store.base.Store` contract only: each source
document is read back as the bundle that rebuilds it (:meth:`Store.read_bundle`) and written
with :meth:`Store.write_document`, oldest first, so that the copy holds the same ids, texts,
embeddings, entities, relations, evidence, temporal fields and merge records, and answers
the same questions.

Rules:

* **Resumable.** A source document the destination already holds with the same content
  hash is skipped, so an interrupted copy is finished by running it again.
* **No silent mixing.** By default the destination scope must hold nothing but documents of
  the source (an empty scope, or an earlier partial copy). Otherwise the copy is refused
  before anything is written (:class:`CopyConflictError`).
* **Merge** (``merge=True``, ``--merge``): the source's documents are added to whatever the
  destination scope holds. A document with the same content hash as one already there is
  skipped (as ingestion skips it); one with the same id and other content replaces it;
  entities with the same name become one entity, as they do on ingestion. The destination
  then answers from both.

With the documents go each scope's merge decisions, audit log, grants and links, and, only
when asked (``keys=True``, ``--with-keys``: they are credentials), the API keys, as hashes,
and the grants for every scope (:mod:`loregraph.engine.carry`).

Not copied: the LLM response cache (the contract has no way to list it; it only saves LLM
calls) and the graph version counters; entity ``updated_at`` becomes the copy's time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loregraph.access import Principal, check_name
from loregraph.engine.carry import Carried, carry_keys, carry_records
from loregraph.engine.keys import granted_roles
from loregraph.errors import (
    ConfigError,
    EmptyStoreError,
    LoregraphError,
    NotFoundError,
    StoreError,
)
from loregraph.ingest.progress import NullProgress, Progress
from loregraph.location import Location
from loregraph.models import Document, DocumentBundle, EntityWrite, StoreStats
from loregraph.store.base import Store
from loregraph.store.visible import VisibleStore

STAGE = "copy"
"""The progress stage name the copy reports under."""

_COMPARED = ("documents", "chunks", "entities", "relations", "mentions")


class CopyConflictError(LoregraphError):
    """The destination holds documents the source does not: copying would mix two graphs."""

    exit_code = 8


@dataclass(slots=True)
class ScopeCopy:
    """What the copy did in one scope, with both stores' counts afterwards."""

    scope: str
    documents: int = 0
    """Documents of the scope in the source."""
    copied: int = 0
    skipped: int = 0
    """Source documents the destination already held (same content hash)."""
    source: StoreStats = field(default_factory=StoreStats)
    dest: StoreStats = field(default_factory=StoreStats)
    records: Carried = field(default_factory=Carried)
    """The merge decisions and audit entries carried, and how many each store holds."""

    @property
    def differences(self) -> list[str]:
        """Counts that differ between source and destination (empty: they match)."""
        found = [
            f"{name}: {getattr(self.source, name)} in the source, {getattr(self.dest, name)} "
            "in the destination"
            for name in _COMPARED
            if getattr(self.source, name) != getattr(self.dest, name)
        ]
        for name in ("entity_types", "relation_types"):
            if getattr(self.source, name) != getattr(self.dest, name):
                found.append(f"{name.replace('_', ' ')} differ")
        for name, (ours, theirs) in (self.records.held or {}).items():
            if ours != theirs:
                found.append(f"{name}: {ours} in the source, {theirs} in the destination")
        return found


@dataclass(slots=True)
class CopyReport:
    """The outcome of :func:`copy_store`."""

    scopes: list[ScopeCopy] = field(default_factory=list)
    merge: bool = False
    seconds: float = 0.0
    keys: int | None = None
    """API keys added or revoked (``None``: keys were not copied)."""

    @property
    def copied(self) -> int:
        """Documents written."""
        return sum(s.copied for s in self.scopes)

    @property
    def skipped(self) -> int:
        """Documents the destination already held."""
        return sum(s.skipped for s in self.scopes)

    @property
    def matches(self) -> bool:
        """Whether every scope's counts are the same in both stores."""
        return all(not s.differences for s in self.scopes)

    def summary(self) -> str:
        """A few human-readable lines."""
        lines = [
            f"copied {self.copied} documents ({self.skipped} already present) in "
            f"{len(self.scopes)} scope(s) in {self.seconds:.1f}s"
        ]
        for s in self.scopes:
            d = s.dest
            lines.append(
                f"  {s.scope}: {d.documents} documents, {d.chunks} chunks, {d.entities} "
                f"entities, {d.relations} relations, {d.mentions} mentions"
            )
            lines.append(
                f"    carried {s.records.decisions} merge decisions and {s.records.audit} "
                "audit entries"
            )
            if s.differences and not self.merge:
                lines.append("    differs from the source: " + "; ".join(s.differences))
        if self.keys is not None:
            lines.append(
                f"API keys and grants for every scope: {self.keys} added or revoked "
                "(key hashes; no secret)"
            )
        if not self.merge:
            lines.append(
                "the destination matches the source"
                if self.matches
                else "the destination does not match the source"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "copied": self.copied,
            "skipped": self.skipped,
            "merge": self.merge,
            "matches": self.matches,
            "seconds": round(self.seconds, 3),
            "keys": self.keys,
            "scopes": [
                {
                    "scope": s.scope,
                    "documents": s.documents,
                    "copied": s.copied,
                    "skipped": s.skipped,
                    "decisions": s.records.decisions,
                    "audit": s.records.audit,
                    "dest": {name: getattr(s.dest, name) for name in _COMPARED},
                    "differences": s.differences,
                }
                for s in self.scopes
            ],
        }


@dataclass(slots=True)
class _Plan:
    scope: ScopeCopy
    todo: list[Document]


async def copy_store(
    source: Store,
    dest: Store,
    *,
    scopes: Sequence[str] | None = None,
    merge: bool = False,
    progress: Progress | None = None,
    batch: int = 16,
    keys: bool = False,
    records: bool = True,
) -> CopyReport:
    """Copy ``scopes`` (default: every scope) of the opened ``source`` into ``dest``, with
    their merge decisions and audit log (unless not ``records``), and the API keys (hashes)
    when ``keys``.

    ``batch`` is how many documents are read ahead of the writer. Raises
    :class:`CopyConflictError` (before writing anything) when a destination scope holds
    documents the source does not and ``merge`` is false, :class:`NotFoundError` for a
    scope the source does not hold, :class:`StoreError` when the source's backend cannot
    read documents back (:meth:`Store.read_bundle`), and
    :class:`~loregraph.engine.carry.KeyConflictError` for a key name both hold.
    """
    if source is dest:
        raise ValueError("the source and the destination are the same store")
    started = time.perf_counter()
    progress = progress or NullProgress()
    held = await source.scopes()
    wanted = list(dict.fromkeys(scopes)) if scopes else held
    unknown = [scope for scope in wanted if scope not in held]
    if unknown:
        raise NotFoundError(
            f"the source holds no documents in scope(s) {', '.join(map(repr, unknown))}; "
            f"its scopes are: {', '.join(held) or 'none'}"
        )
    try:
        await source.read_bundle("")  # fails now, before anything is written, if unsupported
    except NotImplementedError as exc:
        raise StoreError(f"cannot copy from this store: {exc}") from exc
    plans = [await _plan(source, dest, scope, merge) for scope in wanted]
    report = CopyReport(merge=merge)
    if keys:
        report.keys = await carry_keys(source, dest)
    progress.start(STAGE, sum(len(plan.todo) for plan in plans))
    try:
        for plan in plans:
            await _copy_documents(source, dest, plan, merge, progress, max(1, batch))
            if records:
                plan.scope.records = await carry_records(source, dest, plan.scope.scope)
            plan.scope.source = await source.stats(plan.scope.scope)
            plan.scope.dest = await dest.stats(plan.scope.scope)
            report.scopes.append(plan.scope)
    finally:
        progress.finish(STAGE)
    report.seconds = time.perf_counter() - started
    return report


async def _plan(source: Store, dest: Store, scope: str, merge: bool) -> _Plan:
    """Which source documents of ``scope`` to write; refuses a conflicting destination."""
    docs = await source.list_documents(scope, limit=None)
    held = await dest.list_documents(scope, limit=None)
    by_id = {doc.id: doc.content_hash for doc in docs}
    if not merge:
        foreign = [doc for doc in held if by_id.get(doc.id) != doc.content_hash]
        if foreign:
            raise CopyConflictError(
                f"the destination scope {scope!r} holds {len(foreign)} document(s) that are "
                f"not in the source (first: {foreign[0].title!r}): copy into an empty store "
                "or scope, or pass --merge (merge=True) to add the source's documents to it"
            )
    present = {(doc.id, doc.content_hash) for doc in held}
    hashes = {doc.content_hash for doc in held} if merge else set()
    todo = [
        doc
        for doc in docs
        if (doc.id, doc.content_hash) not in present and doc.content_hash not in hashes
    ]
    return _Plan(ScopeCopy(scope, documents=len(docs), skipped=len(docs) - len(todo)), todo)


async def _copy_documents(
    source: Store, dest: Store, plan: _Plan, merge: bool, progress: Progress, ahead: int
) -> None:
    """Read bundles ahead of a single writer (reads and writes overlap; writes stay in order)."""
    queue: asyncio.Queue[DocumentBundle | None] = asyncio.Queue(maxsize=ahead)

    async def read() -> None:
        for doc in plan.todo:
            bundle = await source.read_bundle(doc.id)
            if bundle is not None:  # deleted from the source meanwhile: nothing to copy
                await queue.put(bundle)
        await queue.put(None)

    reader = asyncio.create_task(read())
    known: set[str] = set()
    try:
        while (bundle := await queue.get()) is not None:
            await _add_unlisted(source, dest, bundle, known)
            try:
                await dest.write_document(bundle)
            except ValueError as exc:
                raise StoreError(
                    f"document {bundle.document.id} ({bundle.document.title!r}) could not be "
                    f"copied: {exc}"
                ) from exc
            if not merge:  # with merge, an entity may land on another id (same name)
                known.update(write.entity.id for write in bundle.entities)
            plan.scope.copied += 1
            progress.advance(STAGE)
        await reader
    finally:
        if not reader.done():
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)


async def _add_unlisted(
    source: Store, dest: Store, bundle: DocumentBundle, known: set[str]
) -> None:
    """Add the entities the bundle refers to but does not list and ``dest`` lacks.

    That happens when the document that listed an entity was deleted or replaced while
    this one still mentions it. They are added with no description of this document's, so
    the destination's derived values stay those of the source.
    """
    listed = {write.entity.id for write in bundle.entities}
    referenced = {mention.entity_id for mention in bundle.mentions}
    referenced.update(merge.entity_id for merge in bundle.merges)
    for relation in bundle.relations:
        referenced.update((relation.source_id, relation.target_id))
    missing = sorted(referenced - listed - known)
    if not missing:
        return
    found = {entity.id for entity in await dest.get_entities(missing)}
    known.update(found)
    absent = [entity_id for entity_id in missing if entity_id not in found]
    if not absent:
        return
    vectors = await source.entity_embeddings(absent)
    for entity in await source.get_entities(absent):
        entity.embedding = vectors.get(entity.id)
        entity.description, entity.aliases = "", []
        bundle.entities.append(EntityWrite(entity, "", entity.salience))


async def copy_locations(
    source: str | Path | Location,
    dest: str | Path | Location,
    *,
    scopes: Sequence[str] | None = None,
    merge: bool = False,
    progress: Progress | None = None,
    keys: bool = False,
    as_principal: str | None = None,
) -> CopyReport:
    """Open the stores at two locations (paths, URLs or parsed), copy (API keys too when
    ``keys``), and close them.

    With ``as_principal``, only what that principal sees is copied (its grants in the
    source decide): the graph built from the documents it may read, without merge
    decisions, audit log, keys, grants or links.

    Raises :class:`EmptyStoreError` when there is no store at a ``source`` path or it holds
    no documents, :class:`~loregraph.errors.ConfigError` for an unknown URL scheme or when
    both locations are the same store, and what opening a store raises (unreachable
    server: :class:`StoreError`; a newer schema: ``SchemaVersionError``).
    """
    from loregraph.store.urls import store_for_url

    source, dest = Location.parse(source), Location.parse(dest)
    if source.same_store(dest):
        raise ConfigError(f"the source and the destination are the same store: {source}")
    if keys and as_principal is not None:
        raise ConfigError("--with-keys does not go with --as: keys are not a view")
    if as_principal is not None:
        as_principal = check_name(as_principal, "the principal to copy as (--as)")
    if not source.exists():
        raise EmptyStoreError(f"no store at {source}")
    source_store, dest_store = store_for_url(source), store_for_url(dest)
    async with source_store:
        if not await source_store.scopes():
            raise EmptyStoreError(f"the source store {source} holds no documents")
        async with dest_store:
            if as_principal is None:
                return await copy_store(
                    source_store,
                    dest_store,
                    scopes=scopes,
                    merge=merge,
                    progress=progress,
                    keys=keys,
                )
            roles = granted_roles(await source_store.list_grants(as_principal))
            return await copy_store(
                VisibleStore(source_store, Principal(as_principal, roles)),
                dest_store,
                scopes=scopes,
                merge=merge,
                progress=progress,
                records=False,
            )
