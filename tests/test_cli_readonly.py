"""A store the user may not write can still be read; writing there fails with one message.

The file and its folder are made read-only. When the tests run as root (who may write
anything), the commands run without the capabilities that let root ignore file permissions.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER = 1, 2, 3
PR_CAPBSET_DROP = 24


def _as_reader() -> Callable[[], None] | None:
    """For root: drop the capabilities that bypass file permissions before exec."""
    if os.geteuid() != 0:
        return None
    libc = ctypes.CDLL(None, use_errno=True)

    def drop() -> None:
        for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER):
            if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")

    return drop


def cli(db: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(db.parent), "LOREGRAPH_PROGRESS_SECONDS": "3600"}
    return subprocess.run(
        [sys.executable, "-m", "loregraph.cli", "--db", str(db), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=_as_reader(),
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A store in a folder that the command's user may read but not write."""
    folder = Path(tempfile.mkdtemp(prefix="loregraph-ro-", dir="/tmp"))
    db = folder / "kg.db"
    note = folder / "note.txt"
    note.write_text(
        "Mina Harker wrote to Lucy Westenra from Exeter. Lucy Westenra lived in Whitby.",
        encoding="utf-8",
    )
    built = subprocess.run(
        [sys.executable, "-m", "loregraph.cli", "--db", str(db), "ingest", str(note)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    read_only = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH
    db.chmod(read_only)
    folder.chmod(read_only | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    yield db
    folder.chmod(0o755)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize(
    "args",
    [
        ["stats"],
        ["scopes"],
        ["documents"],
        ["entities"],
        ["entity", "Lucy Westenra"],
        ["search", "Whitby"],
        ["context", "Where did Lucy Westenra live?"],
        ["ask", "Where did Lucy Westenra live?"],
        ["export", "-"],
    ],
)
def test_read_commands_work_on_a_store_the_user_cannot_write(locked: Path, args: list[str]) -> None:
    result = cli(locked, *args)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.strip()


def test_writing_to_a_read_only_store_names_the_permission_problem(locked: Path) -> None:
    result = cli(locked, "ingest", "-", stdin="Jonathan Harker travelled to Bistritz.")
    assert result.returncode == 8, result.stderr
    assert result.stderr.startswith("error: ")
    assert "read-only" in result.stderr or "permission" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_new_store_in_a_read_only_folder_names_the_folder(locked: Path) -> None:
    result = cli(locked.parent / "new.db", "ingest", "-", stdin="Quincey Morris rode west.")
    assert result.returncode == 8, result.stderr
    assert "not writable" in result.stderr and str(locked.parent) in result.stderr
    assert "unable to open database file" not in result.stderr
