"""Code localisation from real history: which files a commit message is about.

``../shared/bench/code/`` holds four repositories (axios, click, cobra, requests), each a
source tree pinned at one commit and up to 150 earlier commits that changed one to three of
its source files (its README gives the format). The query is a commit's message; the gold
is the files it changed; the history is never indexed. Commits are split once, before any
code-graph work, into a half that may be studied and a half only scored in aggregate
(``bench/data/splits/code.json``).

Rankers, in one run over the same files:

* ``bm25``: ``bm25s`` over each file's path and text;
* ``dense``: the packaged MiniLM over windows of 40 lines, a file ranked by its best window;
* ``repomap``: an Aider-style repository map (:mod:`bench.repomap`): tree-sitter tags,
  personalised PageRank over name references;
* ``loregraph``: the engine, the tree ingested as a folder (source files as code: one chunk
  a definition, a graph of files, modules, classes, functions, imports and calls; other
  files as text; offline extraction, MiniLM) and ranked by ``search`` (hybrid preset,
  documents).

Reported per repository and half: file R@1 and R@5 (the share of a commit's files among the
first k, averaged over commits) and, for the Python repositories, function R@10 over the
commits that changed a function (``path::Qualified.name``, as the data's ``functions``):
BM25 and dense rank each function's path, name and source, the repository map its ranked
definitions, the engine the functions its retrieved passages show (it does not rank
symbols on their own yet). For the Python repositories, the code graph's call edges are
also scored against jedi (:mod:`bench.calls`).
``python -m bench.run --only code`` (or ``python -m bench.code``).
"""

from __future__ import annotations

import ast
import asyncio
import hashlib
import io
import json
import tarfile
import time
from typing import Any

from bench.baselines import bm25_rank, dense_rank
from bench.calls import measure as measure_calls
from bench.calls import package_files
from bench.common import BENCH_DATA, ROOT, TMP_DIR, RunOptions, log
from bench.repomap import RepoMap
from loregraph.ingest.code.languages import DECLARED, language_of

CODE_DIR = BENCH_DATA / "code"
SPLIT_FILE = ROOT / "bench" / "data" / "splits" / "code.json"
HALVES = ("study", "held_out")
WINDOW = 40
"""Lines in one window of the dense baseline."""
DEPTH = 20
"""How many files each ranker returns per query."""
MAX_FILE_BYTES = 1_000_000


def repositories() -> list[str]:
    """The repositories of the benchmark, by name."""
    return sorted(p.name for p in CODE_DIR.iterdir() if (p / "tree.tar.gz").exists())


def load_tree(repo: str) -> dict[str, str]:
    """The text files of ``repo``'s tree by path (binary and undecodable files left out)."""
    files: dict[str, str] = {}
    with tarfile.open(CODE_DIR / repo / "tree.tar.gz") as tar:
        for member in tar.getmembers():
            if not member.isfile() or member.size > MAX_FILE_BYTES:
                continue
            handle = tar.extractfile(member)
            data = handle.read() if handle is not None else b""
            if b"\0" in data:
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if text.strip():
                files[member.name.removeprefix("./")] = text
    return files


def load_commits(repo: str) -> list[dict[str, Any]]:
    """``repo``'s commits, each with its ``half``; raises when the commits file is not the
    one the split was made from."""
    path = CODE_DIR / repo / "commits.jsonl"
    split = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))["repos"][repo]
    if hashlib.sha256(path.read_bytes()).hexdigest() != split["commits_sha256"]:
        raise RuntimeError(f"{path} is not the file the code split was made from")
    halves = {sha: half for half in HALVES for sha in split[half]}
    commits = []
    for line in io.StringIO(path.read_text(encoding="utf-8")):
        if line.strip():
            commit = json.loads(line)
            commits.append(commit | {"half": halves[commit["sha"]]})
    return commits


def recall_at(ranked: list[str], gold: list[str], k: int) -> float:
    """The share of ``gold`` among the first ``k`` of ``ranked``."""
    return len(set(ranked[:k]) & set(gold)) / len(gold) if gold else 0.0


def scores(
    rankings: list[list[str]],
    commits: list[dict[str, Any]],
    functions: list[list[str]] | None = None,
) -> dict[str, Any]:
    """File R@1 and R@5 (percent) per half and over all commits; with ``functions`` (a
    function ranking per commit), function R@10 over the commits that changed one."""
    out: dict[str, Any] = {}
    for half in (*HALVES, "all"):
        chosen = [i for i, c in enumerate(commits) if half in ("all", c["half"])]
        if not chosen:
            continue
        out[half] = {
            f"R@{k}": round(
                100
                * sum(recall_at(rankings[i], commits[i]["files"], k) for i in chosen)
                / len(chosen),
                1,
            )
            for k in (1, 5)
        } | {"n": len(chosen)}
        changed = [i for i in chosen if commits[i].get("functions")]
        if functions is not None and changed:
            total = sum(recall_at(functions[i], commits[i]["functions"], 10) for i in changed)
            out[half] |= {"fn R@10": round(100 * total / len(changed), 1), "fn n": len(changed)}
    return out


def python_functions(files: dict[str, str]) -> dict[str, str]:
    """Each Python function and method as ``path::Qualified.name`` (enclosing classes and
    functions joined by dots), with its path, name and source as the text to rank."""
    found: dict[str, str] = {}

    def visit(path: str, text: str, nodes: list[ast.stmt], outer: list[str]) -> None:
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                chain = [*outer, node.name]
                if not isinstance(node, ast.ClassDef):
                    key = f"{path}::{'.'.join(chain)}"
                    found[key] = key + "\n" + (ast.get_source_segment(text, node) or "")
                visit(path, text, node.body, chain)

    for path, text in files.items():
        if path.endswith(".py"):
            try:
                visit(path, text, ast.parse(text).body, [])
            except (SyntaxError, ValueError):
                continue
    return found


def function_spans(files: dict[str, str]) -> dict[str, list[tuple[str, int, int]]]:
    """Each Python file's functions as ``(path::Qualified.name, start, end)``: character
    offsets of the lines of their whole definition (decorators excluded), in order."""
    spans: dict[str, list[tuple[str, int, int]]] = {}
    for path, text in files.items():
        if path.endswith(".py"):
            try:
                starts = [0]
                for line in text.splitlines(keepends=True):
                    starts.append(starts[-1] + len(line))
                spans[path] = _spans(path, starts, ast.parse(text).body, [])
            except (SyntaxError, ValueError):
                continue
    return spans


def _spans(path: str, starts: list[int], nodes: list[ast.stmt], outer: list[str]) -> list[Any]:
    """The functions among ``nodes`` and within them; ``starts``: each line's offset."""
    found: list[tuple[str, int, int]] = []
    for node in nodes:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            chain = [*outer, node.name]
            if not isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                last = starts[min(node.end_lineno, len(starts) - 1)]
                found.append((f"{path}::{'.'.join(chain)}", starts[node.lineno - 1], last))
            found.extend(_spans(path, starts, node.body, chain))
    return found


def passage_functions(
    passages: list[tuple[str, int, int]], spans: dict[str, list[tuple[str, int, int]]]
) -> list[str]:
    """The functions the passages ``(path, start, end)`` show, passage by passage (each
    passage's in the order they start), each once, at most :data:`DEPTH`."""
    ranked: dict[str, None] = {}
    for path, start, end in passages:
        for key, first, last in spans.get(path, []):
            if first < end and start < last:
                ranked.setdefault(key, None)
    return list(ranked)[:DEPTH]


def defined_functions(definitions: list[tuple[str, str, float]], functions: list[str]) -> list[str]:
    """The functions named by ranked definitions ``(file, name, score)``, best first, each
    once, at most :data:`DEPTH`."""
    by_name: dict[tuple[str, str], list[str]] = {}
    for key in functions:
        path, qualified = key.split("::", 1)
        by_name.setdefault((path, qualified.rsplit(".", 1)[-1]), []).append(key)
    ranked: dict[str, None] = {}
    for path, name, _ in definitions:
        for key in by_name.get((path, name), []):
            ranked.setdefault(key, None)
        if len(ranked) >= DEPTH:
            break
    return list(ranked)[:DEPTH]


def windows(files: dict[str, str]) -> tuple[list[str], list[str]]:
    """The dense baseline's texts (path, then 40 lines) and the file each belongs to."""
    texts, owners = [], []
    for path, text in files.items():
        lines = text.splitlines()
        for start in range(0, max(len(lines), 1), WINDOW):
            texts.append(path + "\n" + "\n".join(lines[start : start + WINDOW]))
            owners.append(path)
    return texts, owners


def first_files(order: list[int], owners: list[str]) -> list[str]:
    """The files of ranked windows, each once, best first, at most :data:`DEPTH`."""
    seen: dict[str, None] = {}
    for index in order:
        seen.setdefault(owners[index], None)
        if len(seen) == DEPTH:
            break
    return list(seen)


async def engine_rankings(
    repo: str, files: dict[str, str], queries: list[str]
) -> tuple[list[list[str]], list[list[str]], dict[str, float]]:
    """The engine's file rankings (the tree ingested as a folder, as a user does: source
    files read as code, the rest as text; then ``search``), its function rankings (the
    Python functions its retrieved passages show, in passage order) and its indexing
    times: the whole folder, then the folder again after one source file (the largest)
    gained a comment line."""
    import shutil

    import loregraph
    from loregraph.embed.minilm import MiniLMEmbedder

    path = TMP_DIR / f"code-{repo}.db"
    path.unlink(missing_ok=True)
    tree = TMP_DIR / f"code-{repo}"
    shutil.rmtree(tree, ignore_errors=True)
    for name, text in files.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text, encoding="utf-8")
    graph = loregraph.AsyncGraph(loregraph.open_store(path), embedder=MiniLMEmbedder())
    try:
        await graph.open()
        started = time.perf_counter()
        report = await graph.ingest(tree)
        indexed = time.perf_counter() - started
        log(f"code: {repo}: ingested {report.ingested} files ({len(report.failed)} failed)")
        sources = [n for n in files if language_of(n) not in (None, *DECLARED)]
        source = max(sources, key=len)
        comment = "#" if source.endswith(".py") else "//"
        (tree / source).write_text(files[source] + f"\n{comment} changed\n", encoding="utf-8")
        started = time.perf_counter()
        again = await graph.ingest(tree)
        timing = {
            "ingest_seconds": round(indexed, 1),
            "files_per_second": round(report.ingested / indexed, 2),
            "reindex_one_file_seconds": round(time.perf_counter() - started, 2),
            "reindexed": again.replaced,
        }
        prefix = str(tree.resolve()) + "/"
        spans = function_spans(files)
        found, functions = [], []
        for query in queries:
            hits = await graph.search(query, kind="documents", limit=DEPTH, preset="hybrid")
            found.append([str(hit.extra.get("source") or "").removeprefix(prefix) for hit in hits])
            result = await graph.retrieve(query, preset="hybrid")
            shown = [(p.document_title, p.start, p.end) for p in result.passages]
            functions.append(passage_functions(shown, spans))
        return found, functions, timing
    finally:
        await graph.close()


def measure_repo(repo: str) -> dict[str, Any]:
    """Every ranker on one repository."""
    from loregraph.embed.minilm import MiniLMEmbedder

    files, commits = load_tree(repo), load_commits(repo)
    paths = list(files)
    queries = [c["message"] for c in commits]
    log(f"code: {repo}: {len(files)} files, {len(commits)} commits")
    embedder = MiniLMEmbedder()
    bm25 = bm25_rank([p + "\n" + files[p] for p in paths], queries, DEPTH)
    texts, owners = windows(files)
    dense = dense_rank(texts, queries, embedder, len(texts))
    repo_map = RepoMap.build(files)
    mapped = [repo_map.rank(query) for query in queries]
    rankings = {
        "bm25": [[paths[i] for i in order] for order in bm25.rankings],
        "dense": [first_files(order, owners) for order in dense.rankings],
        "repomap": [found[:DEPTH] for found, _ in mapped],
    }
    rankings["loregraph"], engine_functions, timing = asyncio.run(
        engine_rankings(repo, files, queries)
    )
    functions: dict[str, list[list[str]]] = {}
    named = python_functions(files)
    if any(c.get("functions") for c in commits) and named:
        keys, bodies = list(named), list(named.values())
        fn_bm25 = bm25_rank(bodies, queries, DEPTH)
        fn_dense = dense_rank(bodies, queries, embedder, DEPTH)
        functions = {
            "bm25": [[keys[i] for i in order] for order in fn_bm25.rankings],
            "dense": [[keys[i] for i in order] for order in fn_dense.rankings],
            "repomap": [defined_functions(defs, keys) for _, defs in mapped],
            "loregraph": engine_functions,
        }
    calls = measure_calls(TMP_DIR / f"code-{repo}", files) if package_files(files) else None
    return {
        "files": len(files),
        "indexing": timing,
        "calls": calls,
        "parsed_files": len(repo_map.tags),
        "python_functions": len(named),
        "commits": {half: sum(c["half"] == half for c in commits) for half in HALVES},
        "rankers": {
            name: scores(found, commits, functions.get(name)) for name, found in rankings.items()
        },
    }


def run(options: RunOptions) -> dict[str, Any]:
    """The section's entry (``python -m bench.run --only code``)."""
    TMP_DIR.mkdir(parents=True, exist_ok=True)
    figures = {repo: measure_repo(repo) for repo in repositories()}
    config = {
        "data": str(CODE_DIR),
        "split": str(SPLIT_FILE.relative_to(ROOT)),
        "depth": DEPTH,
        "dense_window_lines": WINDOW,
        "engine": "tree ingested as a folder (code as code, offline); search: hybrid, documents",
        "mode": options.mode,
    }
    return {"figures": figures, "config": config}


def render_code(result: dict[str, Any]) -> str:
    """The section's table for BENCHMARKS.md."""
    rows = []
    for repo, figures in result.get("figures", {}).items():
        for ranker, by_half in figures["rankers"].items():
            study, held = by_half.get("study", {}), by_half.get("held_out", {})
            rows.append(
                f"| {repo} | {ranker} | {study.get('R@1')} / {study.get('R@5')} "
                f"| {held.get('R@1')} / {held.get('R@5')} "
                f"| {study.get('fn R@10', '—')} | {held.get('fn R@10', '—')} |"
            )
    header = (
        "| repository | ranker | file R@1 / R@5, studied half | held-out half "
        "| function R@10, studied | held-out |\n"
    )
    table = header + "|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
    calls = [
        f"| {repo} | {c['files']} | {c['engine_edges']} | {c['jedi_edges']} "
        f"| {c['precision']} | {c['recall']} | {c.get('candidate_edges', '—')} "
        f"| {c.get('first_candidate_precision', '—')} | {c.get('recall_with_candidates', '—')} |"
        for repo, figures in result.get("figures", {}).items()
        if (c := figures.get("calls"))
    ]
    timing = [
        f"| {repo} | {figures['files']} | {t['ingest_seconds']} | {t['files_per_second']} "
        f"| {t['reindex_one_file_seconds']} |"
        for repo, figures in result.get("figures", {}).items()
        if (t := figures.get("indexing"))
    ]
    if timing:
        table += (
            "\nIndexing (offline, MiniLM, 2 cores; one changed file read again with the folder):"
            "\n\n| repository | files | ingest s | files/s | re-index one changed file, s |\n"
            "|---|---|---|---|---|\n" + "\n".join(timing) + "\n"
        )
    if not calls:
        return table
    head = (
        "\nPython call edges against jedi's goto-definition (`bench/calls.py`):\n\n"
        "| repository | package files | engine edges | jedi edges | precision | recall "
        "| candidates by name only | first candidate right | recall with candidates |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
    )
    return table + head + "\n".join(calls) + "\n"


def main() -> None:
    """Run the section alone and print its figures."""
    result = run(RunOptions())
    out = TMP_DIR.parent / "code.quick.json"
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(render_code(result))


if __name__ == "__main__":
    main()
