"""Spans reach a real OpenTelemetry Collector over OTLP/HTTP, as a deployment sends them.

The collector is built from the Go module proxy by `python -m devtools otelcol` (about a minute,
once, into the cache; `scripts/test` does it before pytest, and the test builds it if it is missing).
It receives on a free port and prints each span (the debug exporter), which the test reads.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from devtools import otelcol
from provider import tracing
from tests.conftest import Member

CONFIG = """receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:{port}
exporters:
  debug:
    verbosity: detailed
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [debug]
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for(condition: Callable[[], bool], what: str, within_s: float = 60.0) -> None:
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


@pytest.fixture
def collector(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    binary = otelcol.build()  # once into the cache (scripts/test builds it before pytest); never skipped
    port = free_port()
    config, log = tmp_path / "config.yaml", tmp_path / "collector.log"
    config.write_text(CONFIG.format(port=port))
    with log.open("wb") as out:
        process = subprocess.Popen([str(binary), f"--config={config}"], stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_for(lambda: _listening(port), "the collector did not start listening")
            yield f"http://127.0.0.1:{port}/v1/traces", log
        finally:
            process.terminate()
            process.wait(timeout=30)


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_a_request_span_and_its_statements_arrive(
    client: TestClient, alice: Member, collector: tuple[str, Path]
) -> None:
    endpoint, log = collector
    tracing.install(OTLPSpanExporter(endpoint=endpoint))
    try:
        assert client.get("/v1/memories", headers=alice.headers).status_code == 200
    finally:
        tracing.shutdown()  # sends what is batched
    wait_for(lambda: "GET /v1/memories" in log.read_text(errors="replace"), "no request span arrived")
    text = log.read_text(errors="replace")
    assert "neo4j api_key_resolve" in text and "uhp-memory" in text
    assert alice.key not in text
