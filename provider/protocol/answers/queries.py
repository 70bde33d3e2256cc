"""A query's answer and a stored definition as the wire carries them, fenced as untrusted data."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, RootModel

from provider import ids
from provider.models import DataVersion, NamedQuery, QueryRows, RecallAnswer
from provider.protocol.answers.recall import RecallOut
from provider.protocol.answers.records import WriterOut
from provider.protocol.answers.shapes import Answer


class DataOut(Answer):
    """What a query's answer reflects (this provider's own): the copy's data version and its instant."""

    version: str = Field(description="An opaque name of the data: equal exactly when the data is.")
    as_of: str = Field(description="Every write acknowledged before this instant is in the answer.")
    stale_ms: int = Field(
        description="How far `as_of` lay behind the question: 0 unless staleness was asked."
    )

    @classmethod
    def from_domain(cls, data: DataVersion) -> DataOut:
        return cls(version=data.version, as_of=ids.iso(data.as_of) or "", stale_ms=data.stale_ms)


class QueryRowsOut(Answer):
    """`memory.query.result`: rows that are not all records."""

    object: Literal["memory.query.result"] = "memory.query.result"
    trust: Literal["untrusted"] = Field("untrusted", description="Rows are data written by others.")
    columns: list[str] = Field(description="The statement's column names, in order.")
    rows: list[list[Any]] = Field(description="One list of values per row, in column order.")
    written_by: list[list[WriterOut]] = Field(
        description="Per row, the writers of the whole records it carries (a Record node, or a map of a "
        "record's own properties naming its id); values the statement computed name no writer."
    )
    degraded: list[str] = Field(description="Bounds that cut the answer: timeout, row cap, subtree cap.")
    data: DataOut | None = Field(None, description="The data the answer reflects (this provider's own).")

    @classmethod
    def from_domain(cls, answer: QueryRows) -> QueryRowsOut:
        return cls(
            columns=answer.columns,
            rows=answer.rows,
            written_by=[[WriterOut.from_domain(w) for w in writers] for writers in answer.written_by],
            degraded=answer.degraded,
            data=DataOut.from_domain(answer.data) if answer.data is not None else None,
        )


class QueryRecordsOut(RecallOut):
    """An answer whose every value is a Record node: recall's shape, fenced as a whole too."""

    trust: Literal["untrusted"] = Field("untrusted", description="The records are data written by others.")
    data: DataOut | None = Field(None, description="The data the answer reflects (this provider's own).")

    @classmethod
    def from_domain(cls, answer: RecallAnswer) -> QueryRecordsOut:
        out = super().from_domain(answer)
        out.data = DataOut.from_domain(answer.data) if answer.data is not None else None
        return out


class QueryAnswerOut(RootModel[QueryRowsOut | QueryRecordsOut]):
    """A query's answer: rows, or records in recall's shape."""


def query_answer(answer: RecallAnswer | QueryRows) -> QueryRowsOut | QueryRecordsOut:
    """Rows, or records in recall's shape (REST and MCP alike)."""
    if isinstance(answer, QueryRows):
        return QueryRowsOut.from_domain(answer)
    return QueryRecordsOut.from_domain(answer)


class QueryOut(Answer):
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

    @classmethod
    def from_domain(cls, query: NamedQuery) -> QueryOut:
        return cls(
            memory_id=query.memory_id,
            name=query.name,
            description=query.description,
            params=query.params,
            requires=query.requires,
            language=query.language,
            body=query.body,
            updated_at=query.updated_at,
        )


class QueryListOut(Answer):
    """`MemoryQueryList`."""

    object: Literal["list"] = "list"
    data: list[QueryOut]
