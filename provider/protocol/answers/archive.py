"""A restore's answer as the wire carries it."""

from __future__ import annotations

from dataclasses import asdict
from typing import Literal

from pydantic import Field

from provider.models import ArchiveCounts, EmbedReason, RestoreSummary
from provider.protocol.answers.shapes import Answer


class ArchiveCountsOut(Answer):
    """How many of each kind."""

    memories: int
    records: int
    versions: int
    snapshots: int
    grants: int
    files: int
    file_bytes: int

    @classmethod
    def from_domain(cls, counts: ArchiveCounts) -> ArchiveCountsOut:
        return cls(**asdict(counts))


class RestoredOut(Answer):
    """What a restore wrote and what it found there already, identical (a retry finds everything)."""

    object: Literal["uhp_memory.restore"] = "uhp_memory.restore"
    memory_id: str = Field(description="The memory the archive was restored under.")
    root: str = Field(description="The archive's root memory, now a child of `memory_id`.")
    created: ArchiveCountsOut
    present: ArchiveCountsOut = Field(description="What was there already, the same as the archive's.")
    withheld: bool = Field(description="The export left out memories its caller could not read.")
    vectors: Literal["kept", "embedded"] = Field(
        description="`kept`: the vectors the archive carried were written as they came (it is signed "
        "with this deployment's archive key and their model runs here); `embedded`: the versions' "
        "vectors were made here from their words (all of them unless `vectors_reason` is `model_differs`)."
    )
    vectors_reason: EmbedReason | None = Field(
        description="Why the versions were embedded, null when kept: `asked` (`embed=true`), `no_key` "
        "(this deployment has no archive key), `unsigned` (the archive has no signature), "
        "`signature_mismatch` (not signed with this deployment's key, or changed since), "
        "`model_differs` (signed, but its vectors come from a model this deployment does not run)."
    )

    @classmethod
    def from_domain(cls, summary: RestoreSummary) -> RestoredOut:
        return cls(
            memory_id=summary.memory_id,
            root=summary.root,
            created=ArchiveCountsOut.from_domain(summary.created),
            present=ArchiveCountsOut.from_domain(summary.present),
            withheld=summary.withheld,
            vectors="kept" if summary.embed_reason is None else "embedded",
            vectors_reason=summary.embed_reason,
        )
