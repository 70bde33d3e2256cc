"""Request bodies of record operations: `POST .../records/{rid}/operations/{name}`.

The body is the operation's input. It arrives bounded as a free object (`OperationBody`), and the
operation's own model, chosen by the name in the path, checks it strictly: a field the input does
not define is refused, so the schema a type publishes for an input is exactly what is enforced.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from provider.errors import MemoryUnsupportedError
from provider.models import OperationAsk
from provider.protocol.wire import RequestBody, WireModel, check_free_object, parse

ID_MAX = 128


class OperationInput(WireModel):
    """An operation's input: strict, and closed to fields it does not name."""

    model_config = WireModel.model_config | {"extra": "forbid"}

    def ask(self, name: str) -> OperationAsk:
        """The domain's view of the call."""
        return OperationAsk(name=name)


class MergeInput(OperationInput):
    """`merge`: the record folded into the one the path names."""

    duplicate: str = Field(
        min_length=1,
        max_length=ID_MAX,
        description="The record (hrec_...) that is the same person or company as this one; it may be in "
        "another memory you may read and write.",
    )

    def ask(self, name: str) -> OperationAsk:
        """The duplicate named."""
        return OperationAsk(name=name, duplicate=self.duplicate)


class AliasesInput(OperationInput):
    """`aliases`: takes nothing."""


INPUTS: dict[str, type[OperationInput]] = {"merge": MergeInput, "aliases": AliasesInput}


def input_schema(name: str) -> dict[str, Any]:
    """The JSON Schema a type publishes as the operation's `input`."""
    schema = INPUTS[name].model_json_schema()
    schema.pop("title", None)
    for field in schema.get("properties", {}).values():
        field.pop("title", None)
    return schema


class OperationBody(RequestBody):
    """The input as sent: any object, bounded as attributes are, checked by its operation's model."""

    model_config = RequestBody.model_config | {"extra": "allow"}

    @model_validator(mode="after")
    def _bounded(self) -> OperationBody:
        check_free_object(self.model_extra or {}, what="an operation's input")
        return self

    def ask(self, name: str, *, prefix: str = "") -> OperationAsk:
        """The call, its input checked by the named operation's model; an unknown name is refused."""
        model = INPUTS.get(name)
        if model is None:
            known = ", ".join(sorted(INPUTS))
            raise MemoryUnsupportedError(
                f"No record type here offers an operation named {name!r} (operations: {known}).",
                param="name",
            )
        return parse(model, dict(self.model_extra or {}), prefix=prefix).ask(name)
