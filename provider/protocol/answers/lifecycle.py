"""Observe, jobs, erase, prime, consolidation runs and record operations as the wire carries them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import MISSING, Field

from provider import ids
from provider.models import ConsolidationRun, Erasure, JobState, OperationOutcome, Primer, ReadRecord
from provider.protocol.answers.records import RecordOut, WriterOut, records_out
from provider.protocol.answers.shapes import Answer

JobStatus = Literal["pending", "completed", "failed"]


class JobRefOut(Answer):
    """An observe's job as its 202 names it."""

    object: Literal["memory.job"] = "memory.job"
    id: str
    status: JobStatus


class ObservedOut(Answer):
    """An observe's answer: the records kept (200), or no records yet and the job (202)."""

    object: Literal["list"] = "list"
    data: list[RecordOut]
    next: None = None
    job: JobRefOut | MISSING = MISSING

    @classmethod
    def kept(cls, reads: list[ReadRecord]) -> ObservedOut:
        return cls(data=records_out(reads))

    @classmethod
    def started(cls, job: JobState) -> ObservedOut:
        return cls(data=[], job=JobRefOut(id=job.id, status=job.status))


class JobOut(Answer):
    """`MemoryJob`: what an observe that answered 202 has written since."""

    object: Literal["memory.job"] = "memory.job"
    id: str
    status: JobStatus
    error: str | MISSING = Field(MISSING, description="Why it failed; only on a failed job.")
    data: list[RecordOut]

    @classmethod
    def from_domain(cls, job: JobState, reads: list[ReadRecord]) -> JobOut:
        failed = {"error": job.error} if job.error else {}
        return cls(id=job.id, status=job.status, data=records_out(reads), **failed)


class ErasureOut(Answer):
    """`MemoryErasure`."""

    object: Literal["memory.erasure"] = "memory.erasure"
    erased: list[str]
    unreachable: list[str] = Field(description="Content the provider could not remove; empty is a guarantee.")

    @classmethod
    def from_domain(cls, erasure: Erasure) -> ErasureOut:
        return cls(erased=erasure.erased, unreachable=erasure.unreachable)


class PrimeTokensOut(Answer):
    """How many tokens the text takes, of how many allowed, counted by which tokenizer."""

    used: int
    budget: int
    tokenizer: str


class PrimeOut(Answer):
    """The memory's standing records as one fenced text."""

    object: Literal["memory.prime"] = "memory.prime"
    memory_id: str
    trust: Literal["untrusted"] = "untrusted"
    text: str
    records: list[str] = Field(description="The records the text holds, in order.")
    omitted: int = Field(description="Standing records that did not fit the budget.")
    tokens: PrimeTokensOut

    @classmethod
    def from_domain(cls, primer: Primer) -> PrimeOut:
        return cls(
            memory_id=primer.memory_id,
            text=primer.text,
            records=primer.records,
            omitted=primer.omitted,
            tokens=PrimeTokensOut(used=primer.tokens_used, budget=primer.budget, tokenizer=primer.tokenizer),
        )


class ConsolidationOut(Answer):
    """`MemoryConsolidation`; times in seconds as the chapter's example gives them."""

    id: str
    object: Literal["memory.consolidation"] = "memory.consolidation"
    memory_id: str
    status: Literal["queued", "running", "completed", "stopped", "failed"]
    trigger: str | None
    started_at: int | None
    finished_at: int | None
    read: dict[str, Any] = Field(description="`examined` and `through`: what the run read.")
    changes: dict[str, Any] = Field(description="`created`, `superseded`, `forgotten`.")
    budget: dict[str, Any] = Field(description="`limit`, `unit` and whether it was `exhausted`.")
    written_by: WriterOut
    error: str
    revert_of: str | MISSING = MISSING
    reverted_by: str | MISSING = MISSING

    @classmethod
    def from_domain(cls, run: ConsolidationRun, provider_id: str) -> ConsolidationOut:
        links = {name: getattr(run, name) for name in ("revert_of", "reverted_by") if getattr(run, name)}
        return cls(
            id=run.id,
            memory_id=run.memory_id,
            status=run.status,
            trigger=run.trigger,
            started_at=(run.started_at_ms or 0) // 1000 or None,
            finished_at=(run.finished_at_ms // 1000) if run.finished_at_ms else None,
            read={"examined": run.examined, "through": ids.iso(run.read_through_ms)},
            changes={"created": run.created, "superseded": run.superseded, "forgotten": run.forgotten},
            budget={"limit": run.budget_limit, "unit": "records", "exhausted": run.budget_exhausted},
            written_by=WriterOut(kind="provider", id=provider_id, consolidation_id=run.id),
            error=run.error,
            **links,
        )


class ConsolidationListOut(Answer):
    """`MemoryConsolidationList`."""

    object: Literal["list"] = "list"
    data: list[ConsolidationOut]


class OperationResultOut(Answer):
    """`MemoryOperationResult`: the operation's name, and its result (records as reads return them)."""

    name: str = Field(description="The operation run.")
    result: dict[str, Any] = Field(description="What it answered: records it changed, and facts about it.")

    @classmethod
    def from_domain(cls, outcome: OperationOutcome) -> OperationResultOut:
        result: dict[str, Any] = dict(outcome.facts)
        result.update({role: RecordOut.from_domain(read).wire() for role, read in outcome.records.items()})
        return cls(name=outcome.name, result=result)
