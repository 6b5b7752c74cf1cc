"""Shared fixtures: paths to bundled data and small corpora built for tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXCERPT = FIXTURES / "dracula_excerpt.txt"
SHARED = ROOT.parent / "shared"

# assertion rewriting for the store contract's shared (non-test) modules; here, before any
# test module (tests/personas, tests/test_cli_copy.py) imports one of them
pytest.register_assert_rewrite(
    *(
        f"store.{name}"
        for name in (
            "builders",
            "scenarios",
            "contract",
            "contract_copy",
            "contract_documents",
            "contract_graph",
            "contract_memories",
            "contract_scores",
            "contract_search",
            "contract_visibility",
            "visibility_checks",
            "visibility_world",
        )
    )
)


@pytest.fixture(scope="session")
def excerpt_path() -> Path:
    """A ~60 KB excerpt of Dracula (public domain)."""
    return EXCERPT


@pytest.fixture()
def records_file(tmp_path: Path) -> Path:
    """A small JSONL corpus in the benchmark's record format."""
    records = [
        {
            "id": "r1",
            "title": "Lothair II",
            "text": "Lothair II was a king of Lotharingia. He was the son of Emperor Lothair I "
            "and Ermengarde of Tours. Lothair II married Teutberga in 855.",
        },
        {
            "id": "r2",
            "title": "Ermengarde of Tours",
            "text": "Ermengarde of Tours was the wife of Emperor Lothair I. She died on "
            "20 March 851 in Erstein.",
        },
        {
            "id": "r3",
            "title": "Teutberga",
            "text": "Teutberga was a queen of Lotharingia by marriage to Lothair II. She was a "
            "daughter of Boso the Elder.",
        },
        {
            "id": "r4",
            "title": "Phoolwari",
            "text": "Phoolwari is a 1946 Indian Hindi-language film directed by Chaturbhuj Doshi.",
        },
        {
            "id": "r5",
            "title": "Nicki Minaj",
            "text": "Nicki Minaj is a rapper and singer born in Port of Spain, Trinidad and "
            "Tobago. She moved to Queens, New York City, at age five.",
        },
    ]
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path
