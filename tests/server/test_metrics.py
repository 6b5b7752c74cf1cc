"""``GET /metrics``: what the engine reported, in the Prometheus text format, for an
administrator of every scope (the metrics count every scope's activity)."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from loregraph import AsyncGraph
from loregraph.access import Role
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
    async with client(keys.admin, metrics=metrics) as http:
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
    async with client(keys.admin) as http:
        problem(await http.get("/metrics"), 404, "not-found")


async def test_only_an_administrator_of_every_scope_reads_the_metrics(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    local_admin = (await graph.access.create_key("local", {"default": Role.ADMIN})).secret
    for key in (keys.reader, keys.writer, keys.other, local_admin):
        async with client(key, metrics=Metrics()) as http:
            refused = problem(await http.get("/metrics"), 403, "forbidden")
            assert "every scope" in refused["detail"]
    async with client(auth=False, metrics=Metrics()) as http:  # the local operator
        assert (await http.get("/metrics")).status_code == 200
