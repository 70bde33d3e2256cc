"""Every answer counted, timed and logged once: Prometheus metrics and a JSON line per request.

Plain ASGI (middleware.py says why), inside the version check so the request id is known, outside
authentication so refusals are counted too. The route label is the matched route's template, or
`unrouted` for a request answered before routing: never a path a caller made up.
"""

from __future__ import annotations

import contextvars
import logging
import time
from typing import Any

from fastapi import FastAPI
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from provider import metrics, tracing

log = logging.getLogger("provider.http")
REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
UNROUTED = "unrouted"  # a refusal at the edge (401, 413, a version) or a path no route has


class RequestIdFilter(logging.Filter):
    """Puts the current request's id, and the current trace's ids, on every log record made meanwhile."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get()
        if not hasattr(record, "trace_id"):
            record.trace_id, record.span_id = tracing.trace_ids()
        return True


def route_template(scope: Scope) -> str:
    """The matched route's path template; `unrouted` for an answer given before or without routing."""
    route = scope.get("route")
    return str(route.path) if route is not None and hasattr(route, "path") else UNROUTED


class Observed:
    """Counts, times and logs each HTTP request."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = scope.get("state", {}).get("request_id")
        token = REQUEST_ID.set(request_id)
        status = 500
        started = time.perf_counter()

        async def observed(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        metrics.IN_FLIGHT.inc()
        try:
            await self.app(scope, receive, observed)
        finally:
            metrics.IN_FLIGHT.dec()
            elapsed = time.perf_counter() - started
            method, route = scope["method"], route_template(scope)
            metrics.REQUESTS.labels(method=method, route=route, status=str(status)).inc()
            metrics.REQUEST_SECONDS.labels(method=method, route=route).observe(elapsed)
            fields: dict[str, Any] = {
                "request_id": request_id,
                "method": method,
                "route": route,
                "status": status,
                "duration_ms": round(elapsed * 1000, 2),
            }
            log.info("request", extra=fields)
            REQUEST_ID.reset(token)


class Traced:
    """A span per HTTP request, named by method and route template; off, it costs one check.

    Inside the version check (the request id is known), outside `Observed`, so the request's own log
    line carries the trace id. A caller's W3C `traceparent` is continued. Attributes name the method,
    route template and status, never the path, query string or a header's value.
    """

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not tracing.enabled():
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        parent = tracing.incoming(headers.get("traceparent"), headers.get("tracestate"))
        method = scope["method"]
        attributes = {
            "http.request.method": method,
            "url.scheme": scope.get("scheme", "http"),
            "uhp.request_id": scope.get("state", {}).get("request_id") or "",
        }
        status = 500

        async def observed(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        with tracing.span(method, attributes, kind=tracing.SERVER, parent=parent) as span:
            try:
                await self.app(scope, receive, observed)
            finally:
                route = route_template(scope)
                span.set_attributes({"http.route": route, "http.response.status_code": status})
                span.update_name(method if route == UNROUTED else f"{method} {route}")
                if status >= 500:
                    span.set_attributes({"error.type": str(status)})
                    span.set_status(tracing.ERROR)


def install_metrics(app: FastAPI, enabled: bool) -> None:
    """When metrics are on, `GET /metrics` (no key: counts, never data)."""
    if not enabled:
        return

    @app.get("/metrics", include_in_schema=False)
    async def prometheus_metrics() -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


def configure_logging(log_format: str, level: str) -> None:
    """One handler on the root logger: JSON lines (default) or text, each with the request id.

    JSON lines carry `trace_id` and `span_id` too (null outside a span, and always while tracing is off).
    """
    from pythonjsonlogger.json import JsonFormatter

    handler = logging.StreamHandler()
    handler.addFilter(RequestIdFilter())
    if log_format == "json":
        handler.setFormatter(
            JsonFormatter(
                "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s %(trace_id)s %(span_id)s",
                rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
                timestamp=False,
            )
        )
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")
        )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
