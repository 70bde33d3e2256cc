"""A harness's memories (standalone mode): what its agent was granted, its default and observe flag."""

from __future__ import annotations

from dataclasses import dataclass

from provider import access, ids
from provider.errors import (
    HarnessNotFoundError,
    MemberNotFoundError,
    MemoriesNotAttachedError,
    MemoryInvalidError,
    MemoryNotFoundError,
)
from provider.models import (
    Caller,
    Harness,
    HarnessMemories,
    HarnessMemory,
    HarnessSettings,
    ordered_privileges,
)
from provider.services.tree.memories import TreeService
from provider.services.tree.ports import HarnessStorage


@dataclass(frozen=True)
class HarnessChanges:
    """A PUT of a harness's memory settings: fields in `given` change, the others stay."""

    given: frozenset[str]
    default_memory_id: str | None = None
    observe: bool | None = None


class HarnessService:
    """Read off the agent's grants; only the agent itself (or a server acting for it) may look."""

    def __init__(self, tree: TreeService, harnesses: HarnessStorage):
        self.tree = tree
        self.harnesses = harnesses

    async def create(self, name: str, member_id: str) -> Harness:
        """Admin: a harness whose agent is the member."""
        made = await self.harnesses.create(ids.new_id(ids.HARNESS), name, member_id, ids.now_ms())
        if made is None:
            raise MemberNotFoundError("No member with that id exists.", param="member_id")
        return Harness(made.id, made.name, made.member_id, f"member:{made.member_id}")

    async def _own(self, caller: Caller, harness_id: str) -> HarnessSettings:
        harness = await self.harnesses.get(harness_id)
        if harness is None or harness.member_id != caller.member_id:
            raise HarnessNotFoundError("No harness with that id exists.", param="harness_id")
        return harness

    async def memories(self, caller: Caller, harness_id: str) -> HarnessMemories:
        """Every memory the agent holds a grant on, highest first, with its effective privileges."""
        harness = await self._own(caller, harness_id)
        facts, names = await self.tree.granted_facts(caller.member_id)
        privileges = access.effective_privileges(facts)
        granted = sorted(
            (n for n in facts if n.granted), key=lambda n: (n.depth, names.get(n.id) or "", n.id)
        )
        if not granted:
            raise MemoriesNotAttachedError("The harness has no memories attached.", param="harness_id")
        default = harness.default_memory_id
        return HarnessMemories(
            principal=caller.principal,
            default_memory_id=default,
            observe=harness.observe,
            memories=[
                HarnessMemory(n.id, names.get(n.id), ordered_privileges(privileges[n.id]), n.id == default)
                for n in granted
            ],
        )

    async def update(self, caller: Caller, harness_id: str, changes: HarnessChanges) -> HarnessMemories:
        """Sets the default memory (one the agent may write) and the observe flag."""
        harness = await self._own(caller, harness_id)
        given = changes.given
        default = changes.default_memory_id if "default_memory_id" in given else harness.default_memory_id
        observe = changes.observe if "observe" in given and changes.observe is not None else harness.observe
        if default is not None:
            await self._require_writable(caller, default)
        await self.harnesses.update(harness_id, default, observe)
        return await self.memories(caller, harness_id)

    async def _require_writable(self, caller: Caller, memory_id: str) -> None:
        try:
            view = await self.tree.view(caller, memory_id)
        except MemoryNotFoundError as e:
            raise MemoryInvalidError(
                "default_memory_id must be a memory the agent may write.", param="default_memory_id"
            ) from e
        if "write" not in view.privileges:
            raise MemoryInvalidError(
                "default_memory_id must be a memory the agent may write.", param="default_memory_id"
            )
