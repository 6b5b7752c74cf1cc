"""What the OpenAPI document says about keys, and the API's documentation page.

The document declares the key scheme (``Authorization: Bearer <key>``,
:data:`~loregraph.server.auth.KEY_SCHEME`) and, for each operation, whether it needs a key
(every route but ``/health`` on a server with keys; none on a server without).
``GET /docs`` is a page made here from that document, on the server: plain HTML with its
styles inline, no script and nothing fetched from the network (FastAPI's own Swagger UI and
ReDoc pages load their scripts from a CDN, so the server offers neither).
"""

from __future__ import annotations

from collections.abc import Iterator
from html import escape
from typing import Any

from loregraph.server.auth import KEY_SCHEME

SCHEME = KEY_SCHEME.scheme_name
"""The name of the key scheme in the document's ``securitySchemes``."""


def describe_security(document: dict[str, Any], auth: bool) -> dict[str, Any]:
    """``document`` with each operation saying whether it needs a key (changed in place;
    returned): the routes that read a key declare the key scheme (FastAPI adds it), the
    others none; a server without keys declares none anywhere."""
    schemes = document.get("components", {}).get("securitySchemes", {})
    for item in document.get("paths", {}).values():
        for operation in item.values():
            if not auth or "security" not in operation:
                operation["security"] = []
    if not auth:
        schemes.pop(SCHEME, None)
        if not schemes:
            document.get("components", {}).pop("securitySchemes", None)
    return document


STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem;
       padding: 0 1rem; color: #1d2330; }
h1 { margin-bottom: 0; } h2 { border-bottom: 1px solid #ccd; margin-top: 2.5rem; }
section { border: 1px solid #dde; border-radius: 6px; margin: 1rem 0; padding: .5rem 1rem; }
.method { font: bold 13px monospace; text-transform: uppercase; padding: 2px 6px;
          border-radius: 4px; background: #e8eefc; }
code, .path { font-family: ui-monospace, monospace; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
td, th { border-top: 1px solid #eef; padding: 4px 8px; text-align: left; vertical-align: top; }
.key { color: #8a4b00; }
"""


def docs_page(document: dict[str, Any]) -> str:
    """The API's documentation as one HTML page made from its OpenAPI ``document``."""
    info = document.get("info", {})
    title = escape(str(info.get("title", "API")))
    head = (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        f"<style>{STYLE}</style></head><body><h1>{title}</h1>"
        f"<p>{escape(str(info.get('summary', '')))} Version {escape(str(info.get('version')))}."
        " The machine-readable description: <a href='openapi.json'>openapi.json</a>.</p>"
    )
    scheme = document.get("components", {}).get("securitySchemes", {}).get(SCHEME)
    if scheme is not None:
        head += f"<p class='key'>{escape(str(scheme.get('description', '')))}</p>"
    schemas = document.get("components", {}).get("schemas", {})
    body = "".join(_tag(tag, operations, schemas) for tag, operations in _by_tag(document))
    return f"{head}{body}</body></html>"


def _by_tag(document: dict[str, Any]) -> Iterator[tuple[str, list[tuple[str, str, Any]]]]:
    tags: dict[str, list[tuple[str, str, Any]]] = {}
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            tag = (operation.get("tags") or ["other"])[0]
            tags.setdefault(tag, []).append((method, path, operation))
    yield from tags.items()


def _tag(tag: str, operations: list[tuple[str, str, Any]], schemas: dict[str, Any]) -> str:
    return f"<h2>{escape(tag)}</h2>" + "".join(_operation(*op, schemas) for op in operations)


def _fields(schema: dict[str, Any]) -> str:
    """A body schema's fields as a table (name, required, description)."""
    required = set(schema.get("required", []))
    rows = "".join(
        f"<tr><td><code>{escape(name)}</code></td><td>{'yes' if name in required else ''}"
        f"</td><td>{escape(str(field.get('description', '')))}</td></tr>"
        for name, field in schema.get("properties", {}).items()
    )
    return f"<table><tr><th>field</th><th>required</th><th></th></tr>{rows}</table>"


def _operation(method: str, path: str, operation: dict[str, Any], schemas: dict[str, Any]) -> str:
    keyed = " <span class='key'>(key needed)</span>" if operation.get("security") else ""
    parts = [
        f"<section id='{escape(method)}-{escape(path)}'><h3><span class='method'>"
        f"{escape(method)}</span> <span class='path'>{escape(path)}</span>{keyed}</h3>",
        f"<p>{escape(str(operation.get('description') or operation.get('summary', '')))}</p>",
    ]
    parameters = operation.get("parameters", [])
    if parameters:
        rows = "".join(
            f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(p['in'])}</td>"
            f"<td>{'yes' if p.get('required') else ''}</td>"
            f"<td>{escape(str(p.get('description') or p.get('schema', {}).get('description', '')))}"
            "</td></tr>"
            for p in parameters
        )
        parts.append(
            f"<table><tr><th>parameter</th><th>in</th><th>required</th><th></th></tr>{rows}</table>"
        )
    content = operation.get("requestBody", {}).get("content", {})
    for media_type, body in content.items():
        name = body.get("schema", {}).get("$ref", "").rsplit("/", 1)[-1] or "see openapi.json"
        parts.append(f"<p>Body: <code>{escape(media_type)}</code>, {escape(name)}.</p>")
        if name in schemas:
            parts.append(_fields(schemas[name]))
    statuses = ", ".join(
        f"{escape(status)} {escape(str(r.get('description', '')))}"
        for status, r in operation.get("responses", {}).items()
    )
    parts.append(f"<p>Answers: {statuses}</p></section>")
    return "".join(parts)
