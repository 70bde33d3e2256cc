"""What each tool does: the service call its HTTP route makes, answered by the route's own model.

A tool parses its arguments into the route's request model, calls the same service method, and
builds the same answer model (`*Out.from_domain`), so a tool's answer is the route's answer; the
route functions themselves are no API.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from provider.api.mcp import catalog
from provider.api.mcp.arguments import Arguments, arguments
from provider.api.mcp.standing import standing
from provider.composition import Services
from provider.errors import MemoryInvalidError, MemoryNotFoundError
from provider.models import Caller
from provider.protocol.answers.lifecycle import OperationResultOut
from provider.protocol.answers.queries import query_answer
from provider.protocol.answers.recall import GraphOut, RecallOut
from provider.protocol.answers.records import RecordOut
from provider.protocol.answers.tree import MemoryListOut, MemoryOut
from provider.protocol.discovery import provider_document
from provider.protocol.queries import MemoryFreeQuery, MemoryQueryRun
from provider.protocol.recall_requests import GraphRequest, RecallRequest
from provider.protocol.record_requests import RecordCreate, RecordRevise
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
        return MemoryListOut.from_domain(await services.tree.list_granted(caller, target.cursor, 100)).wire()
    view = await services.tree.view(caller, target.memory)
    parent = None
    if view.visible_parent_id is not None:
        try:
            parent = MemoryOut.from_domain(await services.tree.view(caller, view.visible_parent_id)).wire()
        except MemoryNotFoundError:  # gone or hidden since: the parent is then absent, as for a root
            parent = None
    children = await services.tree.list_children(caller, target.memory, target.cursor, 100)
    answer = {
        "memory": MemoryOut.from_domain(view).wire(),
        "parent": parent,
        "children": [MemoryOut.from_domain(c).wire() for c in children.items],
        "next": children.next_cursor,
    }
    if "named" in serves(services) and "read" in view.privileges:  # listing them needs read
        listed = await services.queries.list_named(caller, target.memory)
        answer["queries"] = [
            {"name": q.name, "description": q.description, "params": q.params} for q in listed
        ]
    return answer


async def recall_records(call: Call) -> Answer:
    """`POST /v1/memories/{memory}/recall`."""
    body = call.args.model(RecallRequest)
    return RecallOut.from_domain(
        await call.services.recall.recall(call.caller, call.args.memory, body.ask())
    ).wire()


async def read_graph(call: Call) -> Answer:
    """`POST /v1/memories/{memory}/graph` with `around` given as `record`."""
    body = call.args.model(GraphRequest, {"record": "around"})
    return GraphOut.from_domain(
        await call.services.graph.read(call.caller, call.args.memory, body.ask())
    ).wire()


async def get_record(call: Call) -> Answer:
    """`GET .../records/{record}`, and `GET .../records/{record}/history` when asked."""
    args, services, caller = call.args, call.services, call.caller
    record = await services.records.get(caller, args.memory, args.record, args.target.as_of)
    answer: Answer = {"record": RecordOut.from_domain(record).wire()}
    if args.target.history:
        versions = await services.records.history(caller, args.memory, args.record)
        answer["history"] = [RecordOut.from_domain(v).wire() for v in versions]
    return answer


async def remember(call: Call) -> Answer:
    """`POST /v1/memories/{memory}/records`; without a memory, the one the caller may write."""
    args, services, caller = call.args, call.services, call.caller
    body = args.model(RecordCreate)
    memory = args.target.memory or (await standing(services, caller)).default_memory()
    return RecordOut.from_domain(await services.records.remember(caller, memory, body.draft())).wire()


async def revise(call: Call) -> Answer:
    """`PATCH .../records/{record}`, the reason kept beside the attributes of the new version.

    The body is judged first, as the route judges it before looking anything up. The reason is added
    by the service over whichever attributes the new version keeps (restated, or the current ones),
    so a writer who may not read revises without reading first.
    """
    args, services, caller = call.args, call.services, call.caller
    changes = replace(args.model(RecordRevise).changes(), noted={REASON: args.target.reason})
    return RecordOut.from_domain(
        await services.records.revise(caller, args.memory, args.record, changes)
    ).wire()


async def forget(call: Call) -> Answer:
    """`DELETE .../records/{record}`."""
    forgotten = await call.services.records.forget(call.caller, call.args.memory, call.args.record)
    return RecordOut.from_domain(forgotten).wire()


async def run_query(call: Call) -> Answer:
    """`POST .../queries/{name}`."""
    args = call.args
    body = args.model(MemoryQueryRun)
    params = body.params if body is not None else {}
    answer = await call.services.queries.run_named(call.caller, args.memory, args.target.name or "", params)
    return query_answer(answer).wire()


async def free_query(call: Call) -> Answer:
    """`POST .../query`."""
    body = call.args.model(MemoryFreeQuery)
    return query_answer(await call.services.queries.free(call.caller, call.args.memory, body.ask())).wire()


async def operate(call: Call) -> Answer:
    """`POST .../records/{record}/operations/{operation}`, `input` as its body (fields named input.*)."""
    args = call.args
    body = parse(OperationBody, args.body.get("input") or {}, prefix="input")
    ask = body.ask(args.target.operation or "", prefix="input")
    return OperationResultOut.from_domain(
        await call.services.types.operate(call.caller, args.memory, args.record, ask)
    ).wire()


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
