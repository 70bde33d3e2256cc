"""What one slow request spent its time on (OpenTelemetry traces): one place that names every span.

Off unless the standard `OTEL_*` variables ask for an exporter (`configure`; docs/OPERATIONS.md
"Traces"). While off, every span below is one shared no-op context: no tracer, nothing built.

Attributes are bounded as metric labels are: route templates, statement names from the Cypher
catalogue, tool names from the catalogue, counts, ranks, ids the provider made. Never a record's
content, a query's parameters or text, a key or a header. A failure is recorded by its type only: a
driver's message may quote a value.

The tracer provider is this module's own, never the global one: libraries that trace through the
global provider (the MCP SDK, FastAPI's native telemetry) stay silent, so only spans named here leave.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Protocol

from opentelemetry import context, trace
from opentelemetry.trace import Link, Span, SpanKind, StatusCode, Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from opentelemetry.util.types import AttributeValue

from provider import __version__

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

Attributes = Mapping[str, AttributeValue]
SERVICE_NAME = "uhp-memory"
OTLP_PROTOCOL = "http/protobuf"  # the one OTLP transport installed (opentelemetry-exporter-otlp-proto-http)
CLIENT, SERVER = SpanKind.CLIENT, SpanKind.SERVER
ERROR = StatusCode.ERROR
_W3C = TraceContextTextMapPropagator()
_OFF: AbstractContextManager[Span] = nullcontext(trace.INVALID_SPAN)
_tracer: Tracer | None = None
_provider: TracerProvider | None = None


def enabled() -> bool:
    """Whether spans are recorded now."""
    return _tracer is not None


def span(
    name: str,
    attributes: Attributes | None = None,
    *,
    kind: SpanKind = SpanKind.INTERNAL,
    root: bool = False,
    parent: context.Context | None = None,
) -> AbstractContextManager[Span]:
    """A span around the block, current inside it; `root`: a trace of its own, linked to the current one.

    Background work a request started (an observe job) is `root`: it outlives the request's trace.
    `parent`: the context a request came with (`incoming`), else the current one.
    """
    tracer = _tracer
    if tracer is None:
        return _OFF
    return _started(tracer, name, attributes or {}, kind, root, parent)


@contextmanager
def _started(
    tracer: Tracer,
    name: str,
    attributes: Attributes,
    kind: SpanKind,
    root: bool,
    parent: context.Context | None,
) -> Iterator[Span]:
    links = None
    if root:
        started_by = trace.get_current_span().get_span_context()
        parent, links = context.Context(), [Link(started_by)] if started_by.is_valid else None
    with tracer.start_as_current_span(
        name,
        context=parent,
        kind=kind,
        attributes=attributes,
        links=links,
        record_exception=False,
        set_status_on_exception=False,
    ) as current:
        try:
            yield current
        except BaseException as e:
            current.set_attribute("error.type", type(e).__qualname__)
            current.set_status(StatusCode.ERROR)
            raise


def incoming(traceparent: str | None, tracestate: str | None) -> context.Context | None:
    """The trace a caller's W3C `traceparent` header continues; None when it names none (or a bad one)."""
    if not traceparent:
        return None
    carrier = {"traceparent": traceparent, **({"tracestate": tracestate} if tracestate else {})}
    return _W3C.extract(carrier)


def trace_ids() -> tuple[str, str] | tuple[None, None]:
    """The current span's trace and span id in hex, as log lines carry them; Nones outside a span."""
    current = trace.get_current_span().get_span_context()
    if not current.is_valid:
        return None, None
    return format(current.trace_id, "032x"), format(current.span_id, "016x")


def statement(name: str, database: Attributes, *, write: bool) -> AbstractContextManager[Span]:
    """One named Cypher statement's transaction (retries included); `database` names db and server."""
    if _tracer is None:
        return _OFF
    attributes = {**database, "db.query.summary": name, "db.operation.name": "write" if write else "read"}
    return span(f"neo4j {name}", attributes, kind=SpanKind.CLIENT)


def embedding(model: str, texts: int) -> AbstractContextManager[Span]:
    """One call of the embedding model: how many texts, never which."""
    if _tracer is None:
        return _OFF
    attributes: dict[str, AttributeValue] = {
        "gen_ai.operation.name": "embeddings",
        "gen_ai.request.model": model,
        "uhp.embedding.texts": texts,
    }
    return span(f"embeddings {model}", attributes)


class Ranked(Protocol):
    """A signal's word on a recall hit: its place in that signal's own list, 1 first."""

    @property
    def rank(self) -> int: ...


class Explained(Protocol):
    """Why a recall result is where it is (`provider.models.Explanation` is one)."""

    @property
    def signals(self) -> Mapping[str, Ranked]: ...

    @property
    def fused_rank(self) -> int | None: ...

    @property
    def rerank(self) -> Ranked | None: ...


_SIGNAL = re.compile(r"[a-z][a-z_]{0,31}")


def recall_reranked(pairs: int) -> None:
    """On the current span (the recall's request or tool span): the cross-encoder scored `pairs` pairs."""
    if _tracer is not None:
        trace.get_current_span().set_attributes(
            {"uhp.recall.reranked": True, "uhp.recall.rerank_pairs": pairs}
        )


def recall_ranks(results: Iterable[Explained], *, explained: bool) -> None:
    """On the current span: whether the cross-encoder ordered the results, and each one's rank by signal.

    `uhp.recall.results` and `uhp.recall.reranked` always; when reranked or `explained`, also
    `uhp.recall.rank.<signal>` for each signal (`query`, `text`, `filters`, ...), `.fused` and
    `.rerank`: integer arrays aligned with the results, 0 where that signal did not place it. Numbers
    only: never a record's words, an id or the question. `results` is read only while recording.
    """
    current = trace.get_current_span()
    if _tracer is None or not current.is_recording():
        return
    placed = list(results)
    reranked = any(result.rerank is not None for result in placed)
    current.set_attributes({"uhp.recall.results": len(placed), "uhp.recall.reranked": reranked})
    if not (reranked or explained):
        return
    names = sorted({name for result in placed for name in result.signals if _SIGNAL.fullmatch(name)})
    ranks: dict[str, AttributeValue] = {
        f"uhp.recall.rank.{name}": [_rank(result.signals.get(name)) for result in placed] for name in names
    }
    ranks["uhp.recall.rank.fused"] = [result.fused_rank or 0 for result in placed]
    ranks["uhp.recall.rank.rerank"] = [_rank(result.rerank) for result in placed]
    current.set_attributes(ranks)


def _rank(part: Ranked | None) -> int:
    return part.rank if part is not None else 0


def configure(environ: Mapping[str, str] = os.environ) -> bool:
    """Turns tracing on when the variables name an exporter; False when off or already on.

    `OTEL_SDK_DISABLED=true` wins; else `OTEL_TRACES_EXPORTER` lists `otlp` and/or `console`, and
    unset or `none` leaves tracing off (the SDK's own default would be `otlp`: here nothing leaves the
    process unless asked). The exporter, sampler, batching and resource read their usual variables.
    """
    if _tracer is not None or environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    names = [n.strip().lower() for n in environ.get("OTEL_TRACES_EXPORTER", "").split(",") if n.strip()]
    exporters = [_exporter(name, environ) for name in names if name != "none"]
    if not exporters:
        return False
    install(*exporters)
    return True


def _exporter(name: str, environ: Mapping[str, str]) -> SpanExporter:
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter()
    if name != "otlp":
        raise ValueError(f"OTEL_TRACES_EXPORTER={name} is not one of otlp, console, none.")
    protocol = environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
    if protocol not in (None, "", OTLP_PROTOCOL):
        raise ValueError(f"OTLP traces are sent as {OTLP_PROTOCOL} only, not {protocol}.")
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def install(*exporters: SpanExporter, batch: bool = True) -> TracerProvider:
    """Records spans into these exporters from now on; `batch=False` exports each as it ends (tests)."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    global _tracer, _provider
    resource = Resource.create({"service.version": __version__})
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": SERVICE_NAME}))
    provider = TracerProvider(resource=resource)
    for exporter in exporters:
        provider.add_span_processor(BatchSpanProcessor(exporter) if batch else SimpleSpanProcessor(exporter))
    _provider, _tracer = provider, provider.get_tracer("provider", __version__)
    return provider


def shutdown() -> None:
    """Sends what is still batched and turns tracing off."""
    global _tracer, _provider
    provider, _provider, _tracer = _provider, None, None
    if provider is not None:
        provider.shutdown()
