"""What operators see: Prometheus counts and timings, a JSON line per request with its id, readiness."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from provider.api.observability import RequestIdFilter, configure_logging
from tests.conftest import Member, make_memory


def samples(client: TestClient) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    answer = client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(answer.text)
        for s in family.samples
    }


def value(seen: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return seen.get((name, frozenset(labels.items())), 0.0)


def test_requests_are_counted_by_route_template_never_by_path(client: TestClient, alice: Member) -> None:
    before = samples(client)
    missing = "hmem_" + "0" * 32
    assert client.get(f"/v1/memories/{missing}", headers=alice.headers).status_code == 404
    assert client.get(f"/v1/memories/{missing}").status_code == 401  # refused before routing
    assert client.get("/no/such/place").status_code == 404
    after = samples(client)
    template = "/v1/memories/{memory_id}"
    routed = {"method": "GET", "route": template, "status": "404"}
    assert (
        value(after, "uhp_http_requests_total", **routed)
        == value(before, "uhp_http_requests_total", **routed) + 1
    )
    for status in ("401", "404"):  # refused at the edge; no route at all
        edge = {"method": "GET", "route": "unrouted", "status": status}
        assert (
            value(after, "uhp_http_requests_total", **edge)
            >= value(before, "uhp_http_requests_total", **edge) + 1
        )
    assert not any(missing in str(labels) for (_, labels) in after)
    assert value(after, "uhp_http_request_seconds_count", method="GET", route=template) >= 1


def test_neo4j_and_embedding_time_is_measured(client: TestClient, alice: Member) -> None:
    memory = make_memory(client, alice)
    before = samples(client)
    body = {"type": "fact", "content": "The lighthouse keeper logs the weather at dawn."}
    assert (
        client.post(f"/v1/memories/{memory['id']}/records", json=body, headers=alice.headers).status_code
        == 200
    )
    after = samples(client)
    assert value(after, "uhp_embedding_seconds_count") > value(before, "uhp_embedding_seconds_count")
    assert value(after, "uhp_embedded_texts_total") > value(before, "uhp_embedded_texts_total")
    writes = {
        labels: v
        for (name, labels), v in after.items()
        if name == "uhp_neo4j_statement_seconds_count" and ("access", "write") in labels
    }
    assert any(
        v > before.get(("uhp_neo4j_statement_seconds_count", labels), 0.0) for labels, v in writes.items()
    )


def test_queue_depths_and_sandbox_timings_are_exposed(client: TestClient, alice: Member) -> None:
    memory = make_memory(client, alice)
    free = {"statement": "MATCH (r:Record) RETURN count(r) AS n"}
    assert (
        client.post(f"/v1/memories/{memory['id']}/query", json=free, headers=alice.headers).status_code == 200
    )
    seen = samples(client)
    assert value(seen, "uhp_query_sandbox_seconds_count", phase="run") >= 1
    assert value(seen, "uhp_query_sandbox_seconds_count", phase="lease") >= 1
    for gauge in (
        "uhp_http_requests_in_flight",
        "uhp_observe_jobs_running",
        "uhp_observe_jobs_waiting",
        "uhp_query_sandbox_queries_in_flight",
        "uhp_schema_checks_in_flight",
    ):
        assert (gauge, frozenset()) in seen, gauge
    assert value(seen, "uhp_query_sandbox_queries_in_flight") == 0


@pytest.fixture
def root_logging() -> Iterator[io.StringIO]:
    """The service's logging set up as `serve` does, written to a buffer; put back afterwards."""
    root = logging.getLogger()
    saved, level = root.handlers[:], root.level
    configure_logging("json", "INFO")
    buffer = io.StringIO()
    root.handlers[0].setStream(buffer)  # type: ignore[attr-defined]
    yield buffer
    root.handlers[:] = saved
    root.setLevel(level)


def test_each_request_is_one_json_line_with_its_id(
    client: TestClient, alice: Member, root_logging: io.StringIO
) -> None:
    answer = client.get("/v1/memories", headers=alice.headers)
    request_id = answer.headers["x-request-id"]
    lines = [json.loads(line) for line in root_logging.getvalue().splitlines() if line.strip()]
    mine = [line for line in lines if line.get("request_id") == request_id]
    assert len(mine) == 1, lines
    line = mine[0]
    assert line["message"] == "request" and line["logger"] == "provider.http" and line["level"] == "INFO"
    assert line["route"] == "/v1/memories" and line["status"] == 200 and line["method"] == "GET"
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] > 0
    assert "time" in line


def test_a_log_record_made_outside_a_request_names_no_request() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "hello", None, None)
    assert RequestIdFilter().filter(record) and getattr(record, "request_id", "unset") is None


def test_metrics_can_be_switched_off(settings: object) -> None:
    from provider.api.app import create_app
    from provider.config import Settings

    assert isinstance(settings, Settings)
    quiet = TestClient(create_app(settings.model_copy(update={"metrics": False})))
    assert quiet.get("/metrics").status_code == 404
