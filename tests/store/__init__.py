"""Store tests: a backend-agnostic contract (contract.py) run against each backend."""
