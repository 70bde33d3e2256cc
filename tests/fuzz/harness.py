"""Fuzzing support shared by tests/fuzz and bench/fuzz: the app's own OpenAPI with links added, a
requests session whose every request goes through the session's TestClient, the checks, and a tally.

Why a session over the TestClient rather than schemathesis' ASGI transport: the app's lifespan (the
Neo4j driver, the model, the sandboxes) runs on the TestClient's event loop; schemathesis would start
a second lifespan on a loop of its own, and the async driver cannot cross loops.
"""

from __future__ import annotations

import copy
import io
import json
import os
import threading
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import requests
import requests.adapters
import schemathesis
import urllib3
from fastapi.testclient import TestClient
from pydantic import SecretStr
from schemathesis import BaseSchema, Case, CheckContext, Response
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

from provider.api.app import create_app
from provider.config import Settings
from tests.support import ERROR_TYPES, SCHEMA_FILE

OPENAPI_PATH = "/openapi.json"
BASE_URL = "http://testserver"
SYNTHESIZED = "X-Fuzz-Raised"  # marks a 500 the TestClient re-raised instead of handing back

# The answer of each operation, by the published UHP schema's $defs (what tests/api validate too).
ANSWER_DEFS: dict[str, str] = {
    "GET /v1/uhp": "Discovery",
    "POST /v1/memories": "Memory",
    "GET /v1/memories": "MemoryList",
    "GET /v1/memories/{memory_id}": "Memory",
    "PUT /v1/memories/{memory_id}": "Memory",
    "GET /v1/memories/providers": "MemoryProviderList",
    "GET /v1/memories/types": "MemoryTypeList",
    "GET /v1/memories/{memory_id}/grants": "MemoryGrantList",
    "POST /v1/memories/{memory_id}/grants": "MemoryGrant",
    "POST /v1/memories/{memory_id}/records": "MemoryRecord",
    "GET /v1/memories/{memory_id}/records": "MemoryRecordList",
    "GET /v1/memories/{memory_id}/records/{record_id}": "MemoryRecord",
    "PATCH /v1/memories/{memory_id}/records/{record_id}": "MemoryRecord",
    "POST /v1/memories/{memory_id}/recall": "MemoryRecall",
    "POST /v1/memories/{memory_id}/graph": "MemoryGraph",
    "POST /v1/memories/{memory_id}/erase": "MemoryErasure",
    "POST /v1/memories/{memory_id}/snapshots": "MemorySnapshot",
    "GET /v1/memories/{memory_id}/snapshots": "MemorySnapshotList",
    "GET /v1/memories/{memory_id}/consolidations": "MemoryConsolidationList",
    "GET /v1/memories/{memory_id}/consolidations/{run_id}": "MemoryConsolidation",
    "GET /v1/memories/{memory_id}/queries": "MemoryQueryList",
    "PUT /v1/memories/{memory_id}/queries/{name}": "MemoryQuery",
    "GET /v1/harnesses/{harness_id}/memories": "HarnessMemories",
    "PUT /v1/harnesses/{harness_id}/memories": "HarnessMemories",
    "POST /v1/files": "File",
}

# Which answer field feeds which path parameter: (source operation, parameter, link expression).
PRODUCERS: list[tuple[str, str, str]] = [
    ("POST /v1/memories", "memory_id", "$response.body#/id"),
    ("POST /v1/memories/{memory_id}/records", "record_id", "$response.body#/id"),
    ("POST /v1/memories/{memory_id}/consolidations", "run_id", "$response.body#/id"),
    ("POST /v1/memories/{memory_id}/grants", "grant_id", "$response.body#/id"),
    ("PUT /v1/memories/{memory_id}/queries/{name}", "name", "$request.path.name"),
    ("POST /v1/admin/members", "member_id", "$response.body#/id"),
    ("POST /v1/admin/members/{member_id}/keys", "key_id", "$response.body#/id"),
    ("POST /v1/admin/groups", "group_id", "$response.body#/id"),
    ("POST /v1/admin/harnesses", "harness_id", "$response.body#/id"),
]

# One valid body per operation whose documented schema a generated body rarely satisfies (the
# models check more than the OpenAPI says: a type name's pattern, a principal's form, one of
# query/text/filters); written into the served schema as `example`, so schemathesis' explicit
# phase sends each at least once and the accepting path is exercised, not only refusals.
EXAMPLE_BODIES: dict[str, Any] = {
    "POST /v1/memories/{memory_id}/records": {
        "type": "fact",
        "title": "acme",
        "content": "Acme renewed its contract in March",
        "attributes": {"tier": "gold", "seats": 40},
    },
    "PATCH /v1/memories/{memory_id}/records/{record_id}": {"content": "Acme renewed in April"},
    "POST /v1/memories/{memory_id}/recall": {
        "query": "when did acme renew",
        "filters": {"field": "attributes.tier", "op": "eq", "value": "gold"},
    },
    "POST /v1/memories/{memory_id}/observe": {
        "episodes": [{"content": [{"type": "text", "role": "user", "text": "Acme renewed today"}]}]
    },
    "POST /v1/memories/{memory_id}/grants": {"principal": "group:hgrp_0", "privileges": ["read"]},
    "POST /v1/memories/{memory_id}/graph": {"hops": 2, "limit": 50},
    "POST /v1/memories/{memory_id}/query": {"statement": "MATCH (r:Record) RETURN r.title AS t LIMIT 5"},
    "PUT /v1/memories/{memory_id}/queries/{name}": {
        "body": "MATCH (r:Record) WHERE r.title = $title RETURN r.id AS id",
        "params": {"type": "object", "properties": {"title": {"type": "string"}}},
    },
    "POST /v1/memories/{memory_id}/queries/{name}": {"params": {"title": "acme"}},
}

# Statuses FastAPI documents by itself on every operation; an operation that documents nothing more
# has not documented its answers, and the status-code check cannot mean anything there.
FASTAPI_DEFAULT_STATUSES = frozenset({"200", "422"})


def examples() -> int:
    """Examples per operation: UHP_FUZZ_EXAMPLES, small by default so CI stays within minutes."""
    return int(os.environ.get("UHP_FUZZ_EXAMPLES", "25"))


def _operations(spec: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        f"{method.upper()} {path}": operation
        for path, item in spec["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict)
    }


def _path_params(label: str) -> set[str]:
    path = label.split(" ", 1)[1]
    return {part[1:-1] for part in path.split("/") if part.startswith("{") and part.endswith("}")}


def with_links(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The served OpenAPI plus EXAMPLE_BODIES and links: each producer's answer feeds that parameter
    of every operation whose path names it; the producer's own path parameters are carried along."""
    linked: dict[str, Any] = copy.deepcopy(dict(spec))
    operations = _operations(linked)
    for label, example in EXAMPLE_BODIES.items():
        if label in operations and "requestBody" in operations[label]:
            operations[label]["requestBody"]["content"]["application/json"]["example"] = example
    for source, parameter, expression in PRODUCERS:
        links = operations[source]["responses"]["200"].setdefault("links", {})
        carried = _path_params(source) - {parameter}
        for target, operation in operations.items():
            wanted = _path_params(target)
            if target == source or parameter not in wanted:
                continue
            parameters = {parameter: expression} | {p: f"$request.path.{p}" for p in carried & wanted}
            links[f"{parameter}_to_{operation['operationId']}"] = {
                "operationId": operation["operationId"],
                "parameters": parameters,
            }
    return linked


def app_spec() -> dict[str, Any]:
    """The OpenAPI of an app built from the routes alone (no lifespan, so no Neo4j): what
    `create_app` serves at /openapi.json. Loaded at import, because schemathesis parametrizes at
    collection (its fixture-based loader reads `Node._nodeid`, which pytest 9.2 no longer has).
    test_openapi.test_served_schema_is_the_fuzzed_one checks the running app serves the same."""
    routes_only = Settings(
        environment="test", admin_key=SecretStr("adm_" + "x" * 32), neo4j_uri="bolt://127.0.0.1:9"
    )
    spec: dict[str, Any] = create_app(routes_only).openapi()
    return spec


# A restore's body is a tar: fuzzed as arbitrary bytes, sent as they are (it must answer 4xx, not 5xx).
schemathesis.serializer.alias("application/x-tar", "application/octet-stream")


def load_schema(spec: Mapping[str, Any]) -> BaseSchema:
    """The schema with links, as schemathesis sees it (no app: Sender sends the cases)."""
    schema = schemathesis.openapi.from_dict(with_links(spec))
    schema.config.update(base_url=BASE_URL)
    # Only the links above: schemathesis' own inference guesses hundreds more from names alone
    # (882 transitions, most of them nonsense such as PUT /memories/{id} feeding POST /memories).
    schema.config.phases.stateful.inference.algorithms = []
    return schema


class ClientAdapter(requests.adapters.HTTPAdapter):
    """Hands each prepared request, byte for byte, to the TestClient and wraps its answer for requests.

    The TestClient re-raises an exception the app did not handle (after the app sent its 500); the
    adapter keeps the traceback in `raised` and answers the 500 the server sent, marked SYNTHESIZED.
    """

    def __init__(self, client: TestClient):
        super().__init__()
        self.client = client
        self.raised: list[str] = []
        # The Authorization of a request that has none (schemathesis' negative cases drop it); set
        # by Sender, so every case is sent as the member whatever else was mutated.
        self.authorization: Callable[[str], str] | None = None

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        body = request.body.encode() if isinstance(request.body, str) else request.body
        assert body is None or isinstance(body, bytes), "the fuzzers send whole bodies"
        url = str(request.url)
        sent = {name: str(value) for name, value in request.headers.items()}
        if self.authorization is not None and "Authorization" not in request.headers:
            sent["Authorization"] = self.authorization(urllib3.util.parse_url(url).path or "/")
        headers = urllib3.HTTPHeaderDict()
        try:
            answer = self.client.request(str(request.method), url, content=body, headers=sent)
            status, content = answer.status_code, answer.content
            for name, value in answer.headers.multi_items():
                headers.add(name, value)
        except Exception:
            self.raised.append(traceback.format_exc())
            envelope = {"error": {"type": "server_error", "code": "internal", "message": "raised"}}
            status, content = 500, json.dumps(envelope).encode()
            headers.add("content-type", "application/json")
            headers.add(SYNTHESIZED, "1")
        raw = urllib3.HTTPResponse(
            body=io.BytesIO(content),
            headers=headers,
            status=status,
            preload_content=False,
            decode_content=False,
            request_method=request.method,
        )
        return self.build_response(request, raw)


def session_over(client: TestClient) -> tuple[requests.Session, ClientAdapter]:
    """A requests session that reaches the app through `client` only."""
    session = requests.Session()
    adapter = ClientAdapter(client)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session, adapter


# --- checks beyond schemathesis' own -------------------------------------------------------------


def documented_status(ctx: CheckContext, response: Response, case: Case[Any]) -> bool | None:
    """status_code_conformance, where the operation documents its statuses beyond FastAPI's defaults."""
    if set(case.operation.definition.raw.get("responses", {})) <= FASTAPI_DEFAULT_STATUSES:
        return None
    return status_code_conformance(ctx, response, case)


def _uhp_validator(definition: str) -> jsonschema.Draft202012Validator:
    document = _UHP_DOCUMENT.get("doc")
    if document is None:
        document = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
        _UHP_DOCUMENT["doc"] = document
    return jsonschema.Draft202012Validator({**document, "$ref": f"#/$defs/{definition}"})


_UHP_DOCUMENT: dict[str, Any] = {}


def uhp_conformance(ctx: CheckContext, response: Response, case: Case[Any]) -> bool | None:
    """Answers match the published UHP schema: every /v1 error is a whole ErrorEnvelope carrying the
    request id, and a 200 of an operation in ANSWER_DEFS is that $def (the OpenAPI says only "object")."""
    label = f"{case.method.upper()} {case.operation.path}"
    if response.status_code >= 400 and case.operation.path.startswith("/v1"):
        body = response.json()
        _uhp_validator("ErrorEnvelope").validate(body)
        error = body["error"]
        assert error["type"] in ERROR_TYPES, error
        assert "Traceback" not in error["message"] and "\n" not in error["message"], error
        assert error["request_id"] == header(response, "x-request-id"), error
    elif response.status_code == 200 and label in ANSWER_DEFS:
        _uhp_validator(ANSWER_DEFS[label]).validate(response.json())
    return None


CHECKS: list[Callable[..., bool | None]] = [
    not_a_server_error,
    response_schema_conformance,
    documented_status,
    uhp_conformance,
]


# --- the tally the summary and bench/fuzz print --------------------------------------------------


def outcome(case: Case[Any], response: Response) -> str:
    """`<mode> <status> <error code> <param>`: how a case was made and what it was told."""
    mode = case.meta.generation.mode.value if case.meta is not None else "stateful"
    try:
        error = response.json().get("error") or {}
    except (ValueError, AttributeError):
        error = {}
    detail = " ".join(str(error[key]) for key in ("code", "param") if error.get(key))
    return f"{mode} {response.status_code} {detail}".strip()


def _message(response: Response) -> str:
    try:
        return str((response.json().get("error") or {}).get("message", ""))
    except (ValueError, AttributeError):
        return response.text[:200]


def refused_positive(case: Case[Any], response: Response) -> bool:
    """A case made to fit the documented request schema, refused for its content (not 401/404):
    where the OpenAPI promises more than the wire models accept."""
    positive = case.meta is not None and case.meta.generation.mode.value == "positive"
    return positive and response.status_code in (400, 409, 413, 422)


@dataclass
class Tally:
    """Cases sent and outcomes, by operation; failures by check, with one example each."""

    cases: Counter[str] = field(default_factory=Counter)
    statuses: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    failures: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    examples: dict[str, str] = field(default_factory=dict)
    undocumented: Counter[str] = field(default_factory=Counter)
    outcomes: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    refused: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def sent(self, case: Case[Any], response: Response) -> None:
        label = case.operation.label
        documented = set(case.operation.definition.raw.get("responses", {}))
        with self.lock:
            self.cases[label] += 1
            self.statuses[label][f"{response.status_code // 100}xx"] += 1
            self.outcomes[label][outcome(case, response)] += 1
            if refused_positive(case, response):
                self.refused[label][_message(response)[:200]] += 1
            if str(response.status_code) not in documented:
                self.undocumented[label] += 1

    def failed(self, label: str, check: str, example: str) -> None:
        with self.lock:
            self.failures[label][check] += 1
            self.examples.setdefault(f"{label} {check}", example[:4000])

    def as_json(self) -> dict[str, Any]:
        return {
            label: {
                "cases": self.cases[label],
                "statuses": dict(self.statuses[label]),
                "undocumented_status": self.undocumented[label],
                "failures": dict(self.failures.get(label, {})),
                "outcomes": dict(self.outcomes[label].most_common()),
                "positive_refused": dict(self.refused[label].most_common(10)),
            }
            for label in sorted(self.cases)
        } | {"_examples": self.examples}

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.as_json(), indent=2), encoding="utf-8")


TALLY = Tally()


def collecting() -> bool:
    """UHP_FUZZ_COLLECT=1 (bench/fuzz sets it): record failures and keep going, instead of failing the
    operation's test at its first failure (and shrinking it)."""
    return os.environ.get("UHP_FUZZ_COLLECT") == "1"


def header(response: Response, name: str) -> str | None:
    """One header of a schemathesis Response, whatever case it was sent in."""
    for key, values in response.headers.items():
        if key.lower() == name.lower() and values:
            return values[0]
    return None


@dataclass
class Sender:
    """Sends cases as one member (the admin key for /v1/admin), checks them and tallies them."""

    session: requests.Session
    adapter: ClientAdapter
    member_key: str
    admin_key: str
    tally: Tally = field(default_factory=lambda: TALLY)

    def __post_init__(self) -> None:
        self.adapter.authorization = self.authorization

    def authorization(self, path: str) -> str:
        return f"Bearer {self.admin_key if path.startswith('/v1/admin') else self.member_key}"

    def headers_for(self, case: Case[Any]) -> dict[str, str]:
        return {"Authorization": self.authorization(case.operation.path)}

    def call(self, case: Case[Any]) -> Response:
        before = len(self.adapter.raised)
        response = case.call(session=self.session, headers=self.headers_for(case))
        self.tally.sent(case, response)
        if len(self.adapter.raised) > before:
            self.tally.failed(case.operation.label, "raised", self.adapter.raised[-1])
        return response

    def check(self, case: Case[Any], response: Response) -> None:
        headers = self.headers_for(case)
        try:
            case.validate_response(
                response,
                checks=CHECKS,
                headers=headers,
                transport_kwargs={"session": self.session, "headers": headers},
            )
        except FailureGroup as group:
            raised = "\n".join(self.adapter.raised[-1:]) if header(response, SYNTHESIZED) else ""
            for failure in group.exceptions:
                self.tally.failed(case.operation.label, failure.title, f"{group}\n{raised}")
            if not collecting():
                raise

    def exercise(self, case: Case[Any]) -> Response:
        response = self.call(case)
        self.check(case, response)
        return response


def table(report: Mapping[str, Any], *, per_operation: bool = True) -> list[str]:
    """The tally as text: one row per operation (or only the totals), then the failures by check."""
    rows = {label: row for label, row in report.items() if not label.startswith("_")}
    classes = ["2xx", "3xx", "4xx", "5xx"]
    lines = [f"{'operation':<64} {'cases':>6} " + " ".join(f"{c:>5}" for c in classes) + "  undoc  failures"]
    totals: Counter[str] = Counter()
    for label, row in rows.items():
        totals.update({"cases": row["cases"], "undoc": row["undocumented_status"]})
        totals.update(row["statuses"])
        totals.update({f"fail {name}": count for name, count in row["failures"].items()})
        if per_operation:
            failed = ", ".join(f"{name} x{count}" for name, count in row["failures"].items()) or "-"
            counts = " ".join(f"{row['statuses'].get(c, 0):>5}" for c in classes)
            lines.append(
                f"{label[:64]:<64} {row['cases']:>6} {counts}  {row['undocumented_status']:>5}  {failed}"
            )
    counts = " ".join(f"{totals[c]:>5}" for c in classes)
    failures = sum(count for name, count in totals.items() if name.startswith("fail "))
    total = f"total: {len(rows)} operations"
    lines.append(f"{total:<64} {totals['cases']:>6} {counts}  {totals['undoc']:>5}  {failures}")
    for name in sorted(name for name in totals if name.startswith("fail ")):
        lines.append(f"  {name[5:]}: {totals[name]}")
    return lines
