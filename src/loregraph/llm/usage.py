"""Token and call counts per stage (``extract.entities``, ``answer``...).

One :class:`UsageTracker` is shared by everything that talks to a model in one engine; the
ingest report and the progress display read it. It is thread-safe (the embedding provider
runs in worker threads) and tells subscribers about every change.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any

COUNTERS = (
    "calls",
    "cached",
    "retries",
    "repairs",
    "corrections",
    "failures",
    "fallbacks",
    "prompt_tokens",
    "completion_tokens",
)

DROP_REASONS = ("malformed", "invalid", "low_confidence", "unknown_entity", "self", "ungrounded")
"""Note suffixes that count items a stage dropped (``relations_low_confidence``...)."""


@dataclass(slots=True)
class StageUsage:
    """What one stage cost and what went wrong in it.

    ``calls`` are requests sent to the server (retries included); ``cached`` are replies
    served from the response cache; ``retries`` are repeated attempts after a transient
    error; ``repairs`` are replies parsed only after tolerant repair; ``corrections`` are
    corrective retries (the model was shown its error); ``failures`` are calls that gave no
    usable answer in the end; ``fallbacks`` are batches done offline instead because the
    model's reply stayed unusable. ``notes`` holds stage-specific counts such as
    ``relations_dropped``.
    """

    calls: int = 0
    cached: int = 0
    retries: int = 0
    repairs: int = 0
    corrections: int = 0
    failures: int = 0
    fallbacks: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    notes: dict[str, int] = field(default_factory=dict)

    def add(self, other: StageUsage) -> None:
        """Add another stage's counts to this one."""
        for name in COUNTERS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for key, value in other.notes.items():
            self.notes[key] = self.notes.get(key, 0) + value

    @property
    def dropped(self) -> int:
        """Items dropped from the replies (malformed, invalid, low confidence, unknown or
        self-referencing ends, not found in the text): the sum of the matching ``notes``."""
        return sum(
            v for k, v in self.notes.items() if any(k.endswith("_" + r) for r in DROP_REASONS)
        )

    @property
    def tokens(self) -> int:
        """Prompt and completion tokens together."""
        return self.prompt_tokens + self.completion_tokens

    def is_empty(self) -> bool:
        """True when nothing was counted."""
        return not any(getattr(self, n) for n in COUNTERS) and not any(self.notes.values())

    def minus(self, other: StageUsage) -> StageUsage:
        """The counts added since ``other`` (an earlier copy of this stage)."""
        out = self.copy()
        for name in COUNTERS:
            setattr(out, name, getattr(self, name) - getattr(other, name))
        for key, value in other.notes.items():
            out.notes[key] = out.notes.get(key, 0) - value
        out.notes = {k: v for k, v in out.notes.items() if v}
        return out

    def copy(self) -> StageUsage:
        """An independent copy."""
        return StageUsage(
            **{f.name: getattr(self, f.name) for f in fields(self)} | {"notes": dict(self.notes)}
        )

    def line(self) -> str:
        """``12 calls, 3 cached, 1 retried, 2 repaired, 5,120+830 tokens``."""
        parts = [f"{self.calls} calls", f"{self.cached} cached"]
        for count, label in (
            (self.retries, "retried"),
            (self.repairs, "repaired"),
            (self.corrections, "corrected"),
            (self.failures, "failed"),
            (self.fallbacks, "done offline"),
        ):
            if count:
                parts.append(f"{count} {label}")
        parts.append(f"{self.prompt_tokens:,}+{self.completion_tokens:,} tokens")
        parts.extend(f"{v} {k.replace('_', ' ')}" for k, v in sorted(self.notes.items()) if v)
        return ", ".join(parts)


Listener = Callable[[str, StageUsage], None]


class UsageTracker:
    """Counts per stage; ``subscribe`` to hear about every change (progress display)."""

    def __init__(self) -> None:
        self._stages: dict[str, StageUsage] = {}
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(stage, usage_copy)`` after every change."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        """Stop calling ``listener`` (no error if it was not subscribed)."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def count(self, stage: str, **counts: int) -> None:
        """Add to counters of ``stage`` (names from :data:`COUNTERS`, others go to notes)."""
        with self._lock:
            usage = self._stages.setdefault(stage, StageUsage())
            for name, value in counts.items():
                if name in COUNTERS:
                    setattr(usage, name, getattr(usage, name) + value)
                else:
                    usage.notes[name] = usage.notes.get(name, 0) + value
            snapshot = usage.copy()
        for listener in list(self._listeners):
            listener(stage, snapshot)

    def stage(self, stage: str) -> StageUsage:
        """A copy of one stage's counts (zeros when it never ran)."""
        with self._lock:
            return self._stages.get(stage, StageUsage()).copy()

    def stages(self) -> dict[str, StageUsage]:
        """Copies of every stage's counts, by stage name."""
        with self._lock:
            return {name: usage.copy() for name, usage in self._stages.items()}

    def since(self, before: dict[str, StageUsage]) -> dict[str, StageUsage]:
        """What was counted after ``before`` (an earlier :meth:`stages`), by stage; stages
        with nothing new are left out."""
        out: dict[str, StageUsage] = {}
        for name, usage in self.stages().items():
            delta = usage.minus(before[name]) if name in before else usage
            if not delta.is_empty():
                out[name] = delta
        return out

    def total(self) -> StageUsage:
        """All stages added up."""
        out = StageUsage()
        for usage in self.stages().values():
            out.add(usage)
        return out

    def reset(self) -> None:
        """Forget all counts."""
        with self._lock:
            self._stages.clear()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``{stage: {...counts}, "total": {...}}``."""
        out: dict[str, Any] = {name: asdict(u) for name, u in self.stages().items()}
        out["total"] = asdict(self.total())
        return out

    def summary(self) -> str:
        """One line per stage, for reports."""
        stages = self.stages()
        if not stages:
            return "LLM: no calls."
        lines = [f"LLM {name}: {usage.line()}." for name, usage in sorted(stages.items())]
        return "\n".join(lines)
