"""Recall and the graph read as the wire carries them: `MemoryRecall`, `MemoryGraph`."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import MISSING, Field

from provider.models import (
    Explanation,
    GraphAnswer,
    GraphEdge,
    MemoryView,
    RecallAnswer,
    RecordRef,
    SignalPart,
    ordered_privileges,
)
from provider.protocol.answers.records import RecordOut
from provider.protocol.answers.shapes import Answer, Count, Privilege


class NeighbourOut(Answer):
    """`MemoryNeighbour`: where the caller can go next, with counts to decide whether to."""

    id: str
    name: str
    description: str
    records: Count
    children: Count
    privileges: list[Privilege]

    @classmethod
    def from_domain(cls, view: MemoryView) -> NeighbourOut:
        return cls(
            id=view.node.id,
            name=view.node.name,
            description=view.node.description,
            records=Count(count=view.node.record_count),
            children=Count(count=view.visible_children),
            privileges=ordered_privileges(view.privileges),
        )


class PlaceOut(Answer):
    """Where a result or a node is."""

    id: str
    name: str | MISSING | None = MISSING


class SignalOut(Answer):
    """One signal's part in a hit's place."""

    rank: int = Field(description="Its place in this signal's own list (1 is first).")
    score: float | None = Field(description="This signal's own score: cosine, BM25 or the cross-encoder's.")
    added: float | MISSING = Field(MISSING, description="What it added to the fused score.")

    @classmethod
    def from_domain(cls, part: SignalPart, *, added: bool = True) -> SignalOut:
        score = round(part.score, 6) if part.score is not None else None
        extra = {"added": round(part.added, 6)} if added else {}
        return cls(rank=part.rank, score=score, **extra)


class RerankRunOut(Answer):
    """How much of a recall's head the cross-encoder read, and why it stopped there."""

    read: int = Field(description="Candidates the cross-encoder read (the cache answers some).")
    candidates: int = Field(
        description="The head it could read: `UHP_RECALL_RERANK_CANDIDATES`, or a recall's share under load."
    )
    stopped: Literal["all", "sure"] = Field(
        description="`all`: the head was read; `sure`: the cascade's first part held a sure answer."
    )


class ExplainOut(Answer):
    """Why a hit is where it is (asked with `explain: true`): an extension to `MemoryRecall`."""

    signals: dict[str, SignalOut] = Field(description="Each signal that found it: `query`, `text`, ...")
    date_lift: float = Field(description="Added because its time falls in a period the question names.")
    fused_rank: int | None = Field(
        description="Its place with meaning, words and fields fused, before a date lift and the rerank."
    )
    rerank: SignalOut | MISSING = Field(MISSING, description="The cross-encoder's rank and score.")
    rerank_run: RerankRunOut | MISSING = Field(
        MISSING, description="What the cross-encoder read of the head this result was in."
    )
    contradicts: str | MISSING = Field(
        MISSING, description="The result it disagrees with, when it came along past the limit."
    )

    @classmethod
    def from_domain(cls, explanation: Explanation) -> ExplainOut:
        extra: dict[str, object] = {}
        if explanation.rerank is not None:
            extra["rerank"] = SignalOut.from_domain(explanation.rerank, added=False)
        if explanation.rerank_run is not None:
            run = explanation.rerank_run
            extra["rerank_run"] = RerankRunOut(read=run.read, candidates=run.candidates, stopped=run.stopped)
        if explanation.contradicts is not None:
            extra["contradicts"] = explanation.contradicts
        return cls(
            signals={name: SignalOut.from_domain(part) for name, part in explanation.signals.items()},
            date_lift=explanation.date_lift,
            fused_rank=explanation.fused_rank,
            **extra,
        )


class RecallResultOut(Answer):
    """One hit."""

    record: RecordOut
    memory: PlaceOut
    score: float | None
    why: list[str] = Field(description="The signals that found it.")
    explain: ExplainOut | MISSING = Field(MISSING, description="With `explain: true`: why it is here.")


class RecallOut(Answer):
    """`MemoryRecall`: results as data (every record `trust: untrusted`), neighbours, what was not done."""

    object: Literal["memory.recall"] = "memory.recall"
    results: list[RecallResultOut]
    parent: NeighbourOut | MISSING = Field(MISSING, description="Absent at a root or a hidden parent.")
    children: list[NeighbourOut]
    degraded: list[str] = Field(description="What the request asked for and was not done.")
    abstain: bool = Field(description="True when nothing returned answers the question.")

    @classmethod
    def from_domain(cls, answer: RecallAnswer) -> Self:
        parent = {"parent": NeighbourOut.from_domain(answer.parent)} if answer.parent is not None else {}
        explained: list[Explanation | None] = [*answer.explanations] or [None] * len(answer.results)
        return cls(
            results=[
                RecallResultOut(
                    record=RecordOut.from_domain(hit.record),
                    memory=PlaceOut(id=hit.memory.id, name=hit.memory.name),
                    score=hit.score,
                    why=hit.why,
                    **({"explain": ExplainOut.from_domain(explanation)} if explanation is not None else {}),
                )
                for hit, explanation in zip(answer.results, explained, strict=True)
            ],
            children=[NeighbourOut.from_domain(c) for c in answer.children],
            degraded=list(answer.degraded),
            abstain=answer.abstain,
            **parent,
        )


class RecordRefOut(Answer):
    """`MemoryRecordRef`: the memory only when the reader may read it."""

    record_id: str
    memory_id: str | MISSING = MISSING


class GraphNodeOut(Answer):
    """A record and where it is."""

    record: RecordOut
    memory: PlaceOut


class GraphEdgeOut(Answer):
    """A reference between two records; into an unreadable memory, the target's id and no more."""

    from_: RecordRefOut = Field(alias="from")
    to: RecordRefOut
    rel: str | MISSING | None = MISSING
    available: bool

    @classmethod
    def from_domain(cls, edge: GraphEdge) -> GraphEdgeOut:
        return cls.model_validate(
            {
                "from": _ref(edge.source),
                "to": _ref(edge.target),
                "available": edge.available,
                **({"rel": edge.rel} if edge.available else {}),
            }
        )


def _ref(ref: RecordRef) -> dict[str, str]:
    return {"record_id": ref.record_id, **({"memory_id": ref.memory_id} if ref.memory_id is not None else {})}


class GraphOut(Answer):
    """`MemoryGraph`."""

    object: Literal["memory.graph"] = "memory.graph"
    nodes: list[GraphNodeOut]
    edges: list[GraphEdgeOut]
    truncated: bool
    degraded: list[str]

    @classmethod
    def from_domain(cls, answer: GraphAnswer) -> GraphOut:
        return cls(
            nodes=[
                GraphNodeOut(
                    record=RecordOut.from_domain(node.record),
                    memory=PlaceOut(id=node.memory.id, name=node.memory.name),
                )
                for node in answer.nodes
            ],
            edges=[GraphEdgeOut.from_domain(edge) for edge in answer.edges],
            truncated=answer.truncated,
            degraded=answer.degraded,
        )
