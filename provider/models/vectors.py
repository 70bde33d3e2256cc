"""The two vector slots a record carries and the deployment's state of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

# Two vector slots on every Record and RecordVersion, each with its own vector index. A deployment
# reads one (`active`) and, while it moves to another model, fills the other; see docs/MODELS.md.
VECTOR_SLOTS: tuple[str, ...] = ("embedding", "embedding_b")


VECTOR_INDEXES = {"embedding": "record_embedding", "embedding_b": "record_embedding_b"}


Vectors = dict[str, list[float]]


class IndexState(NamedTuple):
    """A vector index as Neo4j reports it: its state (ONLINE, POPULATING, ...) and its dimension."""

    state: str
    dimension: int | None


"""One text's vectors: slot property to the vector its slot's model made."""


def other_slot(slot: str) -> str:
    """The slot a move to another model fills."""
    return VECTOR_SLOTS[1 - VECTOR_SLOTS.index(slot)]


@dataclass(frozen=True)
class VectorState:
    """Which slot recall reads, which model fills each live slot, and which slot is being filled.

    `recorded` is false on a database no model move has touched: the configured model in `embedding`.
    """

    active: str
    models: dict[str, str]
    filling: str | None = None
    recorded: bool = False

    @property
    def active_model(self) -> str:
        return self.models[self.active]


@dataclass(frozen=True)
class RecordWords:
    """An active record's words, which its current version's vector is made from."""

    record_id: str
    words: str


@dataclass(frozen=True)
class SlotGap:
    """A record as a model move finds it: its versions' words where the target slot lacks a vector.

    `words` is by version number (empty when nothing is missing); `record_missing` says whether the
    Record itself holds the source vector and not the target one.
    """

    record_id: str
    words: dict[int, str]
    record_missing: bool


@dataclass(frozen=True)
class SlotFill:
    """The target slot's vectors a move made for one record, by version number."""

    record_id: str
    vectors: dict[int, list[float]]
