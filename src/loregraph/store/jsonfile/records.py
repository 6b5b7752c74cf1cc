"""The memory file's sections for what belongs to no document: ``merge_decisions`` (merges
made or undone by hand, honoured by every later ingest), ``audit_log`` (who changed what,
oldest first), ``api_keys`` (the HTTP server's keys: the hash of each secret, never the
secret), ``grants`` (principals' roles by scope) and ``scope_links`` (the scopes whose
documents a scope reads). Their shapes::

    "merge_decisions": [
      {"kind": "join", "merge_id": "mrg_…", "entity": "ent_…", "surface": "Robert Jones",
       "rule": "manual", "score": 1.0, "document": null, "principal": "ann",
       "created_at": "…"}
    ],
    "audit_log": [
      {"at": "…", "principal": "ann", "action": "merge", "subject": "Bob Jones",
       "detail": "…"}
    ],
    "api_keys": [
      {"name": "ci", "key_hash": "…", "roles": {"default": "reader"}, "created_at": "…",
       "revoked_at": null}
    ],
    "grants": [{"principal": "ann", "scope": "family", "role": "reader"}],
    "scope_links": [
      {"scope": "family", "linked": "friends", "share": "selective", "documents": ["doc_…"]}
    ]

A decision or an audit entry has ``scope`` only when it is not the default scope; a key
belongs to no scope (its ``roles`` name the scopes it opens); a grant and a link always
name their scopes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from loregraph.access import ApiKey, Grant, Role, ScopeLink
from loregraph.errors import InputError
from loregraph.models import DEFAULT_SCOPE
from loregraph.store.changes import AuditEntry, Decision
from loregraph.store.jsonfile.fields import Fields, ShapeError, moment_text, scoped


def decision_record(decision: Decision) -> dict[str, Any]:
    """A merge decision as the file writes it."""
    d = decision
    record = {
        "kind": d.kind,
        "merge_id": d.merge_id,
        "entity": d.entity_id,
        "surface": d.surface,
        "rule": d.rule,
        "score": d.score,
        "document": d.document_id,
        "principal": d.principal,
        "created_at": moment_text(d.created_at),
    }
    return scoped(record, d.scope)


def audit_record(entry: AuditEntry) -> dict[str, Any]:
    """An audit entry as the file writes it."""
    record = {
        "at": moment_text(entry.at),
        "principal": entry.principal,
        "action": entry.action,
        "subject": entry.subject,
        "detail": entry.detail,
    }
    return scoped(record, entry.scope)


def key_record(key: ApiKey) -> dict[str, Any]:
    """An API key as the file writes it (its roles by scope, sorted)."""
    return {
        "name": key.name,
        "key_hash": key.key_hash,
        "roles": {scope: str(role) for scope, role in sorted(key.roles.items())},
        "created_at": moment_text(key.created_at),
        "revoked_at": moment_text(key.revoked_at),
    }


def grant_record(grant: Grant) -> dict[str, Any]:
    """A grant as the file writes it."""
    return grant.to_dict()


def link_record(link: ScopeLink) -> dict[str, Any]:
    """A scope link as the file writes it."""
    return link.to_dict()


def read_decisions(items: Iterator[Fields]) -> list[Decision]:
    """The ``merge_decisions`` section; a decision of the same scope, kind and
    ``merge_id`` as an earlier one is refused (the store keeps one)."""
    found: dict[tuple[str, str, str], Decision] = {}
    for item in items:
        kind = item.text("kind")
        try:
            decision = Decision(
                kind=kind,
                merge_id=item.text("merge_id"),
                entity_id=item.text("entity"),
                surface=item.text("surface"),
                scope=item.text("scope", DEFAULT_SCOPE),
                rule=item.text("rule", "manual"),
                score=item.number("score", 1.0),
                document_id=item.optional_text("document"),
                principal=item.text("principal", ""),
            )
        except ValueError as exc:
            raise ShapeError(f"{item.at('kind')}: {exc}") from None
        decision.created_at = item.moment("created_at") or decision.created_at
        key = (decision.scope, decision.kind, decision.merge_id)
        if key in found:
            raise ShapeError(f"{item.where}: the {kind} decision {key[2]!r} appears twice")
        found[key] = decision
    return list(found.values())


def read_audit(items: Iterator[Fields]) -> list[AuditEntry]:
    """The ``audit_log`` section, oldest first."""
    entries = []
    for item in items:
        entry = AuditEntry(
            action=item.text("action"),
            subject=item.text("subject"),
            detail=item.text("detail", ""),
            principal=item.text("principal", ""),
            scope=item.text("scope", DEFAULT_SCOPE),
        )
        entry.at = item.moment("at") or entry.at
        entries.append(entry)
    return entries


def read_keys(items: Iterator[Fields]) -> list[ApiKey]:
    """The ``api_keys`` section; a name or hash given twice is refused."""
    keys: list[ApiKey] = []
    names: set[str] = set()
    hashes: set[str] = set()
    for item in items:
        key = ApiKey(name=item.text("name"), key_hash=item.text("key_hash"))
        if key.name in names or key.key_hash in hashes:
            raise ShapeError(f"{item.where}: a key of this name or hash appears twice")
        names.add(key.name)
        hashes.add(key.key_hash)
        roles = item.sub("roles")
        for scope in roles.value:
            try:
                key.roles[scope] = Role.parse(roles.text(scope))
            except InputError as exc:
                raise ShapeError(f"{roles.at(scope)}: {exc}") from None
        key.created_at = item.moment("created_at") or key.created_at
        key.revoked_at = item.moment("revoked_at")
        keys.append(key)
    return keys


def read_grants(items: Iterator[Fields]) -> list[Grant]:
    """The ``grants`` section; a principal given two roles in one scope is refused."""
    grants: dict[tuple[str, str], Grant] = {}
    for item in items:
        principal, scope = item.text("principal"), item.text("scope")
        try:
            role = Role.parse(item.text("role"))
        except InputError as exc:
            raise ShapeError(f"{item.at('role')}: {exc}") from None
        if (principal, scope) in grants:
            raise ShapeError(f"{item.where}: {principal!r} has two roles in scope {scope!r}")
        grants[principal, scope] = Grant(principal, scope, role)
    return list(grants.values())


def read_links(items: Iterator[Fields]) -> list[ScopeLink]:
    """The ``scope_links`` section; a pair of scopes linked twice is refused."""
    links: dict[tuple[str, str], ScopeLink] = {}
    for item in items:
        scope, linked = item.text("scope"), item.text("linked")
        try:
            link = ScopeLink(
                scope, linked, item.text("share", "all"), tuple(item.strings("documents"))
            )
        except InputError as exc:
            raise ShapeError(f"{item.where}: {exc}") from None
        if (scope, linked) in links:
            raise ShapeError(f"{item.where}: scope {scope!r} is linked to {linked!r} twice")
        links[scope, linked] = link
    return list(links.values())
