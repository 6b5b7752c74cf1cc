"""Which hosts the server answers to and which web pages may change it: an ASGI middleware.

A browser lets any page it shows send requests to a server on this machine. Two checks keep
such pages out, with or without keys:

- **Host.** A request must name the server by a host it answers to (:func:`accepted_hosts`:
  the address it listens on, ``localhost``, the loopback addresses when it listens on
  loopback or on every address, and :attr:`ServerConfig.allowed_hosts`); otherwise 421. A
  page that rebinds its own name to 127.0.0.1 (DNS rebinding) sends its own name, so it
  can read nothing. Ports are not compared: the host name is what an attacker controls.
- **Origin.** A request with an unsafe method (anything but GET, HEAD, OPTIONS) from a page
  of another origin is refused with 403, on every route, uploads and mounted apps (MCP at
  ``/mcp``) included. A page's own origin is the server's (the ``Origin`` header names the
  host and port of the ``Host`` header); another origin may write only when it is one of
  :attr:`ServerConfig.allowed_origins` (which also get CORS headers). Without an ``Origin``
  header, ``Sec-Fetch-Site: cross-site`` or ``same-site`` (a page on another port of this
  machine is the same site, not the same origin) counts as another origin; a request
  with neither header is not from a browser (curl, an SDK) and passes.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from loregraph import ConfigError
from loregraph.server.auth import is_loopback
from loregraph.server.problems import Problem, forbidden

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
DEFAULT_PORTS = {"http": 80, "https": 443}
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")


def host_name(value: str) -> str:
    """The host name of a ``Host`` header or a configured host: lower case, without port,
    brackets or a final dot (``[::1]:8000`` → ``::1``, ``Example.com.`` → ``example.com``)."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        value = value[1:end] if end > 0 else value
    elif value.count(":") == 1:  # a name or IPv4 address with a port (IPv6 has more colons)
        value = value.partition(":")[0]
    return value.rstrip(".")


def _port_of(value: str) -> int | None:
    """The port of a ``Host`` header (``None`` without one)."""
    tail = value.rpartition("]")[2] if value.startswith("[") else value
    if tail.count(":") != 1:
        return None
    port = tail.rpartition(":")[2]
    return int(port) if port.isdigit() else None


def _listens_everywhere(host: str) -> bool:
    try:
        return ipaddress.ip_address(host_name(host)).is_unspecified
    except ValueError:
        return host.strip() in ("", "*")


def accepted_hosts(host: str, allowed: Iterable[str] = ()) -> frozenset[str]:
    """The host names a server listening on ``host`` answers to: ``host`` itself (unless it
    is every address, 0.0.0.0 or ::), ``localhost``, 127.0.0.1 and ::1 when it listens on
    loopback or on every address, and the ``allowed`` names."""
    names = {"localhost", *(host_name(a) for a in allowed)}
    if not _listens_everywhere(host):
        names.add(host_name(host))
    if _listens_everywhere(host) or is_loopback(host_name(host)):
        names.update(LOOPBACK_HOSTS)
    return frozenset(names)


def origin_of(value: str) -> str | None:
    """``value`` as an origin, ``scheme://host[:port]`` in lower case without a default port
    (``None`` when it is not one: ``null``, a path, another scheme)."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        return None
    hostname = parts.hostname.lower()
    shown = f"[{hostname}]" if ":" in hostname else hostname
    if port is None or port == DEFAULT_PORTS[parts.scheme]:
        return f"{parts.scheme}://{shown}"
    return f"{parts.scheme}://{shown}:{port}"


def check_origins(origins: Iterable[str]) -> tuple[str, ...]:
    """The configured ``origins``, each as :func:`origin_of` writes it (a
    :class:`ConfigError` names one that is not an origin)."""
    checked = []
    for given in origins:
        origin = origin_of(given)
        if origin is None:
            raise ConfigError(
                f"allowed origin {given!r} is not an origin: give scheme://host[:port], "
                "e.g. https://app.example.com or http://localhost:5173"
            )
        checked.append(origin)
    return tuple(checked)


def check_hosts(hosts: Iterable[str]) -> tuple[str, ...]:
    """The configured ``hosts`` as host names (a :class:`ConfigError` names one that is a
    URL or blank)."""
    checked = []
    for given in hosts:
        name = host_name(given)
        if not name or "/" in given or " " in name:
            raise ConfigError(
                f"allowed host {given!r} is not a host name: give a name or an address, "
                "e.g. loregraph.example.com or 192.168.1.20"
            )
        checked.append(name)
    return tuple(checked)


def misdirected(host: str) -> Problem:
    """421 for a request naming a host the server does not answer to."""
    named = f"host {host!r}" if host else "no host"
    return Problem(
        421,
        "unknown-host",
        "Unknown host",
        f"this server does not answer to {named}; start it with --allowed-host NAME "
        "to answer to another name",
    )


def cross_origin(origin: str, method: str) -> Problem:
    """403 for a write from a page of another origin."""
    return forbidden(
        f"{method} from {origin} refused: a page of another origin may not change this "
        "server; start it with --allowed-origin ORIGIN to allow one"
    )


class Origins:
    """Refuses requests naming a host not in ``hosts`` (421) and writes from pages of an
    origin that is neither the server's own nor one of ``origins`` (403)."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str], origins: Iterable[str]) -> None:
        self.app = app
        self.hosts = hosts
        self.origins = frozenset(origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = self.refusal(scope["method"], Headers(scope=scope))
        if problem is not None:
            await problem.response()(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def refusal(self, method: str, headers: Headers) -> Problem | None:
        """Why a request with ``method`` and ``headers`` is refused (``None``: it is not)."""
        host = headers.get("host", "")
        if host_name(host) not in self.hosts:
            return misdirected(host)
        if method.upper() in SAFE_METHODS:
            return None
        given = headers.get("origin")
        if given is None:
            site = headers.get("sec-fetch-site", "").lower()
            if site in ("cross-site", "same-site"):
                return cross_origin(f"a {site} page", method)
            return None
        origin = origin_of(given)
        if origin is not None and (origin in self.origins or _same_origin(origin, host)):
            return None
        return cross_origin(repr(given), method)


def _same_origin(origin: str, host: str) -> bool:
    """Whether the page at ``origin`` is served by the server a request's ``Host`` header
    names: the same host name and port (a ``Host`` without a port: the origin scheme's
    default, as a proxy ending TLS forwards it)."""
    scheme = origin.partition("://")[0]
    parts = urlsplit(origin)
    origin_port = parts.port or DEFAULT_PORTS[scheme]
    host_port = _port_of(host) or DEFAULT_PORTS[scheme]
    return parts.hostname == host_name(host) and origin_port == host_port
