"""The explorer's built page ships in the package: every asset index.html names is there,
nothing it loads comes from another host, and it was built from the sources in frontend/
(the hash the build recorded equals the hash of those sources now)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from loregraph.explorer import STATIC, explorer_mount

ROOT = Path(__file__).resolve().parents[2]
FRONTEND = ROOT / "frontend"
SOURCES = (
    "index.html",
    "package.json",
    "package-lock.json",
    "vite.config.ts",
    "tsconfig.json",
    "src",
    "public",
)
"""What the build reads (vite.config.ts hashes the same list the same way)."""


def sources_hash(root: Path) -> str:
    """sha256 over each source file's relative path and bytes, in sorted path order."""
    files = []
    for name in SOURCES:
        path = root / name
        found = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        files += [(p.relative_to(root).as_posix(), p) for p in found]
    digest = hashlib.sha256()
    for name, path in sorted(files):
        digest.update(name.encode() + b"\n" + path.read_bytes() + b"\n")
    return digest.hexdigest()


def test_index_names_only_shipped_assets() -> None:
    index = (STATIC / "index.html").read_text(encoding="utf-8")
    named = re.findall(r'(?:src|href)="([^"]+)"', index)
    assert any(n.endswith(".js") for n in named) and any(n.endswith(".css") for n in named)
    for name in named:
        assert not re.match(r"^(https?:)?//", name), f"{name} loads from the network"
        assert (STATIC / name).is_file(), f"{name} is named by index.html but not shipped"
    scripts = "".join(p.read_text(encoding="utf-8") for p in (STATIC / "assets").glob("*.js"))
    assert "__explorer" in scripts and "/neighbors" in scripts


@pytest.mark.skipif(not FRONTEND.is_dir(), reason="an installed package has no frontend/")
def test_shipped_page_is_built_from_the_sources() -> None:
    recorded = (STATIC / "sources.sha256").read_text(encoding="utf-8").strip()
    assert recorded == sources_hash(FRONTEND), (
        "the page in src/loregraph/explorer/static is older than frontend/: run `make explorer`"
    )


def test_the_page_is_mounted_at_the_root() -> None:
    mount = explorer_mount()
    assert mount.path == "/" and mount.name == "explorer"
