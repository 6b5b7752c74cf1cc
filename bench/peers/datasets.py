"""The two corpora of the peers benchmark and their questions, in quick and full sizes.

- ``dracula``: the whole book (``src/loregraph/data/dracula.txt``) as one document, in both
  modes (it takes loregraph seconds; a part of it would be too small to time). Questions:
  a fixed list of generic questions about the book (:data:`DRACULA_QUESTIONS`).
- ``2wiki``: the 2WikiMultihopQA corpus (6,119 passages, ``{title, text}``); quick mode keeps
  the first :data:`WIKI_QUICK_DOCS` passages. Questions: the first ``gold_complete``
  questions of ``questions.json`` (:data:`WIKI_QUESTIONS` per mode).
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.common import ROOT, TWOWIKI_DIR
from bench.peers.corpus import Corpus, CorpusDoc

DRACULA_PATH = ROOT / "src" / "loregraph" / "data" / "dracula.txt"
WIKI_QUICK_DOCS = 40
WIKI_QUESTIONS = {"quick": 20, "full": 200}

DRACULA_QUESTIONS = (
    "Who is Van Helsing?",
    "Who is Jonathan Harker?",
    "Who is Mina Murray?",
    "What happens to Lucy Westenra?",
    "Who is Renfield?",
    "Where is Castle Dracula?",
    "Who is Arthur Holmwood?",
    "Who is Dr. Seward?",
    "Who is Quincey Morris?",
    "What is Carfax?",
    "How does Dracula travel to England?",
    "What happens at Whitby?",
)


DRACULA_QUICK_CHARS = 200_000
"""Quick mode keeps the book's first 200,000 characters (cut at a paragraph break)."""


def dracula(mode: str, path: Path = DRACULA_PATH) -> Corpus:
    """The book as one document: whole in full mode, its beginning in quick mode."""
    text = path.read_text(encoding="utf-8")
    description = f"{path.name}, whole book ({len(text):,} characters)"
    if mode == "quick":
        cut = text.rfind("\n\n", 0, DRACULA_QUICK_CHARS)
        text = text[: cut if cut > 0 else DRACULA_QUICK_CHARS]
        description = f"{path.name}, first {len(text):,} characters"
    return Corpus(
        name="dracula",
        description=description,
        docs=[CorpusDoc(id="dracula", title="Dracula", text=text)],
        questions=list(DRACULA_QUESTIONS),
        title_in_text=True,
    )


def twowiki(mode: str, directory: Path = TWOWIKI_DIR) -> Corpus:
    """The 2Wiki passages (the first ones in quick mode) and its first scored questions."""
    records = json.loads((directory / "corpus.json").read_text(encoding="utf-8"))
    total = len(records)
    if mode == "quick":
        records = records[:WIKI_QUICK_DOCS]
    docs = [
        CorpusDoc(id=f"2wiki#{i}", title=r["title"], text=r["text"]) for i, r in enumerate(records)
    ]
    questions = json.loads((directory / "questions.json").read_text(encoding="utf-8"))
    scored = [q["question"] for q in questions if q.get("gold_complete")]
    n = WIKI_QUESTIONS[mode]
    return Corpus(
        name="2wiki",
        description=(
            f"2wikimultihopqa corpus.json, {len(docs):,} of {total:,} passages; first {n} "
            "gold_complete questions (their gold passages may be outside a quick subset: "
            "only latency is measured here)"
        ),
        docs=docs,
        questions=scored[:n],
    )


CORPORA = {"dracula": dracula, "2wiki": twowiki}
