"""Ratios (peer / loregraph) and a short text summary of a peers benchmark run."""

from __future__ import annotations

from typing import Any

BASELINE = "loregraph"
PRESET_FOR_MODE = {"local": "local", "hybrid": "hybrid", "mix": "hybrid"}
"""Which loregraph preset a peer's query mode is compared with."""


def _ratio(peer: Any, base: Any) -> float | None:
    if not isinstance(peer, int | float) or not isinstance(base, int | float) or base <= 0:
        return None
    return round(peer / base, 2)


def ratios(systems: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """For each peer: its ingest time, framework-only ingest time, wall time, peak RSS and
    query p50/p95 divided by loregraph's (above 1 means loregraph is faster or smaller)."""
    base = systems.get(BASELINE, {})
    out: dict[str, Any] = {}
    for name, peer in systems.items():
        if name == BASELINE:
            continue
        same_chunks = systems.get(f"{BASELINE}-peer-chunks", {})
        entry: dict[str, Any] = {
            "ingest": _ratio(peer.get("ingest_seconds"), base.get("ingest_seconds")),
            "ingest_vs_peer_chunks": _ratio(
                peer.get("ingest_seconds"), same_chunks.get("ingest_seconds")
            ),
            "ingest_framework_only_vs_peer_chunks": _ratio(
                peer.get("ingest_seconds_framework"), same_chunks.get("ingest_seconds")
            ),
            "ingest_framework_only": _ratio(
                peer.get("ingest_seconds_framework"), base.get("ingest_seconds")
            ),
            "process_wall": _ratio(
                peer.get("process", {}).get("wall_seconds"),
                base.get("process", {}).get("wall_seconds"),
            ),
            "peak_rss_ingest": _ratio(peer.get("peak_rss_mb"), base.get("peak_rss_mb")),
        }
        queries: dict[str, Any] = {}
        for mode, figures in (peer.get("query") or {}).items():
            preset = PRESET_FOR_MODE.get(mode, "hybrid")
            ours = (base.get("query") or {}).get(preset, {})
            queries[f"{mode} vs loregraph {preset}"] = {
                "p50": _ratio(figures.get("p50_ms"), ours.get("p50_ms")),
                "p95": _ratio(figures.get("p95_ms"), ours.get("p95_ms")),
            }
        entry["query"] = queries
        out[name] = entry
    return out


def summary_lines(report: dict[str, Any]) -> list[str]:
    """One line per corpus and system: status, ingest seconds, counts, ratios, latencies."""
    lines: list[str] = []
    for corpus, section in report.get("corpora", {}).items():
        for name, sys_result in section.get("systems", {}).items():
            status = sys_result.get("status")
            if status != "ok" and "ingest_seconds" not in sys_result:
                reason = str(sys_result.get("reason", "")).splitlines()[-1:] or [""]
                lines.append(f"{corpus:8} {name:14} {status}: {reason[0][:160]}")
                continue
            ratio = section.get("ratios", {}).get(name, {})
            queries = ", ".join(
                f"{mode} p50 {q.get('p50_ms', 0):.1f} ms p95 {q.get('p95_ms', 0):.1f} ms"
                for mode, q in (sys_result.get("query") or {}).items()
            )
            lines.append(
                f"{corpus:8} {name:14} {status}: ingest {sys_result.get('ingest_seconds')} s"
                + (f" (x{ratio.get('ingest')} of loregraph)" if ratio else "")
                + f", entities {sys_result.get('entities')}, relations "
                f"{sys_result.get('relations')}, chunks {sys_result.get('chunks')}, "
                f"peak RSS {sys_result.get('peak_rss_mb')} MB; {queries}"
            )
    return lines
