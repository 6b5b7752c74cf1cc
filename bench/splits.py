"""The frozen split of the 2Wiki questions (``bench/data/splits/2wiki.json``).

Fixed before any tuning by a seeded shuffle: a half that may be studied question by
question and a half (``held_out``) that is only ever scored in aggregate. Nothing in the
benchmarks prints, dumps or reads a held-out question on its own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bench.common import ROOT, TWOWIKI_DIR, file_sha256

SPLIT_FILE = ROOT / "bench" / "data" / "splits" / "2wiki.json"
HALVES = ("study", "held_out")


def twowiki_split() -> dict[str, str]:
    """Question id → ``"study"`` or ``"held_out"``; raises when the questions file is not
    the one the split was made from."""
    data = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))
    questions = TWOWIKI_DIR / "questions.json"
    if file_sha256(questions) != data["questions_sha256"]:
        raise RuntimeError(f"{questions} is not the file the 2Wiki split was made from")
    return {qid: half for half in HALVES for qid in data[half]}


def halves(questions: Sequence[dict[str, Any]]) -> list[str]:
    """The half of each question, in order."""
    split = twowiki_split()
    return [split[q["id"]] for q in questions]


def held_out(question: dict[str, Any], split: dict[str, str]) -> bool:
    """Whether ``question`` is in the half only scored in aggregate."""
    return split.get(str(question.get("id")), "") == "held_out"
