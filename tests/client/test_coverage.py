"""Every route the app mounts has exactly one `Call` in the client's route table, and no Call is stale."""

from __future__ import annotations

import inspect
from collections import Counter
from urllib.parse import unquote

from fastapi.testclient import TestClient

from provider.client import generate, routes

# Mounted, documented, and deliberately not in the client, each for a reason.
LEFT_OUT = {
    ("GET", "/healthz"): "a liveness probe for load balancers, not a member's API",
    ("GET", "/readyz"): "a readiness probe for operators and load balancers",
    ("GET", "/v1/responses/{response_id}"): "the core surface's lookup; always 404 here (no tasks)",
    ("GET", "/v1/harnesses/{harness_id}"): "always 404 here: this server manages no harnesses",
}


def mounted(client: TestClient) -> set[tuple[str, str]]:
    """(method, path template) of each operation in the app's OpenAPI document."""
    paths = client.app.openapi()["paths"]  # type: ignore[attr-defined]
    return {(method.upper(), path) for path, operations in paths.items() for method in operations}


def called() -> list[tuple[str, str]]:
    """(method, path template) of each Call, made with each argument standing for its own name."""
    found = []
    for name, signature, _ in generate.surface():
        needed = [
            p.name
            for p in signature.parameters.values()
            if p.default is inspect.Parameter.empty and p.kind is not inspect.Parameter.VAR_KEYWORD
        ]
        call = getattr(routes, name)(*(f"{{{part}}}" for part in needed))
        found.append((call.method, unquote(call.path)))
    return found


def test_every_mounted_route_has_exactly_one_call(client: TestClient) -> None:
    routes_of_app = mounted(client)
    assert set(LEFT_OUT) <= routes_of_app, "a route left out is no longer mounted: drop it from LEFT_OUT"
    calls = Counter(called())
    missing = sorted(routes_of_app - set(LEFT_OUT) - set(calls))
    assert not missing, f"routes without a client method in provider/client/routes.py: {missing}"
    twice = sorted(route for route, count in calls.items() if count > 1)
    assert not twice, f"routes with more than one Call: {twice}"
    stale = sorted(set(calls) - routes_of_app)
    assert not stale, f"Calls of routes the app does not mount (or whose path differs): {stale}"
