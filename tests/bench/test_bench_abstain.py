"""The answerable-detection benchmark's bookkeeping: chapters, counts, the rendered table."""

from __future__ import annotations

import json

from bench.abstain import (
    QUESTIONS_FILE,
    Asked,
    chapters,
    confusion,
    render_abstain,
    roman,
    score_quantiles,
)


def asked(answerable: bool, relevant: bool, score: float, store: str = "s") -> Asked:
    return Asked(store, "src", "q?", answerable, relevant, score, 0.01)


def test_roman_numerals_and_chapters() -> None:
    assert [roman(n) for n in ("I", "IV", "IX", "XIV", "XXVII")] == [1, 4, 9, 14, 27]
    text = (
        "CHAPTER I. Contents line\nCHAPTER II. Contents line\n\n"
        "CHAPTER I\n\nfirst\n\nCHAPTER II\n\nsecond\n*** END OF THE BOOK\nlicence"
    )
    found = chapters(text)
    assert sorted(found) == [1, 2]
    assert "first" in found[1] and "second" in found[2] and "licence" not in found[2]


def test_the_questions_cover_the_whole_book() -> None:
    data = json.loads(QUESTIONS_FILE.read_text(encoding="utf-8"))
    numbers = {q["chapter"] for q in data["questions"]}
    assert len(data["questions"]) >= 30
    assert min(numbers) == 1 and max(numbers) == 27 and len(numbers) >= 24


def test_confusion_counts_both_classes() -> None:
    items = [
        asked(True, True, 0.6),
        asked(True, False, 0.3),
        asked(False, True, 0.4),
        asked(False, False, 0.1),
        asked(False, False, 0.2),
    ]
    decided = confusion(items)
    assert (decided["tp"], decided["fn"], decided["fp"], decided["tn"]) == (1, 1, 1, 2)
    assert decided["precision"] == 50.0 and decided["recall"] == 50.0
    assert decided["abstain_precision"] == 66.7 and decided["abstain_recall"] == 66.7
    strict = confusion(items, threshold=0.5)  # re-decided from the scores
    assert (strict["tp"], strict["fp"]) == (1, 0) and strict["precision"] == 100.0
    assert confusion([])["precision"] is None
    assert score_quantiles([asked(True, True, s) for s in (0.1, 0.5, 0.9)])["p50"] == 0.5


def test_render_shows_every_store_and_the_sweep() -> None:
    items = [asked(True, True, 0.6), asked(False, False, 0.1)]
    store = {
        "decision": confusion(items),
        "errors": 0,
        "scores": {
            "answerable": score_quantiles(items[:1]),
            "unanswerable": score_quantiles(items[1:]),
        },
        "latency": {"p50_ms": 12.5},
    }
    result = {
        "mode": "quick",
        "figures": {
            "threshold": 0.35,
            "passages_checked": 8,
            "stores": {"dracula": store, "2wiki": store},
            "both": confusion(items + items),
            "sweep": {"0.35": confusion(items, 0.35)},
        },
        "config": {"dracula_store": "the whole book", "2wiki_questions": 1},
    }
    text = render_abstain(result)
    assert "| Dracula store | 1 / 1 | 100.0 | 100.0 |" in text
    assert "| 2Wiki store |" in text and "| both | 2 / 2 |" in text
    assert "| 0.35 | 100.0 | 100.0 | 100.0 | 100.0 |" in text
