"""Knowing when the store holds nothing: precision and recall of "answerable" detection.

Two stores, each asked its own questions (answerable) and the other's (not answerable):

* a *Dracula* store, asked the questions of ``bench/data/dracula_questions.json`` (written
  before the relevance threshold was chosen, one or two per chapter) and the 2Wiki
  questions;
* the 2Wiki store of the retrieval section, asked the 2Wiki questions and the Dracula ones.

Every question goes through ``Graph.retrieve`` (default preset); ``RetrievalResult.relevant``
is the engine's decision, ``debug["relevance"]`` holds the coverage ``score`` it was decided
on and whether the question is ``named`` (names stored entities and no other name: the
threshold is then :data:`~loregraph.retrieve.question.relevance.NAMED_SHARE` of the base one).
"Answerable" is the positive class. Two sweeps re-decide the same scores by the engine's rule
(:func:`~loregraph.retrieve.question.relevance.threshold_for`): over the base threshold, and over
the named share at the engine's base threshold (1.0: a name lowers nothing).

Quick mode ingests the odd-numbered chapters of the book (about half of it; only the
Dracula questions about those chapters count as answerable) and uses the quick 2Wiki store
(first 200 questions); full mode ingests the whole book and asks all 876 2Wiki questions of
the whole 2Wiki corpus.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.common import DRACULA_FILE, ROOT, TMP_DIR, RunOptions, latency_summary, log, percentile
from bench.report import table
from bench.retrieval import QUICK_QUESTIONS, ingested_store, load_questions, twowiki_store
from bench.splits import halves

QUESTIONS_FILE = ROOT / "bench" / "data" / "dracula_questions.json"
SWEEP = (0.2, 0.25, 0.3, 0.33, 0.35, 0.38, 0.4, 0.45, 0.5)
SHARE_SWEEP = (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
STORES = ("dracula", "2wiki")
RULE = (
    "Answerable when one of the first {passages} passages, or the first two read together "
    "when each holds a quarter of it, covers at least {base} of the "
    "question's weighted terms, or {named} ({share} of it) when the question names an entity "
    "of the store by a capitalised mention of its name and no name the store does not know."
)
_CHAPTER = re.compile(r"^CHAPTER ([IVXL]+)\s*$", re.MULTILINE)
_END = re.compile(r"^\*\*\* END OF", re.MULTILINE)
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50}


def roman(numeral: str) -> int:
    """The value of a roman numeral (``XXVII`` → 27)."""
    total = 0
    for i, char in enumerate(numeral):
        value = _ROMAN[char]
        nxt = _ROMAN[numeral[i + 1]] if i + 1 < len(numeral) else 0
        total += -value if value < nxt else value
    return total


def chapters(text: str) -> dict[int, str]:
    """The book's chapters by number (the table of contents is not a chapter)."""
    marks = list(_CHAPTER.finditer(text))
    end = _END.search(text)
    stop = end.start() if end else len(text)
    out: dict[int, str] = {}
    for i, mark in enumerate(marks):
        chapter_end = marks[i + 1].start() if i + 1 < len(marks) else stop
        out[roman(mark.group(1))] = text[mark.start() : chapter_end]
    return out


def dracula_source(options: RunOptions) -> tuple[Path, set[int]]:
    """The book (full) or its odd chapters (quick), and the chapters it holds."""
    text = DRACULA_FILE.read_text(encoding="utf-8")
    parts = chapters(text)
    if not options.quick:
        return DRACULA_FILE, set(parts)
    kept = {n for n in parts if n % 2 == 1}
    TMP_DIR.mkdir(parents=True, exist_ok=True)
    path = TMP_DIR / "dracula-odd-chapters.txt"
    body = "Dracula, by Bram Stoker (odd-numbered chapters)\n\n" + "".join(
        parts[n] for n in sorted(kept)
    )
    if not path.exists() or path.read_text(encoding="utf-8") != body:
        path.write_text(body, encoding="utf-8")
    return path, kept


def dracula_questions() -> list[dict[str, Any]]:
    """The Dracula questions with the chapter that answers each."""
    return list(json.loads(QUESTIONS_FILE.read_text(encoding="utf-8"))["questions"])


@dataclass(slots=True)
class Asked:
    """One question asked of one store."""

    store: str
    source: str
    question: str
    answerable: bool
    relevant: bool
    score: float
    seconds: float
    named: bool = False
    half: str = ""


def ask_all(
    db: Path, store: str, questions: list[tuple[str, str, bool]], split: dict[str, str]
) -> tuple[list[Asked], int]:
    """Ask ``(source, question, answerable)`` triples of the store at ``db``; ``split``
    gives the half of each 2Wiki question by its text (:mod:`bench.splits`)."""
    import loregraph

    out: list[Asked] = []
    errors = 0
    with loregraph.open(db) as graph:
        graph.retrieve(questions[0][1])  # warm-up: model and caches load outside the timings
        for source, question, answerable in questions:
            started = time.perf_counter()
            try:
                result = graph.retrieve(question)
            except Exception as exc:  # counted and reported, not fatal to the run
                errors += 1
                log(f"abstain: {store}: {type(exc).__name__}: {exc}")
                continue
            seconds = time.perf_counter() - started
            info = result.debug.get("relevance", {})
            out.append(
                Asked(
                    store,
                    source,
                    question,
                    answerable,
                    result.relevant,
                    float(info.get("score", 0.0)),
                    seconds,
                    bool(info.get("named", False)),
                    split.get(question, "") if source == "2wiki" else "",
                )
            )
    return out, errors


def confusion(
    items: list[Asked], threshold: float | None = None, share: float | None = None
) -> dict[str, Any]:
    """Counts and precision/recall of "answerable" (and of "not answerable") detection.

    ``threshold`` (the base threshold) re-decides from the recorded scores by the engine's
    rule: a ``named`` question needs ``share`` of it (the engine's
    :data:`~loregraph.retrieve.question.relevance.NAMED_SHARE` when ``None``). Without ``threshold``
    the engine's own decision is kept.
    """
    from loregraph.retrieve.question.relevance import NAMED_SHARE, threshold_for

    named_share = NAMED_SHARE if share is None else share

    def judged(item: Asked) -> bool:
        if threshold is None:
            return item.relevant
        return item.score >= threshold_for(threshold, item.named, named_share)

    tp = sum(1 for i in items if i.answerable and judged(i))
    fp = sum(1 for i in items if not i.answerable and judged(i))
    fn = sum(1 for i in items if i.answerable and not judged(i))
    tn = sum(1 for i in items if not i.answerable and not judged(i))

    def ratio(a: int, b: int) -> float | None:
        return round(100.0 * a / b, 1) if b else None

    return {
        "answerable": tp + fn,
        "unanswerable": fp + tn,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": ratio(tp, tp + fp),
        "recall": ratio(tp, tp + fn),
        "abstain_precision": ratio(tn, tn + fn),
        "abstain_recall": ratio(tn, tn + fp),
    }


def score_quantiles(items: list[Asked]) -> dict[str, float | None]:
    """p10 / p50 / p90 of the relevance scores of ``items``."""
    values = [i.score for i in items]
    if not values:
        return {"n": 0, "p10": None, "p50": None, "p90": None}
    return {
        "n": len(values),
        "p10": round(percentile(values, 10), 3),
        "p50": round(percentile(values, 50), 3),
        "p90": round(percentile(values, 90), 3),
    }


def re_decided(asked: list[Asked], threshold: float, share: float | None = None) -> dict[str, Any]:
    """Both stores' questions re-decided at ``threshold`` (and named ``share``), with the
    false positives and negatives of each store."""
    out = confusion(asked, threshold, share)
    out["stores"] = {
        name: {
            k: v
            for k, v in confusion([a for a in asked if a.store == name], threshold, share).items()
            if k in ("fp", "fn")
        }
        for name in STORES
    }
    return out


def summarise(asked: list[Asked], errors: dict[str, int]) -> dict[str, Any]:
    """The section's figures from every question asked."""
    from loregraph.retrieve.question.relevance import MIN_COVERAGE, NAMED_SHARE, PASSAGES_CHECKED

    by_store = {name: [a for a in asked if a.store == name] for name in STORES}
    studied = [a for a in asked if a.half != "held_out"]  # sweeps never see the held-out half
    return {
        "threshold": MIN_COVERAGE,
        "named_share": NAMED_SHARE,
        "passages_checked": PASSAGES_CHECKED,
        "rule": RULE.format(
            base=MIN_COVERAGE,
            passages=PASSAGES_CHECKED,
            named=round(MIN_COVERAGE * NAMED_SHARE, 3),
            share=NAMED_SHARE,
        ),
        "stores": {
            name: {
                "decision": confusion(items),
                "errors": errors.get(name, 0),
                "named": {
                    "answerable": sum(1 for i in items if i.answerable and i.named),
                    "unanswerable": sum(1 for i in items if not i.answerable and i.named),
                },
                "scores": {
                    "answerable": score_quantiles([i for i in items if i.answerable]),
                    "unanswerable": score_quantiles([i for i in items if not i.answerable]),
                },
                "latency": latency_summary(i.seconds for i in items),
            }
            for name, items in by_store.items()
        },
        "both": confusion(asked),
        "held_out": confusion([a for a in asked if a.half == "held_out"]),
        "sweep": {f"{t:.2f}": re_decided(studied, t) for t in SWEEP},
        "share_sweep": {f"{s:.1f}": re_decided(studied, MIN_COVERAGE, s) for s in SHARE_SWEEP},
    }


def run(options: RunOptions) -> dict[str, Any]:
    """Run the section; returns figures and configuration."""
    wiki_questions = load_questions(QUICK_QUESTIONS if options.quick else None)
    wiki = [q["question"] for q in wiki_questions]
    pairs = zip(wiki_questions, halves(wiki_questions), strict=True)
    split = {q["question"]: half for q, half in pairs}
    book, kept = dracula_source(options)
    dracula = dracula_questions()
    in_store = [q["question"] for q in dracula if q["chapter"] in kept]
    log(f"abstain: {len(wiki)} 2Wiki questions, {len(dracula)} Dracula questions")

    wiki_store = twowiki_store(options, reuse_latest=True)
    book_store = ingested_store(
        book, "dracula-abstain" + ("quick" if options.quick else ""), options
    )

    asked: list[Asked] = []
    errors: dict[str, int] = {}
    on_book = [("dracula", q, True) for q in in_store] + [("2wiki", q, False) for q in wiki]
    on_wiki = [("2wiki", q, True) for q in wiki]
    on_wiki += [("dracula", q["question"], False) for q in dracula]
    for name, db, questions in (
        ("dracula", book_store.path, on_book),
        ("2wiki", wiki_store.path, on_wiki),
    ):
        log(f"abstain: asking {len(questions)} questions of the {name} store")
        items, errors[name] = ask_all(db, name, questions, split)
        asked.extend(items)
        log(f"abstain: {name}: {confusion(items)}")

    figures = summarise(asked, errors) | {
        "stores_built": {
            "dracula": book_store.ingest | {"cached": book_store.cached},
            "2wiki": wiki_store.ingest | {"cached": wiki_store.cached},
        },
    }
    _dump(options, asked)
    return {
        "figures": figures,
        "config": {
            "preset": "hybrid (default)",
            "dracula_store": (
                "the whole book"
                if not options.quick
                else f"odd-numbered chapters ({len(kept)} of 27) of {DRACULA_FILE.name}"
            ),
            "dracula_questions": f"{QUESTIONS_FILE.relative_to(ROOT)} ({len(dracula)}; "
            f"{len(in_store)} about chapters in the store)",
            "2wiki_store": "quick 2Wiki corpus (700 passages)"
            if options.quick
            else "whole 2Wiki corpus (6,119 passages)",
            "2wiki_questions": len(wiki),
            "positive_class": "answerable (the store holds the answer)",
        },
    }


def _dump(options: RunOptions, asked: list[Asked]) -> None:
    """Every question's decision, score and whether it is ``named``, for error
    analysis (not committed)."""
    path = TMP_DIR / f"abstain-{options.mode}-decisions.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for a in asked:
            if a.half == "held_out":  # the held-out half is only ever scored in aggregate
                continue
            row = asdict(a) | {"score": round(a.score, 4)}
            del row["seconds"]
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def _rates(c: dict[str, Any]) -> list[Any]:
    """Precision and recall of both classes, in table order."""
    return [c["precision"], c["recall"], c["abstain_precision"], c["abstain_recall"]]


def _decision_rows(figures: dict[str, Any]) -> list[list[Any]]:
    """One row per store and one for both: counts, precision and recall both ways."""
    rows = []
    for name, label in (("dracula", "Dracula store"), ("2wiki", "2Wiki store")):
        s = figures["stores"][name]
        d, q = s["decision"], s["scores"]
        named = s.get("named", {})
        rows.append(
            [
                label,
                f"{d['answerable']} / {d['unanswerable']}",
                f"{named.get('answerable', '–')} / {named.get('unanswerable', '–')}",
                *_rates(d),
                f"{q['answerable']['p10']} / {q['unanswerable']['p90']}",
                s["latency"].get("p50_ms"),
            ]
        )
    both = figures["both"]
    counts = f"{both['answerable']} / {both['unanswerable']}"
    rows.append(["both", counts, "", *_rates(both), "", ""])
    return rows


def _sweep_table(first: str, sweep: dict[str, Any]) -> str:
    """A sweep's rows: both stores' precision and recall, each store's errors."""
    rows = []
    for value, c in sweep.items():
        stores = c.get("stores", {})
        errors = [f"{stores[n]['fp']} / {stores[n]['fn']}" if n in stores else "–" for n in STORES]
        rows.append([value, *_rates(c), *errors])
    header = [first, "precision %", "recall %", "abstain precision %", "abstain recall %"]
    return table([*header, "Dracula store fp / fn", "2Wiki store fp / fn"], rows)


def render_abstain(result: dict[str, Any]) -> str:
    """The section's tables for BENCHMARKS.md."""
    from bench.report import _preamble

    figures, config = result["figures"], result.get("config", {})
    base, share = figures["threshold"], figures.get("named_share", 1.0)
    rule = figures.get("rule") or (
        f"Threshold {base} (coverage of the question's weighted terms by one of the first "
        f"{figures['passages_checked']} passages)."
    )
    parts = [
        _preamble(result),
        "",
        f"Dracula store: {config.get('dracula_store', '?')}; questions: "
        f"{config.get('dracula_questions', '?')}. 2Wiki store: "
        f"{config.get('2wiki_store', '?')}; {config.get('2wiki_questions', '?')} questions. "
        + rule,
        "",
        table(
            [
                "store",
                "answerable / not",
                "named: answerable / not",
                "precision %",
                "recall %",
                "abstain precision %",
                "abstain recall %",
                "score p10 answerable / p90 not",
                "retrieve p50 ms",
            ],
            _decision_rows(figures),
        ),
        "",
        *_held_out_line(figures),
        "The same scores re-decided by the same rule at other base thresholds "
        f"(named questions need {share} of it; both stores; the held-out half of the 2Wiki "
        "questions left out):",
        "",
        _sweep_table("base threshold", figures["sweep"]),
    ]
    if "share_sweep" in figures:
        parts += [
            "",
            f"At the base threshold {base}, other shares for named questions "
            "(1.0: a name lowers nothing):",
            "",
            _sweep_table("named share", figures["share_sweep"]),
        ]
    return "\n".join(parts)


def _held_out_line(figures: dict[str, Any]) -> list[str]:
    """The held-out half of the 2Wiki questions, in aggregate (none before the split)."""
    held = figures.get("held_out")
    if not held or not held.get("answerable"):
        return []
    return [
        f"Held-out half of the 2Wiki questions (scored only in aggregate): "
        f"{held['answerable']} answerable on the 2Wiki store, recall {held['recall']} % "
        f"({held['fn']} judged not relevant).",
        "",
    ]
