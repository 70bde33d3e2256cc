"""The API's side of the query sandbox protocol: HTTP to the sandbox service, with its own token.

httpx2 is the runtime's HTTP client already (the MCP SDK's); httpx stays a test dependency.

The service holds scopes' copies, each under a key the API chose (a digest of scope and data
version); the API reads a copy from the main database and sends it as a list of load steps, so the
sandbox never holds a credential of the main database. Rows come back as plain JSON, failures as a
Neo4j code and GQL status that sandbox.failures turns into a fixed sentence.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import httpx2

from provider import tracing
from provider.errors import MemoryInvalidError, UnavailableError
from provider.sandbox.failures import sandbox_error
from provider.store.catalogue import statement

Step = tuple[str, dict[str, Any]]
# How long past a statement's own limit the client waits: the service answers at limit + its grace.
GRACE_SECONDS = 5.0
LOAD_SECONDS = 600.0
# Answers smaller than this are parsed where they arrive; larger ones (up to the answer bound) in a thread.
PARSE_ON_LOOP_BYTES = 64 * 1024


class ScopeGoneError(Exception):
    """The service does not hold the key (evicted, or never loaded): load it again."""


@dataclass(frozen=True)
class Plan:
    """What EXPLAIN says of a statement: its type ('r' reads only) and its operators."""

    query_type: str
    operators: list[tuple[str, str]]


@dataclass
class SandboxResult:
    """A statement's answer: plain rows, the record ids when every value was a Record node, what was cut."""

    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    record_ids: list[str] | None = None
    timed_out: bool = False
    capped: bool = False
    cut: str | None = None  # the bound that cut the answer short: "answer_bytes" or "value_bytes"


class SandboxClient:
    """One connection pool to the service; `close` ends it."""

    def __init__(self, url: str, token: str):
        self._http = httpx2.AsyncClient(
            base_url=url.rstrip("/"),
            headers={"Authorization": f"Bearer {token}"},
            timeout=httpx2.Timeout(30.0, connect=5.0),
            # The service is on a private network: no proxy from the environment stands in between.
            trust_env=False,
        )

    async def close(self) -> None:
        await self._http.aclose()

    def _span(self, method: str, path: str) -> tuple[str, dict[str, str | int]]:
        """A call's span name and attributes: the verb and path template, never a key or a statement."""
        template, url = _template(path), self._http.base_url
        attributes: dict[str, str | int] = {"http.request.method": method, "url.template": template}
        if url.host:
            attributes.update({"server.address": url.host, "server.port": url.port or 80})
        return f"sandbox {method} {template}", attributes

    async def health(self, timeout: float = 10.0) -> dict[str, Any]:
        return await self._call("GET", "/health", timeout=timeout)

    async def holds(self, key: str) -> bool:
        return await self.held_version(key) is not None

    async def held_version(self, key: str) -> str | None:
        """The data version the copy under `key` holds ("" when loaded without one), None when not held."""
        try:
            answer = await self._call("GET", f"/scopes/{key}", timeout=10.0)
        except ScopeGoneError:
            return None
        return str(answer.get("version") or "")

    async def put(
        self, key: str, schema: list[str], steps: list[Step] | AsyncIterator[Step], version: str = ""
    ) -> None:
        """Loads a copy under `key` into a new database on the template for `schema`, holding `version`."""
        body = _load_body(version, schema, steps)
        await self._call("PUT", f"/scopes/{key}", content=body, timeout=LOAD_SECONDS)

    async def apply(self, key: str, held: str, to: str, steps: list[Step]) -> str | None:
        """Brings the copy from `held` to `to` in one transaction.

        None when done, else the version the copy holds now (another caller moved it on first).
        """
        body = {
            "from": held,
            "to": to,
            "steps": [{"statement": text, "params": params} for text, params in steps],
            "refresh": statement("sandbox_words_refresh"),
        }
        encoded = await asyncio.to_thread(json.dumps, body)
        answer = await self._call(
            "POST", f"/scopes/{key}/apply", content=_once(encoded.encode()), timeout=LOAD_SECONDS
        )
        return None if answer.get("version") == to else str(answer.get("version") or "")

    async def delete(self, key: str) -> None:
        await self._call("DELETE", f"/scopes/{key}", timeout=30.0)

    async def explain(self, key: str, text: str, params: Mapping[str, Any], timeout_ms: int) -> Plan:
        """Neo4j's own parse and plan of the statement on the scope's copy, executing nothing."""
        body = {"statement": text, "params": dict(params), "timeout_ms": timeout_ms}
        answer = await self._statement(key, "explain", body, timeout_ms)
        if answer.get("timed_out"):
            raise MemoryInvalidError(
                "The statement took too long to plan.", param="statement", detail={"cause": "plan"}
            )
        return Plan(str(answer["query_type"]), [(str(n), str(d)) for n, d in answer["operators"]])

    async def run(
        self,
        key: str,
        text: str,
        params: Mapping[str, Any],
        *,
        timeout_ms: int,
        row_cap: int,
        answer_bytes: int | None = None,
    ) -> SandboxResult:
        """The statement in a READ transaction on the scope's copy, with its limit, row cap and byte bound."""
        body = {
            "statement": text,
            "params": dict(params),
            "timeout_ms": timeout_ms,
            "row_cap": row_cap,
            "answer_bytes": answer_bytes,
        }
        answer = await self._statement(key, "run", body, timeout_ms)
        if answer.get("timed_out"):
            return SandboxResult(columns=[], timed_out=True)
        return SandboxResult(
            columns=list(answer["columns"]),
            rows=list(answer["rows"]),
            record_ids=answer.get("record_ids"),
            capped=bool(answer.get("capped")),
            cut=answer.get("cut"),
        )

    async def _statement(self, key: str, verb: str, body: dict[str, Any], timeout_ms: int) -> dict[str, Any]:
        answer = await self._call(
            "POST", f"/scopes/{key}/{verb}", body, timeout=timeout_ms / 1000 + GRACE_SECONDS
        )
        failure = answer.get("failure")
        if failure is not None:
            raise sandbox_error(failure.get("code"), failure.get("gql_status"))
        return answer

    async def _call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        content: AsyncIterator[bytes] | None = None,
        timeout: float,
    ) -> dict[str, Any]:
        with tracing.span(*self._span(method, path), kind=tracing.CLIENT) as span:
            try:
                if content is not None:
                    response = await self._http.request(method, path, content=content, timeout=timeout)
                else:
                    response = await self._http.request(method, path, json=body, timeout=timeout)
            except httpx2.HTTPError as e:
                raise UnavailableError("The query sandbox cannot be reached right now.") from e
            span.set_attribute("http.response.status_code", response.status_code)
        if response.status_code == 404:
            raise ScopeGoneError(path)
        answer = await _parsed(response.content)
        if response.status_code == 409:
            return answer
        if response.status_code != 200:
            failure = answer.get("failure")
            if isinstance(failure, dict) and response.status_code == 500 and method == "PUT":
                raise UnavailableError(
                    "The query sandbox could not hold the copy.", detail={"cause": "sandbox"}
                )
            raise UnavailableError("The query sandbox failed.", detail={"cause": "sandbox"})
        return answer


def _template(path: str) -> str:
    """The path with the scope's key left out: `/scopes/{key}/run`."""
    parts = path.split("/")
    if len(parts) > 2 and parts[1] == "scopes":
        parts[2] = "{key}"
    return "/".join(parts)


async def _once(body: bytes) -> AsyncIterator[bytes]:
    yield body


async def _load_body(
    version: str, schema: list[str], steps: list[Step] | AsyncIterator[Step]
) -> AsyncIterator[bytes]:
    """The load as the service reads it (schema first, then steps), each batch encoded off the loop.

    A copy can hold many large records: encoding it whole on the event loop would stall every other
    caller, and holding it whole as one body would double what the copy costs in memory.
    """
    head = {"version": version, "schema": schema}
    yield json.dumps(head).encode()[:-1] + b', "steps": ['
    first = True
    async for text, params in _each(steps):
        encoded = await asyncio.to_thread(_encoded_step, text, params)
        yield encoded if first else b"," + encoded
        first = False
    yield b"]}"


async def _each(steps: list[Step] | AsyncIterator[Step]) -> AsyncIterator[Step]:
    if isinstance(steps, list):
        for step in steps:
            yield step
    else:
        async for step in steps:
            yield step


def _encoded_step(text: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"statement": text, "params": params}).encode()


async def _parsed(body: bytes) -> dict[str, Any]:
    """The service's JSON; a large answer (up to the answer bound) is parsed off the event loop."""
    if not body:
        return {}
    if len(body) < PARSE_ON_LOOP_BYTES:
        parsed: dict[str, Any] = json.loads(body)
        return parsed
    return cast(dict[str, Any], await asyncio.to_thread(json.loads, body))
