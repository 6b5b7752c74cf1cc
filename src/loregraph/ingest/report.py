"""What an ingest did, for the user and for benchmarks."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from loregraph.ingest.read.readlog import SkippedInput

if TYPE_CHECKING:
    from loregraph.llm.usage import StageUsage


@dataclass(slots=True)
class DocumentFailure:
    """A document that could not be ingested; the store holds nothing of it."""

    source: str
    error: str


@dataclass(slots=True)
class ReplacedDocument:
    """A stored document that an input with the same identity replaced (or, in
    ``removed_documents``, that ``prune`` deleted: its file is gone)."""

    source: str
    title: str


SUMMARY_LIST_LIMIT = 20
"""Skipped inputs listed one per line in :meth:`IngestReport.summary` (all are in JSON)."""


@dataclass(slots=True)
class IngestReport:
    """Counts and timings of one ingest run.

    ``llm`` holds what the language model cost in this run, by stage
    (``extract.entities``...): calls, cached replies, retries, repairs, corrections,
    failures, tokens, and in ``notes`` what was dropped or resolved. It is empty when no
    LLM is configured.
    """

    documents_seen: int = 0
    ingested: int = 0
    replaced: int = 0
    skipped: int = 0
    failed: list[DocumentFailure] = field(default_factory=list)
    chunks: int = 0
    characters: int = 0
    entities_written: int = 0
    entities_new: int = 0
    mentions: int = 0
    relations: int = 0
    relations_new: int = 0
    typed_relations: int = 0
    merges: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    document_ids: list[str] = field(default_factory=list)
    replaced_documents: list[ReplacedDocument] = field(default_factory=list)
    removed_documents: list[ReplacedDocument] = field(default_factory=list)
    skipped_inputs: list[SkippedInput] = field(default_factory=list)
    llm: dict[str, StageUsage] = field(default_factory=dict)

    def add_time(self, stage: str, seconds: float) -> None:
        """Accumulate time spent in a stage."""
        self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds

    @property
    def ok(self) -> bool:
        """True when no document failed."""
        return not self.failed

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (LLM stages also carry their ``dropped`` total)."""
        data = asdict(self)
        for name, usage in self.llm.items():
            data["llm"][name]["dropped"] = usage.dropped
        return data

    def summary(self) -> str:
        """One human-readable paragraph."""
        total = sum(self.seconds.values())
        parts = [
            f"{self.ingested} ingested",
            f"{self.replaced} replaced",
            f"{self.skipped} unchanged (skipped)",
            f"{len(self.failed)} failed",
        ]
        lines = [f"Documents: {self.documents_seen} seen — " + ", ".join(parts) + "."]
        if self.ingested or self.replaced:
            lines.append(
                f"Wrote {self.chunks} chunks, {self.entities_written} entities "
                f"({self.entities_new} new), {self.relations} relations "
                f"({self.relations_new} new, {self.typed_relations} typed), "
                f"{self.mentions} mentions, "
                f"{self.merges} merges."
            )
        if self.seconds:
            stages = ", ".join(f"{k} {v:.1f}s" for k, v in self.seconds.items())
            lines.append(f"Time: {total:.1f}s ({stages}).")
        lines.extend(self._llm_lines())
        for replaced in self.replaced_documents:
            lines.append(f"Replaced: {replaced.title} ({replaced.source})")
        for removed in self.removed_documents:
            lines.append(f"Removed (its file is gone): {removed.title} ({removed.source})")
        lines.extend(self._skipped_lines())
        for failure in self.failed:
            lines.append(f"Failed: {failure.source}: {failure.error}")
        return "\n".join(lines)

    def _skipped_lines(self) -> list[str]:
        """One line per skipped file or record (the first :data:`SUMMARY_LIST_LIMIT`)."""
        if not self.skipped_inputs:
            return []
        count = len(self.skipped_inputs)
        lines = [f"Skipped {count} input{'s' if count != 1 else ''}:"]
        lines += [f"  {s.where}: {s.why}" for s in self.skipped_inputs[:SUMMARY_LIST_LIMIT]]
        if count > SUMMARY_LIST_LIMIT:
            lines.append(f"  ... and {count - SUMMARY_LIST_LIMIT} more (--json lists them all)")
        return lines

    def _llm_lines(self) -> list[str]:
        """The LLM totals (calls, cache, what was retried, repaired or dropped), then one
        line per stage."""
        if not self.llm:
            return []
        stages = sorted(self.llm.items())
        calls = sum(u.calls for _, u in stages)
        cached = sum(u.cached for _, u in stages)
        tokens = sum(u.prompt_tokens + u.completion_tokens for _, u in stages)
        head = (
            f"LLM: {calls} calls, {cached} cached, "
            f"{sum(u.retries for _, u in stages)} retried, "
            f"{sum(u.repairs for _, u in stages)} repaired, "
            f"{sum(u.corrections for _, u in stages)} corrected, "
            f"{sum(u.fallbacks for _, u in stages)} done offline, "
            f"{sum(u.dropped for _, u in stages)} dropped, "
            f"{sum(u.failures for _, u in stages)} failed; {tokens:,} tokens."
        )
        return [head, *(f"  {name}: {usage.line()}." for name, usage in stages)]
