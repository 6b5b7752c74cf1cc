"""``GET /metrics``: what the engine reported, in the Prometheus text format, for a key."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from loregraph import AsyncGraph
from loregraph.observe.metrics import Metrics

from .conftest import Client, Keys, problem


async def test_metrics_count_the_questions_asked(
    graph: AsyncGraph, client: Client, keys: Keys
) -> None:
    metrics = Metrics()
    graph.observers.observers.append(metrics)
    async with client(keys.reader, metrics=metrics) as http:
        assert (await http.post("/ask/json", json={"question": "Where is the castle?"})).is_success
        assert (await http.get("/search", params={"q": "castle"})).is_success
        response = await http.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }
    total = ("loregraph_stage_seconds_count", (("pipeline", "retrieve"), ("stage", "total")))
    assert samples[total] == 2
    assert any(name == "loregraph_results_total" for name, _ in samples)


async def test_metrics_need_a_key_and_exist_only_when_kept(client: Client, keys: Keys) -> None:
    async with client(metrics=Metrics()) as anonymous:
        problem(await anonymous.get("/metrics"), 401, "unauthorized")
    async with client(keys.reader) as http:
        problem(await http.get("/metrics"), 404, "not-found")
