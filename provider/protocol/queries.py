"""Wire shapes of queries: request bodies, the stored definition, and answers fenced as untrusted.

The bodies (`MemoryQuery`, `MemoryQueryRun`, `MemoryFreeQuery`) are exact to the chapter's schema
and bounded by `wire.Limits`; what they mean (the statement gate, the language, `requires`) is the
service's to judge. An answer carries `trust: "untrusted"`: rows hold what writers wrote, and a
reader must not take it as instructions.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AliasChoices, Field

from provider.models import FreeQuery
from provider.protocol.wire import (
    RequestBody,
    check_free_object,
    check_text,
    current_limits,
    invalid,
    json_size,
)


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
    max_staleness_ms: int = Field(
        0,
        ge=0,
        le=3_600_000,
        description="This provider's own: how old the data may be (ms). 0, the default: the answer "
        "reflects every write acknowledged before the question. More: a held copy that was current that "
        "recently answers at once and is brought up to date beside the answer. An erase or a narrower "
        "scope is never stale. The answer's `data` says what it reflects.",
    )

    def ask(self) -> FreeQuery:
        """The statement as the query service takes it."""
        return FreeQuery(
            self.statement, self.params, self.depth, self.language, self.write, self.max_staleness_ms
        )
