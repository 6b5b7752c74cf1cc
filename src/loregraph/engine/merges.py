"""Corrections (``graph.corrections``, :class:`Corrections`): merges listed, undone and made
by hand, entities renamed and retyped.

Undoing a merge remembers the split (the store's merge decisions, honoured by every later
ingest) and processes the document that caused it again through the ingest pipeline
(:mod:`loregraph.ingest.redo`): its other names keep the links they had, so exactly what
the merge joined goes back to an entity of its own, with its aliases, mentions, relations
and evidence. A merge by hand is a remembered decision too (whatever resolves to the merged
entity resolves to the kept one), applied by processing the merged entity's documents again;
undoing it forgets the decision and processes them once more. Every change is written to the
audit log with its time and principal.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from loregraph.access import Role, require
from loregraph.engine.core import Section, actor
from loregraph.engine.lookup import exact_entity, find_entity
from loregraph.engine.merge_views import MergeView, list_merge_views
from loregraph.errors import AlreadyDoneError, InputError, NotFoundError
from loregraph.ingest.pipeline import IngestPipeline
from loregraph.ingest.redo import reprocess
from loregraph.ingest.resolve.decisions import MANUAL, SAME_KEY_RULES
from loregraph.models import Entity, Merge, name_key
from loregraph.store.changes import JOIN, SPLIT, AuditEntry, Decision
from loregraph.text.entity_types import TYPES, known_type

if TYPE_CHECKING:
    pass


class Corrections(Section):
    """Merges you can see and undo, and hand corrections (``graph.corrections``). ``by``
    names who made a change for the audit log (the command line passes the OS user;
    default: who the engine acts for)."""

    async def merges(
        self, *, entity: str | None = None, undone: bool = False, scope: str | None = None
    ) -> list[MergeView]:
        """Every merge of the scope (or of the entity called ``entity``), newest first:
        the names, the rule, the score and the document that caused it. ``undone=True``
        lists undone merges too."""
        await self.core.open()
        scope = self.core._scope(scope)
        found = None if entity is None else await find_entity(self.core.store, scope, entity)
        return await list_merge_views(self.core.store, scope, found, undone)

    async def unmerge(self, merge_id: str, *, by: str = "", scope: str | None = None) -> MergeView:
        """Undo a merge (by the id :meth:`merges` lists): what it joined becomes an entity of
        its own again, and no later ingest merges it back. Returns the merge, marked undone
        (its ``principal``: who undid it).

        Raises :class:`~loregraph.errors.NotFoundError` for an unknown merge (its subclass
        :class:`~loregraph.errors.AlreadyDoneError` for one already undone) and
        :class:`~loregraph.errors.InputError` for a merge of names with one name key (one
        entity by construction: rename it instead).
        """
        await self.core.open()
        scope = self.core._scope(scope)
        require(self.core.principal, scope, Role.WRITER, "undo merges")
        by = actor(self.core.principal, by)
        async with self.core.correcting:  # one undo at a time: the check below stays true
            views = {v.id: v for v in await list_merge_views(self.core.store, scope, None, True)}
            view = views.get(merge_id)
            if view is None:
                raise NotFoundError(f"no merge {merge_id!r} in scope {scope!r}")
            if view.undone:
                raise AlreadyDoneError(f"merge {merge_id!r} was already undone")
            if view.rule in SAME_KEY_RULES:
                raise InputError(
                    f"{view.surface!r} and {view.entity!r} are one name (rule {view.rule!r}) "
                    "and cannot be told apart: rename the entity instead"
                )
            if view.rule == MANUAL:
                await self._undo_join(scope, view, by)
            else:
                await self._undo_merge(scope, view, by)
            detail = f"{view.surface} out of {view.entity} (rule {view.rule})"
            await self._audit(scope, "unmerge", merge_id, detail, by)
        return dataclasses.replace(view, undone=True, principal=by)

    async def merge(
        self, name: str, other: str, *, by: str = "", scope: str | None = None
    ) -> MergeView:
        """Merge the entity called ``other`` into the one called ``name`` by hand (rule
        ``manual``; undo it with :meth:`unmerge`). Returns the merge.

        Both are named exactly: an id, a name or an alias (case, accents, punctuation and a
        leading article aside). Raises :class:`~loregraph.errors.NotFoundError` for a name
        no entity has (the close names offered as "did you mean", never merged) and
        :class:`~loregraph.errors.InputError` when both are one entity."""
        await self.core.open()
        scope = self.core._scope(scope)
        require(self.core.principal, scope, Role.WRITER, "merge entities")
        by = actor(self.core.principal, by)
        async with self.core.correcting:
            kept = await exact_entity(self.core.store, scope, name)
            gone = await exact_entity(self.core.store, scope, other)
            if kept.id == gone.id:
                raise InputError(f"{name!r} and {other!r} are already one entity ({kept.name!r})")
            if Entity.make_id(scope, gone.name) != gone.id:
                raise InputError(f"{gone.name!r} was renamed: rename it back before merging it")
            merge_id = Merge(kept.id, gone.name, MANUAL, scope=scope).id
            decision = Decision(JOIN, merge_id, kept.id, gone.name, scope, principal=by)
            await self._decide(decision, await self._documents_of(scope, gone.id))
            detail = f"{gone.name} into {kept.name}"
            await self._audit(scope, "merge", merge_id, detail, by)
        return MergeView(
            merge_id, gone.name, kept.name, kept.id, MANUAL, 1.0, None, "",
            decision.created_at, by,
        )  # fmt: skip

    async def rename(
        self, name: str, new_name: str, *, by: str = "", scope: str | None = None
    ) -> Entity:
        """Give the entity called ``name`` a new name (its id, mentions and relations stay).

        ``name`` is exact, as :meth:`merge` takes it. Raises
        :class:`~loregraph.errors.NotFoundError` for a name no entity has and
        :class:`~loregraph.errors.InputError` when another entity has the new name (merge
        them instead)."""
        await self.core.open()
        scope = self.core._scope(scope)
        require(self.core.principal, scope, Role.WRITER, "rename entities")
        by = actor(self.core.principal, by)
        entity = await exact_entity(self.core.store, scope, name)
        taken = (await self.core.store.find_entities_by_key(scope, [name_key(new_name)])).get(
            name_key(new_name)
        )
        if not new_name.strip() or (taken is not None and taken.id != entity.id):
            reason = "is another entity: merge them" if new_name.strip() else "is empty"
            raise InputError(f"cannot rename {entity.name!r}: {new_name!r} {reason}")
        renamed = await self.core.store.update_entity(entity.id, name=new_name.strip())
        await self._audit(scope, "rename", entity.name, f"to {renamed.name}", by)
        return renamed

    async def retype(
        self,
        name: str,
        entity_type: str,
        *,
        new_type: bool = False,
        by: str = "",
        scope: str | None = None,
    ) -> Entity:
        """Give the entity called ``name`` (exact, as :meth:`merge` takes it) another type:
        a graph type or a word for one (``"organisation"`` is ``Organization``), or a type
        the scope's entities already have. Another type is created as given only with
        ``new_type=True``.

        Raises :class:`~loregraph.errors.NotFoundError` for a name no entity has and
        :class:`~loregraph.errors.InputError` for an unknown type (the known types as its
        ``candidates``)."""
        await self.core.open()
        scope = self.core._scope(scope)
        require(self.core.principal, scope, Role.WRITER, "retype entities")
        by = actor(self.core.principal, by)
        entity = await exact_entity(self.core.store, scope, name)
        kind = await self._entity_type(scope, entity_type, new_type)
        retyped = await self.core.store.update_entity(entity.id, entity_type=kind)
        await self._audit(scope, "retype", entity.name, f"{entity.type} to {kind}", by)
        return retyped

    # ------------------------------------------------------------------ helpers
    def _pipeline(self) -> IngestPipeline:
        return self.core._pipeline(contradict=False)

    async def _undo_merge(self, scope: str, view: MergeView, by: str) -> None:
        """Remember the split and process the merge's document again; a merge the pipeline
        makes again anyway (names of one key) is refused, and the document processed once
        more without the split."""
        split = Decision(
            SPLIT, view.id, view.entity_id, view.surface, scope, view.rule, view.score,
            view.document_id, by,
        )  # fmt: skip
        documents = [view.document_id] if view.document_id else []
        await self._decide(split, documents)
        if any(m.id == view.id for m in await self.core.store.list_merges(scope, view.entity_id)):
            await self.core.store.remove_decision(scope, SPLIT, view.id)
            await reprocess(self._pipeline(), scope, documents)  # as it was without the split
            raise InputError(
                f"merge {view.id!r} cannot be undone: ingest takes {view.surface!r} and "
                f"{view.entity!r} for one name (rename the entity instead)"
            )

    async def _undo_join(self, scope: str, view: MergeView, by: str) -> None:
        """Turn a merge by hand into a split and process the documents it changed again."""
        merged = await self.core.store.list_merges(scope, view.entity_id)
        documents = sorted({m.document_id for m in merged if m.rule == MANUAL and m.document_id})
        split = Decision(SPLIT, view.id, view.entity_id, view.surface, scope, MANUAL, 1.0, None,
                         by)  # fmt: skip
        await self.core.store.add_decision(split)
        await self.core.store.remove_decision(scope, JOIN, view.id)
        await reprocess(self._pipeline(), scope, documents)

    async def _decide(self, decision: Decision, documents: list[str]) -> None:
        """Remember a decision and process these documents again; forget it if that fails."""
        await self.core.store.add_decision(decision)
        try:
            await reprocess(self._pipeline(), decision.scope, documents)
        except BaseException:
            await self.core.store.remove_decision(decision.scope, decision.kind, decision.merge_id)
            raise

    async def _entity_type(self, scope: str, given: str, new_type: bool) -> str:
        """The type ``given`` names (see :meth:`retype`), or :class:`InputError`."""
        if not given.strip():
            raise InputError("an entity type must not be empty")
        kind = known_type(given)
        if kind is not None:
            return kind
        held = [t for t in (await self.core.store.stats(scope)).entity_types if t not in TYPES]
        same = [t for t in held if t.casefold() == given.strip().casefold()]
        if same:
            return same[0]
        if new_type:
            return given.strip()
        known = [*TYPES, *sorted(held)]
        raise InputError(
            f"unknown entity type {given!r}; known types: {', '.join(known)} "
            "(to create it, retype with a new type allowed: --new-type, or new_type: true "
            "over HTTP)",
            candidates=known,
        )

    async def _documents_of(self, scope: str, entity_id: str) -> list[str]:
        """The ids of the documents that mention an entity, oldest first."""
        arrays = await self.core.store.graph_arrays(scope)
        if entity_id not in arrays.entity_ids:
            return []
        index = arrays.entity_ids.index(entity_id)
        pairs = zip(arrays.mention_entity.tolist(), arrays.mention_chunk.tolist(), strict=True)
        chunks = {c for e, c in pairs if e == index}
        mentioned = {arrays.chunk_document[c] for c in chunks}
        return [d.id for d in await self.core.store.list_documents(scope) if d.id in mentioned]

    async def _audit(self, scope: str, action: str, subject: str, detail: str, by: str) -> None:
        entry = AuditEntry(action, subject, detail, by, scope)
        await self.core.store.add_audit(entry)
