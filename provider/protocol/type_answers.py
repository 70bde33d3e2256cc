"""Answers of the type routes: `MemoryTypeList` and `MemoryOperationResult`, and their documented shapes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from provider.models import OperationOutcome
from provider.protocol.records import record_json
from provider.protocol.responses import Privilege, Shape


def outcome_json(outcome: OperationOutcome) -> dict[str, Any]:
    """`MemoryOperationResult`: the operation's name, and its result (records as reads return them)."""
    result: dict[str, Any] = dict(outcome.facts)
    result.update({role: record_json(read) for role, read in outcome.records.items()})
    return {"name": outcome.name, "result": result}


class TypeOperationOut(Shape):
    """One operation a type offers."""

    name: str
    description: str = Field(description="What it does, for an agent deciding whether to call it.")
    input: dict[str, Any] = Field(description="The JSON Schema of the body it takes.")
    requires: Privilege = Field(description="The privilege on the record's memory it needs.")


class MemoryTypeOut(Shape):
    """`MemoryType`: a core type, or one this provider adds with its schema and operations."""

    type: str
    core: bool
    description: str
    schema_: dict[str, Any] | None = Field(None, alias="schema", description="Its attributes' JSON Schema.")
    text: str | None = Field(None, description="What of its fields recall reads.")
    operations: list[TypeOperationOut] = Field(default_factory=list)


class TypeListOut(Shape):
    """`MemoryTypeList`."""

    object: Literal["list"] = "list"
    data: list[MemoryTypeOut]


class OperationResultOut(Shape):
    """`MemoryOperationResult`."""

    name: str = Field(description="The operation run.")
    result: dict[str, Any] = Field(description="What it answered: records it changed, and facts about it.")
