"""Personas and intents on an invented family corpus: are the right stories in the context?

``python -m bench.personas_dev [--budget N]``: ingests ``bench/data/family_stories.json`` (Rose
Albright's family in scope ``albright``, her friend Edna Pike's stories in scope ``pike``,
linked to it) with the packaged embedder and offline extractor, then asks each question of
the file (17, a few per intent, some with earlier conversation turns) without a persona and
through each packaged persona, with the graph layer on and off
(``LOREGRAPH_GRAPH_AUGMENTATION``). For each run it reports:

* ``hit@3``: the share of the expected stories among the documents of the first three
  passages;
* ``in context``: the share of the expected stories whose title is in the context of
  ``--budget`` tokens (default 500: a small budget, so that the ranking decides);
* ``intent``: how often the question's intent (rules, offline) is the one written down.

Results go to ``bench/results/personas_dev.json`` and a markdown table on stdout.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from statistics import mean
from typing import Any

from bench.common import RESULTS_DIR, ROOT, TMP_DIR, log
from loregraph import Graph, Settings
from loregraph import open as open_graph

CORPUS = ROOT / "bench" / "data" / "family_stories.json"
PERSONAS = (None, "biographer", "friend", "colleague", "family")
MAIN_SCOPE = "albright"


def build(path: Path, corpus: dict[str, Any]) -> None:
    """Ingest every scope's stories into a fresh store at ``path``."""
    if path.exists():
        path.unlink()
    with open_graph(path, settings=Settings(scope=MAIN_SCOPE)) as graph:
        for scope, stories in corpus["scopes"].items():
            for title, text in stories:
                graph.ingest_text(text, title=title, scope=scope)


def ask_all(
    graph: Graph, corpus: dict[str, Any], persona: str | None, budget: int
) -> dict[str, Any]:
    """The scores of one persona (``None``: the preset alone) over every question."""
    linked = corpus["linked"].get(MAIN_SCOPE, [])
    hits, shown, intents = [], [], []
    by_intent: dict[str, list[float]] = {}
    for item in corpus["questions"]:
        asking: dict[str, Any] = {"history": item.get("history", [])}
        if persona is not None:
            asking.update(persona=persona, linked_scopes=linked)
        result = graph.retrieve(item["question"], **asking)
        context = graph.context(item["question"], budget=budget, **asking)
        expected = set(item["expect"])
        top = {p.document_title for p in result.passages[:3]}
        hit = len(expected & top) / len(expected)
        hits.append(hit)
        shown.append(sum(1 for t in expected if t in context) / len(expected))
        by_intent.setdefault(item["intent"], []).append(hit)
        if result.persona is not None:
            intents.append(result.persona.route.intent == item["intent"])
    return {
        "hit_at_3": round(mean(hits), 3),
        "in_context": round(mean(shown), 3),
        "intent_accuracy": round(mean(intents), 3) if intents else None,
        "hit_at_3_by_intent": {k: round(mean(v), 3) for k, v in sorted(by_intent.items())},
    }


def run(budget: int = 500) -> dict[str, Any]:
    """Every persona, with the graph layer on and off."""
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    TMP_DIR.mkdir(parents=True, exist_ok=True)
    path = TMP_DIR / "personas.db"
    log("personas: ingesting the family corpus")
    build(path, corpus)
    runs: dict[str, Any] = {}
    for graph_on in (True, False):
        copy = TMP_DIR / f"personas-{'on' if graph_on else 'off'}.db"
        shutil.copyfile(path, copy)
        settings = Settings(scope=MAIN_SCOPE, graph_augmentation=graph_on)
        with open_graph(copy, settings=settings) as graph:
            for persona in PERSONAS:
                name = f"{persona or 'no persona'} / graph {'on' if graph_on else 'off'}"
                log(f"personas: {name}")
                runs[name] = ask_all(graph, corpus, persona, budget)
    return {"budget": budget, "questions": len(corpus["questions"]), "runs": runs}


def table(report: dict[str, Any]) -> str:
    """The runs as a markdown table."""
    intents = sorted(next(iter(report["runs"].values()))["hit_at_3_by_intent"])
    head = ["run", "hit@3", f"in context ({report['budget']} tokens)", "intent", *intents]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, scores in report["runs"].items():
        intent = scores["intent_accuracy"]
        cells = [
            name,
            f"{scores['hit_at_3']:.2f}",
            f"{scores['in_context']:.2f}",
            "–" if intent is None else f"{intent:.2f}",
            *(f"{scores['hit_at_3_by_intent'][i]:.2f}" for i in intents),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=500, help="context budget in tokens")
    args = parser.parse_args()
    report = run(args.budget)
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    out = RESULTS_DIR / "personas_dev.json"
    out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(table(report))


if __name__ == "__main__":
    main()
