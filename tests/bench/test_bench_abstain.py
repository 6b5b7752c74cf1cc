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
    summarise,
)

from loregraph.retrieve.question.relevance import MIN_COVERAGE, NAMED_SHARE


def asked(
    answerable: bool, relevant: bool, score: float, store: str = "s", named: bool = False
) -> Asked:
    return Asked(store, "src", "q?", answerable, relevant, score, 0.01, named)


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


def test_re_deciding_applies_the_named_share_like_the_engine() -> None:
    between = MIN_COVERAGE * (1 + NAMED_SHARE) / 2  # under the base, over the named threshold
    items = [
        asked(True, True, between, named=True),
        asked(False, True, between, named=True),
        asked(True, False, between, named=False),
    ]
    kept = confusion(items, MIN_COVERAGE)  # the engine's rule reproduces its decisions
    assert (
        (kept["tp"], kept["fp"], kept["fn"])
        == (1, 1, 1)
        == (
            confusion(items)["tp"],
            confusion(items)["fp"],
            confusion(items)["fn"],
        )
    )
    plain = confusion(items, MIN_COVERAGE, share=1.0)  # a name lowers nothing
    assert (plain["tp"], plain["fp"], plain["fn"]) == (0, 0, 2)
    low = confusion(items, between)  # at a lower base the unnamed question passes too
    assert (low["tp"], low["fn"]) == (2, 0)


def test_render_shows_every_store_the_rule_and_both_sweeps() -> None:
    items = [
        asked(True, True, 0.6, "dracula", named=True),
        asked(False, False, 0.1, "dracula"),
        asked(True, True, 0.5, "2wiki"),
        asked(False, True, 0.3, "2wiki", named=True),
    ]
    figures = summarise(items, {"dracula": 0, "2wiki": 0})
    assert figures["stores"]["2wiki"]["named"] == {"answerable": 0, "unanswerable": 1}
    result = {
        "mode": "quick",
        "figures": figures,
        "config": {"dracula_store": "the whole book", "2wiki_questions": 1},
    }
    text = render_abstain(result)
    assert "| Dracula store | 1 / 1 | 1 / 0 | 100.0 | 100.0 | 100.0 | 100.0 |" in text
    assert "| 2Wiki store | 1 / 1 | 0 / 1 | 50.0 | 100.0 |" in text
    assert "| both | 2 / 2 |  | 66.7 | 100.0 |" in text
    named = round(MIN_COVERAGE * NAMED_SHARE, 3)
    assert f"or {named} ({NAMED_SHARE} of it) when the question names an entity" in text
    # the base-threshold sweep keeps the named share; the share sweep at 1.0 drops it
    assert f"| {MIN_COVERAGE:.2f} | 66.7 | 100.0 | 100.0 | 50.0 | 0 / 0 | 1 / 0 |" in text
    assert "| 1.0 | 100.0 | 100.0 | 100.0 | 100.0 | 0 / 0 | 0 / 0 |" in text


def test_render_still_reads_a_result_without_the_named_share() -> None:
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
    assert "| Dracula store | 1 / 1 | – / – | 100.0 | 100.0 |" in text
    assert "Threshold 0.35 (coverage" in text and "named share" not in text
    assert "| 0.35 | 100.0 | 100.0 | 100.0 | 100.0 | – | – |" in text
