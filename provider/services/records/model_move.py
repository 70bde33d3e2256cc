"""Moving a deployment to another embedding model while recall keeps answering (docs/MODELS.md).

Recall reads one vector slot; the move fills the other with the new model, switches every reader at
once by one write of the slots' state, then retires the old slot. Every step is safe to stop and run
again: the state says how far it got.
"""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import dataclass
from typing import TextIO

from provider.models import VECTOR_INDEXES, IndexState, SlotFill, VectorState, other_slot
from provider.services.records.ports import VectorStateStorage
from provider.services.vectors import VectorModels


@dataclass
class MoveOutcome:
    """What a move did: the slot recall reads now, its model, versions given a vector, and the passes."""

    active: str
    model: str
    filled: int = 0
    passes: int = 0
    retired: str | None = None


class ModelMove:
    """`reembed --to <model>`: fill, switch, retire; readers see the old model until the switch.

    `settle_seconds` is how long every process may go on using slots it read before a change (their
    state refresh, with room for a write already under way); the move waits it out before it clears a
    slot no process may write any more, and before it trusts a pass that found nothing missing.
    """

    def __init__(
        self,
        state: VectorStateStorage,
        vectors: VectorModels,
        *,
        settle_seconds: float,
        batch_size: int,
        index_wait_seconds: float,
        progress: TextIO = sys.stderr,
    ):
        self.state_store = state
        self.vectors = vectors
        self.settle_seconds = settle_seconds
        self.batch_size = batch_size
        self.index_wait_seconds = index_wait_seconds
        self.progress = progress

    async def move(self, model: str, *, retire: bool = True) -> MoveOutcome:
        """Fills the other slot with `model`, switches recall to it, and (by default) retires the old one."""
        state = await self.vectors.state(fresh=True)
        if state.active_model == model and state.filling is None:
            outcome = MoveOutcome(state.active, model)
            if retire and len(state.models) > 1:
                outcome.retired = await self._retire(state)
            return outcome
        source, target = state.active, other_slot(state.active)
        embedder = await self.vectors.embedder(model)
        if state.models.get(target) != model:
            await self._prepare(state, target, embedder.dimension)
        await self._write(VectorState(source, {source: state.active_model, target: model}, filling=target))
        outcome = MoveOutcome(target, model)
        await self._fill(source, target, outcome)
        await self._index_online(VECTOR_INDEXES[target])
        switched = VectorState(target, {source: state.active_model, target: model})
        await self._write(switched)
        self._say(f"recall now reads {target} ({model})\n")
        if retire:
            outcome.retired = await self._retire(switched)
        return outcome

    async def _prepare(self, state: VectorState, target: str, dimensions: int) -> None:
        """Empties the target slot of anything an earlier move left there, and gives it a fresh index."""
        if target in state.models:  # processes may still write it with its old model
            await self._write(VectorState(state.active, {state.active: state.active_model}))
            await self._settle("no process writes the slot to be filled")
        cleared = await self._clear(target)
        self._say(f"cleared {cleared} old vectors from {target}\n")
        await self.state_store.drop_index(target)
        await self.state_store.create_index(target, dimensions)

    async def _fill(self, source: str, target: str, outcome: MoveOutcome) -> None:
        """Passes over every record until one finds nothing missing after every process knows the move."""
        known_by_all = time.monotonic() + self.settle_seconds
        while True:
            outcome.passes += 1
            filled = await self._pass(source, target, outcome.passes)
            outcome.filled += filled
            missing = await self.state_store.missing(source, target)
            if missing == 0 and time.monotonic() >= known_by_all:
                return
            if missing and not filled and time.monotonic() >= known_by_all:
                raise RuntimeError(f"{missing} vectors in {source} have no words to embed for {target}.")
            if missing == 0:
                await asyncio.sleep(max(0.0, known_by_all - time.monotonic()))

    async def _pass(self, source: str, target: str, number: int) -> int:
        after, seen, filled, started = "", 0, 0, time.monotonic()
        model = (await self.vectors.state(fresh=True)).models[target]
        embedder = await self.vectors.embedder(model)
        while True:
            page = await self.state_store.fill_page(source, target, after, self.batch_size)
            if not page:
                break
            after, seen = page[-1].record_id, seen + len(page)
            wanted = [(gap.record_id, n, w) for gap in page for n, w in gap.words.items() if w.strip()]
            made = await embedder.embed([w for _, _, w in wanted]) if wanted else []
            fills: dict[str, dict[int, list[float]]] = {}
            for (record_id, version, _), vector in zip(wanted, made, strict=True):
                fills.setdefault(record_id, {})[version] = vector
            for gap in page:
                if gap.record_missing:
                    fills.setdefault(gap.record_id, {})
            if fills:
                filled += await self.state_store.fill(
                    source, target, [SlotFill(record_id=r, vectors=v) for r, v in fills.items()]
                )
            rate = seen / max(time.monotonic() - started, 1e-6)
            self._say(
                f"\rpass {number}: {seen} records read, {filled} versions embedded ({rate:,.0f} records/s)"
            )
        self._say("\n")
        return filled

    async def _index_online(self, index: str) -> None:
        deadline = time.monotonic() + self.index_wait_seconds
        while True:
            state = (await self.state_store.index_states()).get(index, IndexState("MISSING", None)).state
            if state == "ONLINE":
                return
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"The vector index {index} is {state} after {self.index_wait_seconds:.0f} s."
                )
            await asyncio.sleep(0.5)

    async def _retire(self, state: VectorState) -> str:
        """Stops every process writing the old slot, then removes its vectors and its index."""
        old = other_slot(state.active)
        await self._write(VectorState(state.active, {state.active: state.active_model}))
        await self._settle("no process writes the old slot")
        cleared = await self._clear(old)
        await self.state_store.drop_index(old)
        self._say(f"retired {old}: {cleared} vectors removed, index {VECTOR_INDEXES[old]} dropped\n")
        return old

    async def _clear(self, slot: str) -> int:
        cleared = 0
        while batch := await self.state_store.clear(slot, self.batch_size * 4):
            cleared += batch
            self._say(f"\rclearing {slot}: {cleared}")
        return cleared

    async def _write(self, state: VectorState) -> None:
        await self.state_store.write(state)
        self.vectors.forget_state()

    async def _settle(self, why: str) -> None:
        self._say(f"waiting {self.settle_seconds:.1f} s so that {why}\n")
        await asyncio.sleep(self.settle_seconds)

    def _say(self, line: str) -> None:
        self.progress.write(line)
        self.progress.flush()
