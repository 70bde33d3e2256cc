"""Traces: a span per request with the embedding and each named statement under it, and nothing said.

The SDK's in-memory exporter stands in for a collector, and a small OTLP/HTTP sink checks what the
variables send (tests/integration/test_otlp_collector.py sends to a real collector). Spans are
exported as each ends, so a test reads them as soon as it is answered.
"""

from __future__ import annotations

import io
import json
import secrets
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest
from fastapi.testclient import TestClient
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from provider import tracing
from provider.api.mcp.server import tool_span
from provider.models import Explanation, SignalPart
from tests.api.test_observability import root_logging  # noqa: F401  (a fixture)
from tests.conftest import Member, make_memory


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    tracing.install(exporter, batch=False)
    yield exporter
    tracing.shutdown()


def request_span(exporter: InMemorySpanExporter, request_id: str) -> ReadableSpan:
    mine = [
        s for s in exporter.get_finished_spans() if (s.attributes or {}).get("uhp.request_id") == request_id
    ]
    assert len(mine) == 1, [s.name for s in exporter.get_finished_spans()]
    return mine[0]


def trace_of(exporter: InMemorySpanExporter, root: ReadableSpan) -> list[ReadableSpan]:
    """Every span under `root`, however deep."""
    assert root.context is not None
    below, parents = [], {root.context.span_id}
    for candidate in sorted(exporter.get_finished_spans(), key=lambda s: s.start_time or 0):
        if candidate.parent is not None and candidate.parent.span_id in parents:
            assert candidate.context is not None
            below.append(candidate)
            parents.add(candidate.context.span_id)
    return below


def attribute_text(found: Sequence[ReadableSpan]) -> str:
    return json.dumps(
        [{"name": s.name, **{k: str(v) for k, v in (s.attributes or {}).items()}} for s in found]
    )


def test_a_recall_is_one_request_span_over_its_embedding_and_named_statements(
    client: TestClient, alice: Member, spans: InMemorySpanExporter
) -> None:
    memory = make_memory(client, alice)
    secret, asked = "zq" + secrets.token_hex(6), "xv" + secrets.token_hex(6)
    body = {"type": "fact", "content": f"The vault word is {secret}."}
    written = client.post(f"/v1/memories/{memory['id']}/records", json=body, headers=alice.headers)
    assert written.status_code == 200
    answer = client.post(
        f"/v1/memories/{memory['id']}/recall", json={"query": f"vault word {asked}"}, headers=alice.headers
    )
    assert answer.status_code == 200 and secret in answer.text

    root = request_span(spans, answer.headers["x-request-id"])
    assert root.name == "POST /v1/memories/{memory_id}/recall" and root.kind == SpanKind.SERVER
    assert root.attributes is not None
    assert root.attributes["http.request.method"] == "POST"
    assert root.attributes["http.route"] == "/v1/memories/{memory_id}/recall"
    assert root.attributes["http.response.status_code"] == 200
    below = trace_of(spans, root)
    names = [s.name for s in below]
    assert "embeddings all-MiniLM-L6-v2" in names, names
    statements = [s for s in below if s.name.startswith("neo4j ")]
    assert statements, names
    for statement in statements:
        assert statement.kind == SpanKind.CLIENT and statement.attributes is not None
        assert statement.attributes["db.system.name"] == "neo4j"
        assert statement.name == "neo4j " + str(statement.attributes["db.query.summary"])
        assert " " not in str(statement.attributes["db.query.summary"])  # a catalogue name, not Cypher
    everything = attribute_text(spans.get_finished_spans())
    for never in (secret, asked, alice.key, memory["id"]):
        assert never not in everything


def explanation(said: dict[str, Any]) -> Explanation:
    """A result's `explain` as the service held it before the wire."""

    def part(raw: dict[str, Any]) -> SignalPart:
        return SignalPart(rank=raw["rank"], score=raw["score"], added=raw.get("added", 0.0))

    rerank = said.get("rerank")
    return Explanation(
        signals={name: part(raw) for name, raw in said["signals"].items()},
        date_lift=said["date_lift"],
        fused_rank=said["fused_rank"],
        rerank=part(rerank) if rerank is not None else None,
    )


def test_a_reranked_recall_gives_its_ranks_by_signal_and_no_words(
    client: TestClient, alice: Member, spans: InMemorySpanExporter
) -> None:
    """The attributes a recall the cross-encoder ordered puts on its request's span."""
    memory = make_memory(client, alice)
    secret, asked = "zq" + secrets.token_hex(6), "Which city does Ana live in now?"
    records = f"/v1/memories/{memory['id']}/records"
    for text in (f"Ana moved to Paris ({secret}).", "Ana used to live in Berlin.", "The printer is empty."):
        written = client.post(records, json={"type": "episode", "content": text}, headers=alice.headers)
        assert written.status_code == 200
    ask = {"query": asked, "text": "Ana city", "rerank": True, "explain": True}
    reply = client.post(f"/v1/memories/{memory['id']}/recall", json=ask, headers=alice.headers)
    results = reply.json()["results"]
    assert len(results) == 3 and all("rerank" in r["explain"] for r in results)

    # Set by the recall itself, on its request's span.
    said = request_span(spans, reply.headers["x-request-id"]).attributes
    assert said is not None
    assert said["uhp.recall.reranked"] is True and said["uhp.recall.rerank_pairs"] == 3
    assert said["uhp.recall.results"] == 3
    assert said["uhp.recall.rank.rerank"] == tuple(r["explain"]["rerank"]["rank"] for r in results)
    assert said["uhp.recall.rank.fused"] == tuple(r["explain"]["fused_rank"] for r in results)
    for signal in ("query", "text"):
        expected = tuple(r["explain"]["signals"].get(signal, {}).get("rank", 0) for r in results)
        assert said[f"uhp.recall.rank.{signal}"] == expected
    everything = attribute_text(spans.get_finished_spans())
    for never in (secret, asked, "Paris", alice.key, memory["id"], *(r["record"]["id"] for r in results)):
        assert never not in everything


def test_a_plain_recall_says_it_was_not_reranked_and_tracing_off_reads_nothing(
    spans: InMemorySpanExporter,
) -> None:
    plain = Explanation(
        signals={"query": SignalPart(rank=1, score=0.8, added=0.01)}, date_lift=0.0, fused_rank=1
    )
    with tracing.span("plain recall"):
        tracing.recall_ranks(iter([plain]), explained=False)
    said = next(s for s in spans.get_finished_spans() if s.name == "plain recall").attributes
    assert said is not None and said["uhp.recall.reranked"] is False
    assert not [name for name in said if name.startswith("uhp.recall.rank")]

    def unread() -> Iterator[Explanation]:
        raise AssertionError("the results were read with no span recording")
        yield plain

    tracing.shutdown()
    tracing.recall_ranks(unread(), explained=True)
    tracing.recall_reranked(20)


def test_the_request_log_line_carries_the_trace_id(
    client: TestClient,
    alice: Member,
    spans: InMemorySpanExporter,
    root_logging: io.StringIO,  # noqa: F811
) -> None:
    answer = client.get("/v1/memories", headers=alice.headers)
    root = request_span(spans, answer.headers["x-request-id"])
    lines = [json.loads(line) for line in root_logging.getvalue().splitlines() if line.strip()]
    mine = [line for line in lines if line.get("request_id") == answer.headers["x-request-id"]]
    assert root.context is not None and len(mine) == 1
    assert mine[0]["trace_id"] == format(root.context.trace_id, "032x")


def test_a_caller_trace_is_continued_and_a_5xx_free_refusal_is_no_error(
    client: TestClient, alice: Member, spans: InMemorySpanExporter
) -> None:
    trace_id = secrets.token_hex(16)
    parent = f"00-{trace_id}-{secrets.token_hex(8)}-01"
    missing = "hmem_" + "0" * 32
    answer = client.get(f"/v1/memories/{missing}", headers={**alice.headers, "traceparent": parent})
    assert answer.status_code == 404
    root = request_span(spans, answer.headers["x-request-id"])
    assert root.context is not None and format(root.context.trace_id, "032x") == trace_id
    assert root.status.is_unset and missing not in attribute_text([root])


def test_off_records_nothing_and_holds_no_exporter(client: TestClient, alice: Member) -> None:
    exporter = InMemorySpanExporter()
    tracing.install(exporter, batch=False)
    tracing.shutdown()
    assert client.get("/v1/memories", headers=alice.headers).status_code == 200
    assert not tracing.enabled() and exporter.get_finished_spans() == ()
    with tracing.span("nothing", {"a": 1}) as span:
        assert not span.is_recording()


def test_the_standard_variables_decide() -> None:
    assert not tracing.configure({})
    assert not tracing.configure({"OTEL_TRACES_EXPORTER": "none"})
    assert not tracing.configure({"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"})
    with pytest.raises(ValueError, match="grpc"):
        tracing.configure({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
    with pytest.raises(ValueError, match="zipkin"):
        tracing.configure({"OTEL_TRACES_EXPORTER": "zipkin"})
    assert not tracing.enabled()
    try:
        assert tracing.configure({"OTEL_TRACES_EXPORTER": "otlp"})
        assert tracing.enabled()
        assert not tracing.configure({"OTEL_TRACES_EXPORTER": "otlp"})  # already on: left as it is
    finally:
        tracing.shutdown()
    assert not tracing.enabled()


def test_a_tool_span_names_only_tools_the_catalogue_knows() -> None:
    assert tool_span("memory_recall") == (
        "tools/call memory_recall",
        {"mcp.method.name": "tools/call", "gen_ai.tool.name": "memory_recall"},
    )
    assert tool_span("secret-" + secrets.token_hex(4))[0] == "tools/call unknown"


class OtlpSink(BaseHTTPRequestHandler):
    """Decodes each OTLP/HTTP export (protobuf) as a collector would, keeping span names and resource."""

    received: ClassVar[list[tuple[str, dict[str, str]]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        export = ExportTraceServiceRequest.FromString(body)
        for resource_spans in export.resource_spans:
            resource = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
            for scope in resource_spans.scope_spans:
                self.received.extend((span.name, resource) for span in scope.spans)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_the_otlp_variables_send_spans_over_http(
    client: TestClient, alice: Member, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), OtlpSink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    OtlpSink.received.clear()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "uhp-trace-test")
    try:
        assert tracing.configure({"OTEL_TRACES_EXPORTER": "otlp"})
        assert client.get("/v1/memories", headers=alice.headers).status_code == 200
    finally:
        tracing.shutdown()  # sends what is batched
        server.shutdown()
    names = {name for name, _ in OtlpSink.received}
    assert {"GET /v1/memories", "neo4j api_key_resolve"} <= names, names
    assert all(resource["service.name"] == "uhp-trace-test" for _, resource in OtlpSink.received)


def test_a_free_query_shows_its_sandbox_calls_without_the_statement(
    client: TestClient, alice: Member, spans: InMemorySpanExporter
) -> None:
    memory = make_memory(client, alice)
    marker = "q" + secrets.token_hex(6)
    free = {"statement": f"MATCH (r:Record) WHERE r.id <> '{marker}' RETURN count(r) AS n"}
    answer = client.post(f"/v1/memories/{memory['id']}/query", json=free, headers=alice.headers)
    assert answer.status_code == 200
    below = trace_of(spans, request_span(spans, answer.headers["x-request-id"]))
    runs = [s for s in below if s.name == "sandbox POST /scopes/{key}/run"]
    assert len(runs) == 1 and runs[0].attributes is not None
    assert runs[0].attributes["http.response.status_code"] == 200
    assert marker not in attribute_text(spans.get_finished_spans())
