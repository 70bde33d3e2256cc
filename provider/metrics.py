"""What operators watch (`/metrics`, Prometheus text format): one place that names every metric.

Labels are bounded by construction: routes are templates (`/v1/memories/{memory_id}/records`), not
paths; statements are names from the Cypher catalogue; nothing a caller chooses becomes a label. The
fair-share series name a principal, but only the first `UHP_METRICS_PRINCIPALS` this process sees
(fairness.PrincipalLabels); every other one counts as `other`.
The default registry is used, so several apps in one process (the tests) share one set of counts.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import Counter, Gauge, Histogram

# Latency buckets from a millisecond to a minute: an indexed read is ~1 ms, a bulk import batch seconds.
SECONDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

REQUESTS = Counter(
    "uhp_http_requests",
    "HTTP requests answered, by route template and status.",
    ["method", "route", "status"],
)
REQUEST_SECONDS = Histogram(
    "uhp_http_request_seconds",
    "Time to answer a request, by route template.",
    ["method", "route"],
    buckets=SECONDS,
)
IN_FLIGHT = Gauge("uhp_http_requests_in_flight", "Requests being answered now.")
NEO4J_SECONDS = Histogram(
    "uhp_neo4j_statement_seconds",
    "One named statement's transaction on the main database, retries included.",
    ["statement", "access"],
    buckets=SECONDS,
)
NEO4J_FAILURES = Counter("uhp_neo4j_statement_failures", "Statements that ended in an error.", ["statement"])
EMBEDDING_SECONDS = Histogram(
    "uhp_embedding_seconds", "One call of the embedding model (a batch).", buckets=SECONDS
)
EMBEDDED_TEXTS = Counter("uhp_embedded_texts", "Texts embedded.")
RERANK_SECONDS = Histogram(
    "uhp_rerank_seconds",
    "A recall's wait for the cross-encoder over its candidates not in the cache (queue and runs).",
    buckets=SECONDS,
)
RERANKED_PAIRS = Counter("uhp_reranked_pairs", "Question-and-record pairs the cross-encoder scored.")
RERANK_CACHED_PAIRS = Counter(
    "uhp_rerank_cached_pairs", "Question-and-record pairs whose score came from the cache, not the model."
)
SANDBOX_SECONDS = Histogram(
    "uhp_query_sandbox_seconds",
    "Named and free queries: `copy` loads a scope into the sandbox, `run` runs the statement there.",
    ["phase"],
    buckets=SECONDS,
)
SANDBOX_LOADED_RECORDS = Counter(
    "uhp_query_sandbox_loaded_records", "Records sent to the query sandbox by first loads of copies."
)
SANDBOX_APPLIED_RECORDS = Counter(
    "uhp_query_sandbox_applied_records", "Changed records applied to held copies in the query sandbox."
)
SANDBOX_LOADS_IN_FLIGHT = Gauge(
    "uhp_query_sandbox_loads_in_flight", "First loads of copies into the query sandbox under way."
)
SANDBOX_QUERIES = Gauge("uhp_query_sandbox_queries_in_flight", "Queries waiting for or running in a sandbox.")
OBSERVE_JOBS_RUNNING = Gauge("uhp_observe_jobs_running", "Observe jobs running in this process.")
OBSERVE_JOBS_WAITING = Gauge("uhp_observe_jobs_waiting", "Observe jobs of this process waiting for a turn.")
FAIR_ADMITTED = Counter(
    "uhp_fair_admitted",
    "Requests given a turn by a fair queue, at once or after waiting.",
    ["queue", "principal"],
)
FAIR_QUEUED = Counter("uhp_fair_queued", "Requests that had to wait in a fair queue.", ["queue", "principal"])
FAIR_REFUSED = Counter(
    "uhp_fair_refused",
    "Requests a fair queue refused (429): shed from a full queue, or waited too long.",
    ["queue", "principal"],
)
FAIR_DEPTH = Gauge("uhp_fair_queue_depth", "Requests waiting in a fair queue now.", ["queue"])
FAIR_WAIT_SECONDS = Histogram(
    "uhp_fair_wait_seconds",
    "How long a request waited for its turn in a fair queue.",
    ["queue"],
    buckets=SECONDS,
)
BUDGET_ADMITTED = Counter(
    "uhp_budget_admitted", "Requests within their principal's budgets, by budget.", ["budget", "principal"]
)
BUDGET_REFUSED = Counter(
    "uhp_budget_refused",
    "Requests refused 429 for a budget: `reads`, `writes`, `queries` or `in_flight`.",
    ["budget", "principal"],
)
EMBED_BATCH_TEXTS = Histogram(
    "uhp_embedding_batch_texts",
    "Texts in one batched model call (questions and records of any principals together).",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128),
)
SCHEMA_CHECKS_WAITING = Gauge(
    "uhp_schema_checks_in_flight", "Params and attribute schema checks in worker processes."
)


@contextmanager
def timed(histogram: Histogram, **labels: str) -> Iterator[None]:
    """Observes the block's wall time, also when it raises."""
    start = time.perf_counter()
    try:
        yield
    finally:
        (histogram.labels(**labels) if labels else histogram).observe(time.perf_counter() - start)
