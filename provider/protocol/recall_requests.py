"""Request bodies of reads across records: `MemoryRecallRequest`, `MemoryFilter`, `MemoryGraphRequest`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Discriminator, Field, Tag, model_validator

from provider import ids
from provider.models import FilterGroup, FilterLeaf, FilterNode, GraphAsk, RecallAsk
from provider.protocol.wire import RequestBody, WireModel, check_items, check_text, current_limits, invalid

OPS = ("eq", "ne", "lt", "lte", "gt", "gte", "in", "exists")
TIME_FIELDS = ("time.valid_from", "time.valid_to", "time.written_at", "time.invalidated_at")
FILTER_DEPTH = 6


def _field_name(value: str) -> str:
    if value == "type" or value in TIME_FIELDS:
        return value
    if value.startswith("attributes.") and len(value) > len("attributes."):
        return value
    raise invalid("", "field is type, attributes.<name> or time.<field>")


class FilterTerm(WireModel):
    """`{field, op, value}`: one condition on a record's type, attributes or times."""

    field: Annotated[str, AfterValidator(_field_name)] = Field(
        max_length=256,
        description="`type`, `attributes.<name>` or `time.<valid_from|valid_to|written_at|...>`.",
    )
    op: Literal["eq", "ne", "lt", "lte", "gt", "gte", "in", "exists"] = Field(
        "eq", description="How the field is compared with the value."
    )
    value: Any = Field(None, description="What the field is compared with; a list for `in`.")

    @model_validator(mode="after")
    def _value_fits(self) -> FilterTerm:
        limits = current_limits()
        if self.op == "in":
            if not isinstance(self.value, list):
                raise invalid("value", "in takes a list")
            if len(self.value) > limits.list_items:
                raise invalid("value", f"an in filter's value holds at most {limits.list_items} items")
        if isinstance(self.value, str) and len(self.value) > limits.text_chars:
            raise invalid("value", f"a filter's value is at most {limits.text_chars} characters")
        if self.field.startswith("time.") and self.op != "exists":
            try:
                for v in self.value if isinstance(self.value, list) else [self.value]:
                    ids.parse_instant(v)
            except (TypeError, ValueError, AttributeError):
                raise invalid("value", "a time filter's value is an ISO 8601 instant") from None
        return self


class FilterAll(WireModel):
    """`{and: [...]}`: every filter holds."""

    all_of: list[Filter] = Field(alias="and", min_length=1, description="Filters that must all hold.")


class FilterAny(WireModel):
    """`{or: [...]}`: at least one filter holds."""

    any_of: list[Filter] = Field(alias="or", min_length=1, description="Filters of which one must hold.")


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "=and" if "and" in value else "=or" if "or" in value else "=term"
    if isinstance(value, FilterAll | FilterAny | FilterTerm):
        return {FilterAll: "=and", FilterAny: "=or", FilterTerm: "=term"}[type(value)]
    return "=term"


Filter = Annotated[
    Annotated[FilterAll, Tag("=and")]
    | Annotated[FilterAny, Tag("=or")]
    | Annotated[FilterTerm, Tag("=term")],
    Discriminator(_kind),
]
FilterAll.model_rebuild()
FilterAny.model_rebuild()


def _domain(node: FilterAll | FilterAny | FilterTerm) -> FilterNode:
    if isinstance(node, FilterTerm):
        return FilterLeaf(field=node.field, op=node.op, value=node.value)
    children = node.all_of if isinstance(node, FilterAll) else node.any_of
    return FilterGroup(
        kind="and" if isinstance(node, FilterAll) else "or", children=[_domain(c) for c in children]
    )


def _bounded_filter(node: FilterAll | FilterAny | FilterTerm) -> FilterAll | FilterAny | FilterTerm:
    terms, deepest, stack = 0, 0, [(node, 1)]
    while stack:
        current, depth = stack.pop()
        terms, deepest = terms + 1, max(deepest, depth)
        if not isinstance(current, FilterTerm):
            children = current.all_of if isinstance(current, FilterAll) else current.any_of
            stack.extend((child, depth + 1) for child in children)
    cap = current_limits().filter_terms
    if terms > cap:
        raise invalid("", f"a filter holds at most {cap} terms and combinators")
    if deepest > FILTER_DEPTH:
        raise invalid("", f"a filter nests at most {FILTER_DEPTH} levels")
    return node


def _types(value: list[str]) -> list[str]:
    return check_items(value, what="types")


TypeList = Annotated[list[Annotated[str, Field(max_length=64)]], AfterValidator(_types)]


class RecallRequest(RequestBody):
    """`MemoryRecallRequest`: meaning, words and fields, alone or fused; at least one of them."""

    query: str | None = Field(None, description="Meaning: what to look for, in a sentence.")
    text: str | None = Field(None, description="Words: a full-text search (at most 64 words are used).")
    filters: Annotated[Filter, AfterValidator(_bounded_filter)] | None = Field(
        None, description="`{field, op, value}`, `{and: [...]}` or `{or: [...]}`."
    )
    types: TypeList | None = Field(None, description="Only records of these types.")
    as_of: str | None = Field(None, max_length=128, description="An ISO 8601 instant or a snapshot id.")
    include: Literal["active", "all"] = Field("active", description="`all` also returns forgotten records.")
    depth: int | None = Field(
        None, ge=0, description="Levels below to search: 0 is this memory alone; left out, the whole subtree."
    )
    limit: int = Field(10, ge=1, le=100, description="Most results.")
    rerank: bool | None = Field(
        None,
        description="An extension: put the first candidates of a `query` in order again with the "
        "cross-encoder (true) or not (false); left out, the deployment's default (UHP_RECALL_RERANK).",
    )
    explain: bool = Field(
        False,
        description="An extension: each result also carries `explain`, its score and rank by signal "
        "(meaning, words, fields, date lift, rerank).",
    )

    @model_validator(mode="after")
    def _asks_something(self) -> RecallRequest:
        for name in ("query", "text"):
            value = getattr(self, name)
            if value is not None:
                check_text(value, what=name)
        if not (self.query or self.text or self.filters is not None):
            raise invalid("query", "ask with query, text or filters")
        return self

    def ask(self) -> RecallAsk:
        """The domain's view of the body."""
        return RecallAsk(
            query=self.query,
            text=self.text,
            filters=_domain(self.filters) if self.filters is not None else None,
            types=list(self.types) if self.types is not None else None,
            as_of=self.as_of,
            include=self.include,
            depth=self.depth,
            limit=self.limit,
            rerank=self.rerank,
            explain=self.explain,
        )


GRAPH_LIMIT = 1000


class GraphRequest(RequestBody):
    """`MemoryGraphRequest`: records as nodes and references as edges, around a record or everywhere."""

    around: str | None = Field(
        None, max_length=128, description="A record to start from; left out, every record."
    )
    hops: int = Field(1, ge=0, le=3, description="References away from the start, in either direction.")
    types: TypeList | None = Field(None, description="Only records of these types.")
    limit: int = Field(100, ge=1, le=GRAPH_LIMIT, description="Most nodes.")

    def ask(self) -> GraphAsk:
        """The domain's view of the body."""
        return GraphAsk(around=self.around, hops=self.hops, types=self.types, limit=self.limit)
