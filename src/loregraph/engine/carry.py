"""What a copy carries besides documents: merge decisions, the audit log and API keys.

Documents go through their bundles (:mod:`loregraph.copy`); these records belong to no
document, so each is read from the source and added to the destination through the store
contract (:class:`~loregraph.store.changes.ChangeLog`, :class:`~loregraph.store.keystore.
KeyStore`), which every backend and the JSON memory file keep. Like the documents' copy,
carrying them again adds nothing new, so an interrupted copy is finished by running it
again:

* **merge decisions** (splits and hand merges, per scope): added with their id; one the
  destination holds (same scope, kind and merge id) is replaced by the source's;
* **audit entries** (per scope): appended oldest first, except those the destination
  already holds (same time, principal, action, subject and detail);
* **API keys** (no scope), only when asked for (``--with-keys``): they are credentials.
  Only their hashes exist anywhere (never the secret), and that is what is copied. A key
  the destination holds under the same name and hash is kept, and revoked if the source's
  is; one under the same name with another hash is refused (:class:`KeyConflictError`),
  since one of the two would stop opening what it opens.
"""

from __future__ import annotations

from dataclasses import dataclass

from loregraph.errors import LoregraphError
from loregraph.store.base import Store
from loregraph.store.changes import AuditEntry


class KeyConflictError(LoregraphError):
    """The destination holds an API key of the same name as the source's, with another hash."""

    exit_code = 8


@dataclass(slots=True)
class Carried:
    """The records one scope's copy carried, and how many each store then holds."""

    decisions: int = 0
    audit: int = 0
    held: dict[str, tuple[int, int]] | None = None
    """``{"merge decisions" | "audit entries": (in the source, in the destination)}``."""


async def carry_records(source: Store, dest: Store, scope: str) -> Carried:
    """Add the scope's merge decisions and audit entries the destination lacks."""
    carried = Carried()
    theirs = {(d.kind, d.merge_id): d for d in await dest.list_decisions(scope)}
    decisions = await source.list_decisions(scope)
    for decision in decisions:
        if theirs.get((decision.kind, decision.merge_id)) != decision:
            await dest.add_decision(decision)
            carried.decisions += 1
    held = {_same(entry) for entry in await dest.list_audit(scope)}
    audit = await source.list_audit(scope)
    for entry in reversed(audit):  # oldest first
        if _same(entry) not in held:
            await dest.add_audit(entry)
            held.add(_same(entry))
            carried.audit += 1
    carried.held = {
        "merge decisions": (len(decisions), len(await dest.list_decisions(scope))),
        "audit entries": (len(audit), len(await dest.list_audit(scope))),
    }
    return carried


def _same(entry: AuditEntry) -> tuple[object, ...]:
    """What makes two audit entries of a scope the same entry."""
    return (entry.at, entry.principal, entry.action, entry.subject, entry.detail)


async def carry_keys(source: Store, dest: Store) -> int:
    """Add the source's API keys (their hashes) the destination lacks; revoke those the
    source revoked. Returns how many keys were added or revoked. Raises
    :class:`KeyConflictError`, before adding any, for a name both hold with other hashes."""
    theirs = {key.name: key for key in await dest.list_api_keys()}
    ours = await source.list_api_keys()
    clash = [k.name for k in ours if k.name in theirs and theirs[k.name].key_hash != k.key_hash]
    if clash:
        raise KeyConflictError(
            f"the destination holds another API key named {clash[0]!r}"
            + (f" (and {len(clash) - 1} more)" if len(clash) > 1 else "")
            + ": revoke or rename one of them, or copy without --with-keys"
        )
    changed = 0
    for key in ours:
        held = theirs.get(key.name)
        if held is None:
            await dest.add_api_key(key)
            changed += 1
        elif key.revoked_at is not None and held.revoked_at is None:
            await dest.revoke_api_key(key.name, key.revoked_at)
            changed += 1
    return changed
