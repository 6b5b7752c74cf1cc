"""Serves the recorded extraction replies of ``tests/fixtures/llm/dracula_replies.json``."""

from __future__ import annotations

import json
from pathlib import Path

from .fake_server import Call, Reply

REPLIES = Path(__file__).resolve().parent.parent / "fixtures" / "llm" / "dracula_replies.json"
CORRECTION = "Your previous reply could not be used"


class RecordedReplies:
    """A responder: picks the recorded reply whose marker the request's batch text holds."""

    def __init__(self, path: Path = REPLIES) -> None:
        data = json.loads(path.read_text(encoding="utf-8"))
        self.entities: list[dict[str, str]] = data["entities"]
        self.relationships: list[dict[str, str]] = data["relationships"]
        self.unmatched: list[Call] = []

    def __call__(self, call: Call) -> Reply:
        system = call.system
        if "entity extraction" in system:
            table, empty = self.entities, '{"entities": []}'
        elif "relationship extraction" in system:
            table, empty = self.relationships, '{"relationships": []}'
        else:
            self.unmatched.append(call)
            return Reply("{}")
        first_user = next(m["content"] for m in call.messages if m["role"] == "user")
        for entry in table:
            if entry["marker"] in first_user:
                if call.last_user.startswith(CORRECTION):
                    return Reply(entry.get("corrected", entry["reply"]))
                return Reply(entry["reply"])
        self.unmatched.append(call)
        return Reply(empty)


ANSWER = (
    "Count Dracula welcomed Jonathan Harker to his castle [1], and later Van Helsing "
    "examined Lucy Westenra [2]. The passages do not say why the Count chose England."
)
QUESTION = "How did Count Dracula welcome Jonathan Harker?"


class BookResponder(RecordedReplies):
    """The recorded extraction replies, plus query analysis, answers and merge decisions.

    ``flaky``: the first request whose batch text holds this marker is answered with a 429
    (``Retry-After: 0``), so the client retries it once.
    """

    def __init__(self, path: Path = REPLIES, *, flaky: str | None = None) -> None:
        super().__init__(path)
        self.flaky = flaky
        self.flaked = False
        self.asked: list[str] = []

    def __call__(self, call: Call) -> Reply:
        system = call.system
        if "You analyse a question" in system:
            self.asked.append("query")
            named = [n for n in ("Count Dracula", "Jonathan Harker") if n in call.last_user]
            return Reply(
                json.dumps({"intent": "relationship", "entities": named, "confidence": 0.9})
            )
        if "You answer questions" in system:
            self.asked.append("answer")
            return Reply(ANSWER)
        if "same real-world entity" in system:
            self.asked.append("merge")
            return Reply('{"same": true, "confidence": 0.95, "reason": "same person"}')
        if self.flaky and not self.flaked and self.flaky in call.last_user:
            self.flaked = True
            return Reply(status=429, headers={"Retry-After": "0"}, error="slow down")
        return super().__call__(call)
