"""In-process fake LLMs for the peers: recorded extractions in, each peer's own format out.

A fake answers by the kind of prompt it is given (recognised by markers of the installed
peers' prompt templates): an extraction prompt gets the recorded entities and relations of
the chunk it carries; a gleaning ("continue") prompt gets nothing new; a description
summary gets a short concatenation of the descriptions; a query-keyword prompt gets valid
keyword JSON made from the question; a nano-graphrag community report gets a small valid
JSON report; anything else a short reply. Time spent inside the fake is measured so that
it can be set apart from the framework's own time.

Standard library only: the peers' processes import this module.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from typing import Any

from bench.peers.render import (
    LIGHTRAG_COMPLETE,
    ChunkIndex,
    normalize_ws,
    render_lightrag,
    render_nano,
)

SUMMARY_CHARS = 400
"""Length cap of a fake description summary."""

_STOP_WORDS = (
    "a an and are as at be by did do does for from had has have how in is it its of on or "
    "the to was were what when where which who whom whose why with"
)
_STOP = frozenset(_STOP_WORDS.split(" "))
_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:of|de|van|von|the)?\s*[A-Z][\w'’-]*)*")
_WORD = re.compile(r"[A-Za-z][\w'’-]+")


def question_keywords(question: str) -> tuple[list[str], list[str]]:
    """(high-level, low-level) keywords of a question: capitalised phrases are low-level
    (names), the remaining content words high-level."""
    low: list[str] = []
    for match in _CAPITALISED.finditer(question):
        phrase = match.group(0).strip()
        if phrase.lower() not in _STOP and phrase not in low:
            low.append(phrase)
    named = {w.lower() for p in low for w in p.split()}
    high: list[str] = []
    for word in _WORD.findall(question):
        key = word.lower()
        if key not in _STOP and key not in named and key not in high:
            high.append(key)
    return high, low


class FakeLLM:
    """Base of the fakes: counts calls by kind and the seconds spent answering."""

    peer = "base"

    def __init__(self, index: ChunkIndex) -> None:
        self.index = index
        self.calls: Counter[str] = Counter()
        self.seconds = 0.0
        self.entities_sent = 0
        self.relations_sent = 0

    async def __call__(
        self,
        prompt: str,
        system_prompt: str | None = None,
        history_messages: list[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> str:
        """Answer one prompt (the signature both peers call their LLM function with)."""
        started = time.perf_counter()
        try:
            kind, answer = self.answer(prompt, system_prompt or "", history_messages or [])
            self.calls[kind] += 1
            return answer
        finally:
            self.seconds += time.perf_counter() - started

    def answer(
        self, prompt: str, system_prompt: str, history: list[dict[str, Any]]
    ) -> tuple[str, str]:
        """(kind, reply) for one prompt."""
        raise NotImplementedError

    def stats(self) -> dict[str, Any]:
        """Calls by kind, seconds inside the fake, and the rows it sent."""
        return {
            "calls": dict(self.calls),
            "seconds": round(self.seconds, 3),
            "entities_sent": self.entities_sent,
            "relations_sent": self.relations_sent,
        }


def _between(text: str, start: str, end: str) -> str | None:
    at = text.find(start)
    if at < 0:
        return None
    at += len(start)
    stop = text.rfind(end)
    return text[at:stop] if stop > at else text[at:]


def _summary(prompt: str, after: str) -> str:
    body = prompt.split(after, 1)[1] if after in prompt else prompt
    text = normalize_ws(body.replace("```", " "))
    return text[:SUMMARY_CHARS]


class LightRAGFakeLLM(FakeLLM):
    """The fake for LightRAG 1.5.x (text-mode extraction, JSON keyword extraction)."""

    peer = "lightrag"

    def answer(
        self, prompt: str, system_prompt: str, history: list[dict[str, Any]]
    ) -> tuple[str, str]:
        """(kind, reply) for one LightRAG prompt."""
        chunk = _between(prompt, "---Input Text---\n```\n", "\n```")
        if chunk is not None:
            selection = self.index.select(chunk)
            self.entities_sent += len(selection.entities)
            self.relations_sent += len(selection.relations)
            return "extract", render_lightrag(selection)
        if "Based on the last extraction task" in prompt:
            return "glean", LIGHTRAG_COMPLETE
        if "User Query:" in prompt:
            query = prompt.rsplit("User Query:", 1)[1].split("---Output---", 1)[0]
            high, low = question_keywords(query.strip())
            payload = {"high_level_keywords": high, "low_level_keywords": low}
            return "keywords", json.dumps(payload)
        if "Description List:" in prompt:
            return "summary", _summary(prompt, "Description List:")
        return "other", "OK"


class NanoFakeLLM(FakeLLM):
    """The fake for nano-graphrag 0.0.8.x (tuple extraction, JSON community reports)."""

    peer = "nano-graphrag"

    def answer(
        self, prompt: str, system_prompt: str, history: list[dict[str, Any]]
    ) -> tuple[str, str]:
        """(kind, reply) for one nano-graphrag prompt."""
        if "-Real Data-" in prompt and "Entity_types:" in prompt:
            real = prompt.rsplit("-Real Data-", 1)[1]
            chunk = _between(real, "\nText: ", "\n######################\nOutput:") or ""
            selection = self.index.select(chunk)
            self.entities_sent += len(selection.entities)
            self.relations_sent += len(selection.relations)
            return "extract", render_nano(selection)
        if "MANY entities were missed" in prompt:
            return "glean", ""
        if "Answer YES | NO" in prompt:
            return "glean_loop", "NO"
        if "Write a comprehensive report of a community" in prompt:
            return "community_report", json.dumps(_community_report(prompt))
        if "Description List:" in prompt:
            return "summary", _summary(prompt, "Description List:")
        return "other", "OK"


def _community_report(prompt: str) -> dict[str, Any]:
    """A small valid report naming the community's first entity row of the real input."""
    real = prompt.rsplit("# Real Data", 1)[-1]
    title = "Community"
    lines = real.splitlines()
    for i, line in enumerate(lines):
        if line.replace(" ", "").startswith("id,") and "entity" in line and i + 1 < len(lines):
            cells = [c.strip().strip('"') for c in lines[i + 1].split(",")]
            if len(cells) > 1 and cells[1]:
                title = cells[1]
            break
    return {
        "title": title,
        "summary": f"A community around {title}.",
        "rating": 5.0,
        "rating_explanation": "Fixed rating of the benchmark's fake LLM.",
        "findings": [{"summary": title, "explanation": f"{title} and its neighbours."}],
    }
