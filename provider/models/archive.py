"""What an export carries and what a restore says it did."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from provider.models.records import RecordVersion, StoredRecord
from provider.models.vectors import Vectors


@dataclass(frozen=True)
class RestoredRecord:
    """A record from an archive, ready to write: every version with its words and their vector."""

    versions: list[RecordVersion]
    words: list[str]
    vectors: list[Vectors | None]
    created_at: int


@dataclass
class ArchiveCounts:
    """What an archive holds, as its manifest counts it (and a run's progress shows it)."""

    memories: int = 0
    records: int = 0
    versions: int = 0
    snapshots: int = 0
    grants: int = 0
    files: int = 0
    file_bytes: int = 0


EmbedReason = Literal["asked", "no_key", "unsigned", "signature_mismatch", "model_differs"]
"""Why a restore embedded an archive's versions rather than keep the vectors it carried."""


@dataclass
class RestoreSummary:
    """What a restore wrote (`created`) and found there already, identical (`present`).

    `embed_reason` is None when the archive's vectors were kept: it was signed with this deployment's
    archive key and their model runs here.
    """

    memory_id: str
    root: str
    created: ArchiveCounts = field(default_factory=ArchiveCounts)
    present: ArchiveCounts = field(default_factory=ArchiveCounts)
    withheld: bool = False
    embed_reason: EmbedReason | None = None


class PagedRecord(NamedTuple):
    """One record of an export's page: every version, when it was created, and each version's vector."""

    stored: StoredRecord
    created_at: int
    vectors: list[list[float] | None]  # by version, in the slot recall reads; None where there is none
