"""Admission: each principal's budgets, then a fair turn at the work (docs/OPERATIONS.md "Fair share").

Two plain-ASGI layers (middleware.py says why plain), both after authentication:

- `Budgets` counts a principal's requests against its rate for the request's class (reads, writes,
  queries: a moving window kept by the `limits` library, in this process's memory) and its cap on
  requests in flight. Past either: 429 `rate_limited` with `Retry-After`, held `UHP_REFUSAL_DELAY_MS`
  first so a client that retries at once spends none of the service's time. Every answer it admits
  carries the IETF draft's `RateLimit-Policy` and `RateLimit` fields for the class's budget.
- `FairTurns` reads the (already capped) body, then waits for a slot in its class's `FairGate`
  (reads, writes, queries: each class has slots and a queue of its own, so a flood of slow queries
  never makes a reader wait), served round-robin by principal, and gives the slot back as the answer
  starts. Reading first means a
  client that sends its body slowly holds a connection, never a slot. Routes whose bodies or answers
  stream (uploads, restores, exports, file content) skip the gate: they have bounds of their own.

A refused request did nothing: both layers answer before any route runs.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections import defaultdict
from dataclasses import dataclass

from fastapi import Request
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from provider import metrics
from provider.api.edge import route_path
from provider.api.errors import error_response
from provider.config import Settings
from provider.errors import BusyError, RateLimitedError
from provider.fairness import FairGate, PrincipalLabels, current_principal
from provider.models import Caller

QUERY = re.compile(r"/v1/memories/[^/]+/(query|queries/[^/]+)")
READ_BY_POST = re.compile(r"/v1/memories/[^/]+/(recall|graph)|/v1/mcp/memories")
STREAMED = re.compile(
    r"/v1/files|/v1/memories/[^/]+/(restore|export)|/v1/memories/[^/]+/records/[^/]+/content/[^/]+"
)


def request_class(method: str, path: str) -> str:
    """The budget a request counts against: `queries`, `reads` or `writes`.

    An MCP tool call counts as a read: most are recalls, and its body is not read at this layer.
    """
    if method == "POST" and QUERY.fullmatch(path):
        return "queries"
    if method in ("GET", "HEAD", "OPTIONS") or (method == "POST" and READ_BY_POST.fullmatch(path)):
        return "reads"
    return "writes"


def member_caller(scope: Scope) -> Caller | None:
    """The member a request acts for, once the edge authenticated it; None for admin and public paths."""
    caller = scope.get("state", {}).get("caller")
    return caller if isinstance(caller, Caller) else None


@dataclass(frozen=True)
class Budget:
    """One class's rate, as the limiter and the RateLimit fields name it."""

    name: str
    item: RateLimitItem

    @property
    def policy(self) -> str:
        """`RateLimit-Policy`: the quota and its window in seconds."""
        return f'"{self.name}";q={self.item.amount};w={self.item.get_expiry()}'


class Budgets:
    """Each principal's rate per request class and its requests in flight; 429 past either."""

    def __init__(self, app: ASGIApp, *, settings: Settings, labels: PrincipalLabels):
        self.app = app
        self.labels = labels
        self.budgets = {
            name: Budget(name, parse(rate))
            for name, rate in (
                ("reads", settings.rate_reads),
                ("writes", settings.rate_writes),
                ("queries", settings.rate_queries),
            )
            if parse(rate).amount > 0
        }
        self.limiter = MovingWindowRateLimiter(MemoryStorage())
        self.in_flight_cap = settings.in_flight_per_principal
        self.refusal_delay = settings.refusal_delay_ms / 1000
        self.in_flight: defaultdict[str, int] = defaultdict(int)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        caller = member_caller(scope) if scope["type"] == "http" else None
        if caller is None:
            await self.app(scope, receive, send)
            return
        principal = caller.principal
        kind = request_class(scope["method"], route_path(scope))
        scope["state"]["request_class"] = kind  # the fair turn below waits in this class's queue
        budget = self.budgets.get(kind)
        refusal = self._refusal(principal, budget)
        if refusal is not None:
            await asyncio.sleep(min(refusal.retry_after, self.refusal_delay))
            answer = error_response(Request(scope), refusal)
            await answer(scope, receive, self._stamped(send, principal, budget))
            return
        metrics.BUDGET_ADMITTED.labels(budget.name if budget else "none", self.labels(principal)).inc()
        self.in_flight[principal] += 1
        token = current_principal.set(principal)
        try:
            await self.app(scope, receive, self._stamped(send, principal, budget))
        finally:
            current_principal.reset(token)
            self.in_flight[principal] -= 1
            if not self.in_flight[principal]:
                del self.in_flight[principal]

    def _refusal(self, principal: str, budget: Budget | None) -> RateLimitedError | None:
        """The 429 this request gets, or None: the cap in flight first, then the rate (which it spends)."""
        if self.in_flight_cap and self.in_flight.get(principal, 0) >= self.in_flight_cap:
            metrics.BUDGET_REFUSED.labels("in_flight", self.labels(principal)).inc()
            return RateLimitedError(
                f"This principal already has {self.in_flight_cap} requests in flight, the cap "
                "(UHP_IN_FLIGHT_PER_PRINCIPAL); send the next when one has been answered.",
                retry_after=1,
                detail={"budget": "in_flight", "limit": self.in_flight_cap},
            )
        if budget is None or self.limiter.hit(budget.item, budget.name, principal):
            return None
        metrics.BUDGET_REFUSED.labels(budget.name, self.labels(principal)).inc()
        reset = self.limiter.get_window_stats(budget.item, budget.name, principal).reset_time
        return RateLimitedError(
            f"This principal sent more {budget.name} than its budget of {budget.item.amount} per "
            f"{budget.item.get_expiry()} s (UHP_RATE_{budget.name.upper()}).",
            retry_after=max(1, math.ceil(reset - time.time())),
            detail={
                "budget": budget.name,
                "limit": budget.item.amount,
                "window_seconds": budget.item.get_expiry(),
            },
        )

    def _stamped(self, send: Send, principal: str, budget: Budget | None) -> Send:
        """Adds the budget's RateLimit-Policy and RateLimit fields to the answer."""
        if budget is None:
            return send

        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start":
                stats = self.limiter.get_window_stats(budget.item, budget.name, principal)
                headers = MutableHeaders(scope=message)
                headers["RateLimit-Policy"] = budget.policy
                reset = max(0, math.ceil(stats.reset_time - time.time()))
                headers["RateLimit"] = f'"{budget.name}";r={stats.remaining};t={reset}'
            await send(message)

        return stamped


class FairTurns:
    """Reads the body, then waits for a slot of its class in the principal's turn.

    The slot goes back as the answer starts (or when the app ends without one).
    """

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        caller = member_caller(scope) if scope["type"] == "http" else None
        if caller is None or _streams(scope["method"], route_path(scope)):
            await self.app(scope, receive, send)
            return
        replay = await _read_body(receive)
        gates: dict[str, FairGate] = scope["app"].state.services.gates  # built with the services
        gate = gates[scope["state"]["request_class"]]
        try:
            await gate.acquire(caller.principal)
        except (RateLimitedError, BusyError) as refusal:
            await error_response(Request(scope), refusal)(scope, replay, send)
            return
        held = True

        def give_back() -> None:
            nonlocal held
            if held:
                held = False
                gate.release(caller.principal)

        async def releasing(message: Message) -> None:
            if message["type"] == "http.response.start":
                give_back()
            await send(message)

        try:
            await self.app(scope, replay, releasing)
        finally:
            give_back()


def _streams(method: str, path: str) -> bool:
    """Whether a request's body or answer streams, so that it waits for no slot.

    Uploads, restores, exports, file content, and the MCP endpoint's event stream (a GET that stays open).
    """
    return bool(STREAMED.fullmatch(path)) or (method == "GET" and path == "/v1/mcp/memories")


async def _read_body(receive: Receive) -> Receive:
    """Reads every body message now (the body cap outside this layer bounds them), replayed in order."""
    messages: list[Message] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body", False):
            break

    async def replay() -> Message:
        return messages.pop(0) if messages else await receive()

    return replay
