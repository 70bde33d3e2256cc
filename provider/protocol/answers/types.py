"""The type catalogue as `GET /v1/memories/types` lists it (`MemoryTypeList`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import MISSING, Field

from provider.protocol.answers.shapes import Answer, Privilege
from provider.protocol.type_requests import input_schema


class TypeOperationOut(Answer):
    """One operation a type offers."""

    name: str
    description: str = Field(description="What it does, for an agent deciding whether to call it.")
    input: dict[str, Any] = Field(description="The JSON Schema of the body it takes.")
    requires: Privilege = Field(description="The privilege on the record's memory it needs.")


class MemoryTypeOut(Answer):
    """`MemoryType`: a core type, or one this provider adds with its schema and operations."""

    type: str
    core: bool
    description: str
    schema_: dict[str, Any] | MISSING = Field(
        MISSING, alias="schema", description="Its attributes' JSON Schema."
    )
    text: str | MISSING = Field(MISSING, description="What of its fields recall reads.")
    operations: list[TypeOperationOut] | MISSING = MISSING

    @classmethod
    def from_listing(cls, kind: dict[str, Any]) -> MemoryTypeOut:
        """A catalogue entry, each operation with the input schema the wire models define."""
        operations = [
            TypeOperationOut(
                name=op["name"], description=op["description"], input=input_schema(op["name"]),
                requires=op["requires"],
            )
            for op in kind.get("operations", [])
        ]  # fmt: skip
        listed = {k: v for k, v in kind.items() if k != "operations"}
        return cls.model_validate(listed | ({"operations": operations} if "operations" in kind else {}))


class TypeListOut(Answer):
    """`MemoryTypeList`."""

    object: Literal["list"] = "list"
    data: list[MemoryTypeOut]
