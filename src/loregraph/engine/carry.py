"""What a copy carries besides documents: merge decisions, the audit log, grants, scope
links and API keys.

Documents go through their bundles (:mod:`loregraph.copy`); these records belong to no
document, so each is read from the source and added to the destination through the store
contract (:class:`~loregraph.store.changelog.ChangeLog`,
:class:`~loregraph.store.keystore.KeyStore`, both over the ledger), which every backend and
the JSON memory file keep. Like the documents' copy, carrying them again adds nothing new,
so an interrupted copy is finished by running it again:

* **merge decisions** (splits and hand merges, per scope): added with their id; one the
  destination holds (same scope, kind and merge id) is replaced by the source's;
* **audit entries** (per scope): appended oldest first, except those the destination
  already holds (same time, principal, action, subject and detail);
* **grants** of the scope and **links** from it (to any scope, with the ids of the
  documents they share): added; one the destination holds for the same principal, or the
  same pair of scopes, is replaced by the source's;
* **API keys** (no scope), only when asked for (``--with-keys``): they are credentials.
  Only their hashes exist anywhere (never the secret), and that is what is copied. A key
  the destination holds under the same name and hash is kept, and revoked if the source's
  is; one under the same name with another hash is refused (:class:`KeyConflictError`),
  since one of the two would stop opening what it opens. Grants for every scope (``*``) go
  with the keys: like a key, they open every scope of the destination.
"""

from __future__ import annotations

from dataclasses import dataclass

from loregraph.access import ALL_SCOPES
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
    grants: int = 0
    links: int = 0
    held: dict[str, tuple[int, int]] | None = None
    """``{"merge decisions" | "audit entries" | "grants" | "scope links": (in the source, in
    the destination)}``."""


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
    carried.grants = await _carry_grants(source, dest, scope)
    links = await source.scope_links(scope)
    theirs_links = set(await dest.scope_links(scope))
    for link in links:
        if link not in theirs_links:
            await dest.add_scope_link(link)
            carried.links += 1
    carried.held = {
        "merge decisions": (len(decisions), len(await dest.list_decisions(scope))),
        "audit entries": (len(audit), len(await dest.list_audit(scope))),
        "grants": (await _grants_in(source, scope), await _grants_in(dest, scope)),
        "scope links": (len(links), len(await dest.scope_links(scope))),
    }
    return carried


async def _grants_in(store: Store, scope: str) -> int:
    return sum(1 for grant in await store.list_grants() if grant.scope == scope)


async def _carry_grants(source: Store, dest: Store, scope: str) -> int:
    """Add the source's grants in ``scope`` the destination lacks (or holds with another
    role); returns how many."""
    theirs = set(await dest.list_grants())
    changed = 0
    for grant in await source.list_grants():
        if grant.scope == scope and grant not in theirs:
            await dest.add_grant(grant)
            changed += 1
    return changed


def _same(entry: AuditEntry) -> tuple[object, ...]:
    """What makes two audit entries of a scope the same entry."""
    return (entry.at, entry.principal, entry.action, entry.subject, entry.detail)


async def carry_keys(source: Store, dest: Store) -> int:
    """Add the source's API keys (their hashes) the destination lacks; revoke those the
    source revoked; add its grants for every scope. Returns how many keys and grants were
    added or revoked. Raises
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
    return changed + await _carry_grants(source, dest, ALL_SCOPES)
