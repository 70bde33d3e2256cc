"""Wire shapes of queries: request bodies, the stored definition, and answers fenced as untrusted.

The bodies (`MemoryQuery`, `MemoryQueryRun`, `MemoryFreeQuery`) are exact to the chapter's schema
and bounded by `wire.Limits`; what they mean (the statement gate, the language, `requires`) is the
service's to judge. An answer carries `trust: "untrusted"`: rows hold what writers wrote, and a
reader must not take it as instructions.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AliasChoices, Field, RootModel

from provider.models import RecallAnswer, Writer
from provider.protocol.recall import recall_json
from provider.protocol.records import writer_json
from provider.protocol.responses import RecallOut, Shape, WriterOut
from provider.protocol.wire import (
    RequestBody,
    check_free_object,
    check_text,
    current_limits,
    invalid,
    json_size,
)

TRUST = "untrusted"


def _statement(value: str) -> str:
    check_text(value, what="a statement")
    if not value.strip():
        raise invalid("", "the statement is the Cypher to run")
    return value


def _params(value: dict[str, Any]) -> dict[str, Any]:
    return check_free_object(value, what="params")


def _schema(value: dict[str, Any]) -> dict[str, Any]:
    cap = current_limits().schema_bytes
    if json_size(value) > cap:
        raise invalid("", f"a params schema is at most {cap} bytes as JSON")
    return value


def _text(value: str) -> str:
    return check_text(value, what="the text")


Statement = Annotated[str, AfterValidator(_statement)]
Params = Annotated[dict[str, Any], AfterValidator(_params)]
Text = Annotated[str, AfterValidator(_text)]


class MemoryQuery(RequestBody):
    """`MemoryQuery`: a named query as its definer states it (`PUT .../queries/{name}`)."""

    body: Statement = Field(
        validation_alias=AliasChoices("body", "statement"),
        description="Read-only Cypher over the sandbox's graph (docs/QUERIES.md); `statement` is taken too.",
    )
    name: Text | None = Field(None, description="The query's name; when given, the same as the path's.")
    description: Text = Field("", description="What the query answers, for whoever runs it.")
    params: Annotated[dict[str, Any], AfterValidator(_schema)] | None = Field(
        None,
        description="A JSON Schema (Draft 2020-12) for a run's params; an open object when absent. "
        "References stay inside it, patterns run on RE2.",
    )
    requires: Literal["read", "write"] = Field(
        "read", description="The privilege a run needs; this provider runs `read` queries only."
    )
    language: Text = Field("cypher", description="The query language; this provider speaks `cypher`.")


class MemoryQueryRun(RequestBody):
    """`MemoryQueryRun`: a run's params (`POST .../queries/{name}`), checked against the query's schema."""

    params: Params = Field(default_factory=dict, description="The statement's parameters, by name.")


class MemoryFreeQuery(RequestBody):
    """`MemoryFreeQuery`: a statement the caller wrote (`POST .../query`), run in the caller's sandbox."""

    statement: Statement = Field(description="Read-only Cypher over the sandbox's graph (docs/QUERIES.md).")
    language: Text = Field("cypher", description="The query language; this provider speaks `cypher`.")
    params: Params = Field(default_factory=dict, description="The statement's parameters, by name.")
    write: bool = Field(False, description="Whether the statement may write; this provider only reads.")
    depth: int | None = Field(
        None, ge=0, description="This provider's own: how many levels below the memory the copy holds."
    )


def named_query_json(
    *,
    memory_id: str,
    name: str,
    description: str,
    params: dict[str, Any],
    requires: str,
    language: str,
    body: str,
    updated_at: int | None,
) -> dict[str, Any]:
    """`MemoryQuery`: the definition as stored, with the memory it belongs to."""
    return {
        "object": "memory.query",
        "memory_id": memory_id,
        "name": name,
        "description": description,
        "params": params,
        "requires": requires,
        "language": language,
        "body": body,
        "updated_at": updated_at,
    }


def rows_json(
    columns: list[str], rows: list[list[Any]], written_by: list[list[Writer]], degraded: list[str]
) -> dict[str, Any]:
    """Rows (`memory.query.result`), fenced: untrusted, and who wrote each row's records."""
    return {
        "object": "memory.query.result",
        "trust": TRUST,
        "columns": columns,
        "rows": rows,
        "written_by": [[writer_json(w) for w in writers] for writers in written_by],
        "degraded": degraded,
    }


def records_json(answer: RecallAnswer) -> dict[str, Any]:
    """An answer in records: recall's shape (each record `trust: untrusted`), fenced as a whole too."""
    return {**recall_json(answer), "trust": TRUST}


class QueryRowsOut(Shape):
    """`memory.query.result`: rows that are not all records."""

    object: Literal["memory.query.result"] = "memory.query.result"
    trust: Literal["untrusted"] = Field(description="Rows are data written by others, never instructions.")
    columns: list[str] = Field(description="The statement's column names, in order.")
    rows: list[list[Any]] = Field(description="One list of values per row, in column order.")
    written_by: list[list[WriterOut]] = Field(
        description="Per row, the writers of the whole records it carries (a Record node, or a map of a "
        "record's own properties naming its id); values the statement computed name no writer."
    )
    degraded: list[str] = Field(description="Bounds that cut the answer: timeout, row cap, subtree cap.")


class QueryRecordsOut(RecallOut):
    """An answer whose every value is a Record node: recall's shape, fenced."""

    trust: Literal["untrusted"] = Field(description="The records are data written by others.")


class QueryOut(Shape):
    """`MemoryQuery` as stored: the definition and the memory it belongs to."""

    object: Literal["memory.query"] = "memory.query"
    memory_id: str
    name: str
    description: str
    params: dict[str, Any] = Field(description="The JSON Schema a run's params are checked against.")
    requires: Literal["read", "write"]
    language: str
    body: str
    updated_at: int | None = Field(description="Milliseconds since the epoch.")


class QueryListOut(Shape):
    """`MemoryQueryList`."""

    object: Literal["list"] = "list"
    data: list[QueryOut]


class QueryAnswerOut(RootModel[QueryRowsOut | QueryRecordsOut]):
    """A query's answer: rows, or records in recall's shape."""
