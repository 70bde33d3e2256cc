"""What each tool does: the call the HTTP route makes, with the same services, checks and answer.

Where a route's handler is a plain function of (path, body, services, caller), the tool calls that
very function, so the answer is the route's answer byte for byte; where the route needs the request
itself (remember's Idempotency-Key), the tool makes the route's one service call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from provider.api.deps import Services
from provider.api.mcp import catalog
from provider.api.mcp.arguments import Arguments, arguments
from provider.api.mcp.standing import standing
from provider.api.routes import graph, memories, queries, recall, records
from provider.errors import MemoryInvalidError, MemoryNotFoundError
from provider.models import Caller
from provider.protocol.discovery import provider_document
from provider.protocol.memories import memory_json
from provider.protocol.queries import MemoryFreeQuery, MemoryQueryRun
from provider.protocol.recall_requests import GraphRequest, RecallRequest
from provider.protocol.record_requests import RecordCreate, RecordRevise
from provider.protocol.records import record_json
from provider.protocol.type_answers import outcome_json
from provider.protocol.type_requests import OperationBody
from provider.protocol.wire import parse

REASON = "revision_reason"  # where a revision's reason is kept: an attribute of the new version


@dataclass(frozen=True)
class Call:
    """One tool call: who makes it, with what, through which services."""

    services: Services
    caller: Caller
    args: Arguments


Answer = dict[str, Any]
Handler = Callable[[Call], Awaitable[Answer]]


async def list_memories(call: Call) -> Answer:
    """Without a memory, `GET /v1/memories?granted=true`; with one, the memory and its neighbours."""
    services, caller, target = call.services, call.caller, call.args.target
    if target.memory is None:
        return await memories.list_memories(services, caller, granted=True, limit=100, cursor=target.cursor)
    view = await services.tree.view(caller, target.memory)
    parent = None
    if view.visible_parent_id is not None:
        try:
            parent = memory_json(await services.tree.view(caller, view.visible_parent_id))
        except MemoryNotFoundError:  # gone or hidden since: the parent is then absent, as for a root
            parent = None
    children = await services.tree.list_children(caller, target.memory, target.cursor, 100)
    answer = {
        "memory": memory_json(view),
        "parent": parent,
        "children": [memory_json(c) for c in children.items],
        "next": children.next_cursor,
    }
    if "named" in serves(services) and "read" in view.privileges:  # listing them needs read
        listed = await queries.list_queries(target.memory, services, caller)
        answer["queries"] = [{k: q[k] for k in ("name", "description", "params")} for q in listed["data"]]
    return answer


async def recall_records(call: Call) -> Answer:
    """`POST /v1/memories/{memory}/recall`."""
    body = call.args.model(RecallRequest)
    return await recall.recall(call.args.memory, body, call.services, call.caller)


async def read_graph(call: Call) -> Answer:
    """`POST /v1/memories/{memory}/graph` with `around` given as `record`."""
    body = call.args.model(GraphRequest, {"record": "around"})
    return await graph.graph(call.args.memory, body, call.services, call.caller)


async def get_record(call: Call) -> Answer:
    """`GET .../records/{record}`, and `GET .../records/{record}/history` when asked."""
    args, services, caller = call.args, call.services, call.caller
    record = await records.get_record(args.memory, args.record, services, caller, args.target.as_of)
    answer = {"record": record}
    if args.target.history:
        answer["history"] = (await records.history(args.memory, args.record, services, caller))["data"]
    return answer


async def remember(call: Call) -> Answer:
    """`POST /v1/memories/{memory}/records`; without a memory, the one the caller may write."""
    args, services, caller = call.args, call.services, call.caller
    body = args.model(RecordCreate)
    memory = args.target.memory or (await standing(services, caller)).default_memory()
    return record_json(await services.records.remember(caller, memory, body.draft()))


async def revise(call: Call) -> Answer:
    """`PATCH .../records/{record}`, the reason kept beside the attributes of the new version.

    The body is judged first, as the route judges it before looking anything up. The reason is added
    by the service over whichever attributes the new version keeps (restated, or the current ones),
    so a writer who may not read revises without reading first.
    """
    args, services, caller = call.args, call.services, call.caller
    changes = replace(args.model(RecordRevise).changes(), noted={REASON: args.target.reason})
    return record_json(await services.records.revise(caller, args.memory, args.record, changes))


async def forget(call: Call) -> Answer:
    """`DELETE .../records/{record}`."""
    return await records.forget(call.args.memory, call.args.record, call.services, call.caller)


async def run_query(call: Call) -> Answer:
    """`POST .../queries/{name}`."""
    args = call.args
    body = args.model(MemoryQueryRun)
    params = body.params if body is not None else {}
    answer = await call.services.queries.run_named(call.caller, args.memory, args.target.name or "", params)
    return queries.answer_content(answer)


async def free_query(call: Call) -> Answer:
    """`POST .../query`."""
    body = call.args.model(MemoryFreeQuery)
    asked = queries.free_query_of(body)
    return queries.answer_content(await call.services.queries.free(call.caller, call.args.memory, asked))


async def operate(call: Call) -> Answer:
    """`POST .../records/{record}/operations/{operation}`, `input` as its body (fields named input.*)."""
    args = call.args
    body = parse(OperationBody, args.body.get("input") or {}, prefix="input")
    ask = body.ask(args.target.operation or "", prefix="input")
    return outcome_json(await call.services.types.operate(call.caller, args.memory, args.record, ask))


HANDLERS: dict[str, tuple[Handler, frozenset[str], str]] = {
    # tool: (handler, arguments that belong to the body although Target knows them, what it returns)
    "memory_list": (list_memories, frozenset(), "memories, named and described by their members"),
    "memory_recall": (recall_records, frozenset({"as_of"}), "records recalled from memory"),
    "memory_graph": (read_graph, frozenset({"record"}), "records and the references between them"),
    "memory_get": (get_record, frozenset(), "a record and its versions"),
    "memory_remember": (remember, frozenset(), "the record as kept"),
    "memory_revise": (revise, frozenset(), "the record's new version"),
    "memory_forget": (forget, frozenset(), "the forgotten record"),
    "memory_run_query": (run_query, frozenset(), "a query's answer over memory records"),
    "memory_query": (free_query, frozenset(), "a query's answer over memory records"),
    "memory_operate": (operate, frozenset(), "an operation's answer"),
}


def serves(services: Services) -> frozenset[str]:
    """The optional tools the provider serves, read off the capability document REST publishes."""
    return catalog.served(provider_document(services.settings.provider_id, services.capable()))


def prepared(
    services: Services, caller: Caller, name: str, given: dict[str, Any] | None
) -> tuple[Handler, Call, str]:
    """The handler and checked arguments of a call; MemoryInvalidError naming a bad argument."""
    spec = catalog.BY_NAME.get(name)
    if spec is None or name not in HANDLERS:
        raise MemoryInvalidError(f"There is no tool named {name!r} here.", param="name")
    handler, body_fields, what = HANDLERS[name]
    return handler, Call(services, caller, arguments(spec, given, body_fields=body_fields)), what
