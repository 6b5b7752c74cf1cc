"""The frozen 2Wiki split: made by the seeded shuffle its file states, over exactly the
scored questions, and kept out of every per-question dump."""

from __future__ import annotations

import json
import random

from bench.common import TWOWIKI_DIR
from bench.splits import SPLIT_FILE, halves, held_out, twowiki_split


def test_the_split_is_the_seeded_shuffle_of_the_scored_questions() -> None:
    data = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))
    questions = json.loads((TWOWIKI_DIR / "questions.json").read_text(encoding="utf-8"))
    ids = sorted(q["id"] for q in questions if q["gold_complete"])
    order = ids[:]
    random.Random(data["seed"]).shuffle(order)
    assert data["study"] == sorted(order[: len(order) // 2])
    assert data["held_out"] == sorted(order[len(order) // 2 :])
    split = twowiki_split()
    assert set(split) == set(ids) and set(split.values()) == {"study", "held_out"}


def test_each_question_has_its_half() -> None:
    split = twowiki_split()
    some = [{"id": qid} for qid in sorted(split)[:40]]
    assert halves(some) == [split[q["id"]] for q in some]
    assert [held_out(q, split) for q in some] == [split[q["id"]] == "held_out" for q in some]
