"""A tool call's arguments, checked as strictly as the HTTP request they stand for.

The arguments that address something (`memory`, `record`, ...) are the path and query of the route;
they are checked by `Target`. The rest is the route's body and is validated by the very model the
route takes (`RecallRequest`, `RecordCreate`, ...), so a bad argument is refused with the same rule
and the field named, as `memory_invalid`. Arguments a tool does not take are refused by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from provider.api.mcp.catalog import ToolSpec
from provider.errors import MemoryInvalidError
from provider.protocol.wire import WireModel, parse

Body = TypeVar("Body", bound=BaseModel)
Id = Field(None, min_length=1, max_length=128)


class Target(WireModel):
    """What a call addresses; each tool reads the fields it takes."""

    memory: str | None = Id
    record: str | None = Id
    name: str | None = Id
    operation: str | None = Id
    cursor: str | None = Field(None, max_length=256)
    as_of: str | None = Field(None, max_length=128)
    history: bool = False
    reason: str | None = Field(None, min_length=1, max_length=500)


TARGET_FIELDS = frozenset(Target.model_fields)


@dataclass(frozen=True)
class Arguments:
    """One call's arguments: the addressing part checked, the body part left for its model."""

    target: Target
    body: dict[str, Any]

    def model(self, model: type[Body], renamed: dict[str, str] | None = None) -> Body:
        """The body as the route's model, arguments renamed to the model's fields where they differ."""
        names = renamed or {}
        data = {names.get(key, key): value for key, value in self.body.items()}
        try:
            return parse(model, data)
        except MemoryInvalidError as e:
            back = {field: argument for argument, field in names.items()}
            raise _renamed(e, back) from None

    @property
    def memory(self) -> str:
        """The memory, which every tool but memory_list and memory_remember requires."""
        return self.target.memory or ""

    @property
    def record(self) -> str:
        """The record, for the tools that require one."""
        return self.target.record or ""


def _renamed(error: MemoryInvalidError, back: dict[str, str]) -> MemoryInvalidError:
    param = error.param or ""
    head, dot, rest = param.partition(".")
    if head in back:
        named = back[head] + dot + rest
        return MemoryInvalidError(error.message.replace(param, named, 1), param=named)
    return error


def arguments(spec: ToolSpec, given: dict[str, Any] | None, *, body_fields: frozenset[str]) -> Arguments:
    """Splits a call's arguments, refusing unknown and missing ones by name before anything runs."""
    given = dict(given or {})
    for key in given:
        if key not in spec.properties:
            takes = ", ".join(spec.properties)
            raise MemoryInvalidError(f"{spec.name} takes no argument {key!r}; it takes {takes}.", param=key)
    for key in spec.required:
        if given.get(key) is None:
            raise MemoryInvalidError(f"{key}: {spec.name} needs it.", param=key)
    addressed = {k: v for k, v in given.items() if k in TARGET_FIELDS and k not in body_fields}
    target = parse(Target, addressed)
    if target.reason is not None and not target.reason.strip():
        raise MemoryInvalidError("reason: say why, in a sentence.", param="reason")
    return Arguments(target, {k: v for k, v in given.items() if k not in addressed})
