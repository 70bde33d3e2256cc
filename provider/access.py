"""THE access decision: effective privileges, visibility and readable scope, computed from facts.

The store fetches, in one round trip, the caller's own grants on every node that matters (the chain
above a memory and the subtree below it); everything here is a pure walk over those facts, so the
rules of chapter §3 live in one small place that unit and property tests can check exhaustively.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from provider.errors import MemoryForbiddenError, MemoryNotFoundError, RecordNotFoundError
from provider.models import NodeFacts

NOTHING: frozenset[str] = frozenset()


def effective_privileges(nodes: Iterable[NodeFacts]) -> dict[str, frozenset[str]]:
    """Union of the caller's grants down each path, restarted at every restricted node.

    `nodes` must be closed upwards as far as they are asked about (a node's parent, when it has one
    that matters, is among them); a parent that is absent counts as granting nothing.
    """
    ordered = sorted(nodes, key=lambda n: n.depth)
    result: dict[str, frozenset[str]] = {}
    for node in ordered:
        inherited = (
            NOTHING if node.restricted or node.parent_id is None else result.get(node.parent_id, NOTHING)
        )
        result[node.id] = node.granted | inherited
    return result


@dataclass(frozen=True)
class Reach:
    """The caller's view of one memory and what lies below it."""

    memory_id: str
    privileges: frozenset[str]
    chain: list[str]
    below: dict[str, frozenset[str]]
    parents: dict[str, str | None]

    @property
    def visible(self) -> bool:
        """A memory with no privilege does not exist for the caller."""
        return bool(self.privileges)

    def require(self, privilege: str) -> None:
        """Refuse with 404 when unseen, 403 when seen without the privilege."""
        require(self.privileges, privilege)

    def readable_scope(self) -> list[str]:
        """The memory and every descendant the caller may read, judged one by one."""
        scope = [self.memory_id] if "read" in self.privileges else []
        scope += [mid for mid, privs in self.below.items() if "read" in privs]
        return scope

    def visible_children(self) -> list[str]:
        """Direct children the caller holds any privilege on."""
        return [mid for mid, privs in self.below.items() if privs and self.parents.get(mid) == self.memory_id]


@dataclass(frozen=True)
class Scope:
    """The memories one search below a memory covers, and what `degraded` says about the cut."""

    memory_ids: list[str]
    degraded: list[str]


def scope_for(reach: Reach, depth: int | None, cap: int) -> Scope:
    """What recall, graph and queries search, by one rule.

    The memory alone at depth 0, else it and each readable descendant, nearest first and by id within
    a depth (a stated order, not the database's, so the same request on the same data is cut the same
    way); cut at `cap` memories, and `degraded` says so.
    """
    memory_ids = [reach.memory_id] if depth == 0 else reach.readable_scope()
    if len(memory_ids) <= cap:
        return Scope(memory_ids, [])
    return Scope(memory_ids[:cap], [f"subtree:capped_at_{cap}_memories"])


def require(privileges: frozenset[str], privilege: str) -> None:
    """404 when the caller holds nothing (unknown and forbidden look the same), 403 when it lacks one."""
    if not privileges:
        raise MemoryNotFoundError("No memory with that id exists.", param="memory_id")
    if privilege not in privileges:
        raise MemoryForbiddenError(
            f"The caller may not {privilege} this memory.", detail={"required": privilege}
        )


def shows_content(privileges: frozenset[str]) -> bool:
    """Whether an answer may carry a record's content: only to a reader.

    `write` alone lets a member revise, forget and operate (chapter §3.1), so such a write succeeds;
    its answer then names the record (id, version, status, time) and carries none of what it says.
    """
    return "read" in privileges


def require_record(privileges: frozenset[str] | None, privilege: str, param: str) -> None:
    """A record named by id in a body (a merge's duplicate), judged on its memory's privileges.

    Unreadable answers as unknown (404 `memory_record_not_found`); a record the caller reads but
    may not `privilege` is refused with 403 `memory_forbidden`.
    """
    if not may(privileges, "read"):
        raise RecordNotFoundError("No record with that id is in reach.", param=param)
    if not may(privileges, privilege):
        raise MemoryForbiddenError(
            f"The caller may not {privilege} that record's memory.",
            param=param,
            detail={"required": privilege},
        )


def reach(memory_id: str, chain: Sequence[NodeFacts], below: Sequence[NodeFacts]) -> Reach:
    """Builds the caller's view from the chain (root first, ending at the memory) and the subtree."""
    privileges = effective_privileges([*chain, *below])
    visible_chain = visible_ancestors([n.id for n in chain[:-1]], privileges)
    return Reach(
        memory_id=memory_id,
        privileges=privileges.get(memory_id, NOTHING),
        chain=visible_chain,
        below={n.id: privileges[n.id] for n in sorted(below, key=lambda n: (n.depth, n.id))},
        parents={n.id: n.parent_id for n in below},
    )


def visible_ancestors(ancestors: Sequence[str], privileges: dict[str, frozenset[str]]) -> list[str]:
    """The ancestors, root first, cut to the unbroken run the caller sees directly above the memory.

    Showing a visible root above an unseen node would reveal that the unseen node exists.
    """
    kept: list[str] = []
    for ancestor in reversed(ancestors):
        if not privileges.get(ancestor):
            break
        kept.append(ancestor)
    return list(reversed(kept))


def entry_points(granted: Sequence[NodeFacts]) -> list[str]:
    """Memories the caller holds a privilege on whose parent it cannot see, highest first."""
    privileges = effective_privileges(granted)
    by_depth = sorted(granted, key=lambda n: n.depth)
    return [
        n.id
        for n in by_depth
        if privileges.get(n.id) and (n.parent_id is None or not privileges.get(n.parent_id))
    ]


def granted_listing(granted: Sequence[NodeFacts]) -> list[tuple[str, frozenset[str]]]:
    """Readable entry points plus every node below where the caller's privileges change, highest first."""
    privileges = effective_privileges(granted)
    under: set[str] = set()  # readable entry points and everything below them
    listed: list[tuple[str, frozenset[str]]] = []
    for node in sorted(granted, key=lambda n: n.depth):
        mine = privileges.get(node.id, NOTHING)
        parent = privileges.get(node.parent_id, NOTHING) if node.parent_id else NOTHING
        entry = "read" in mine and not parent
        below = node.parent_id in under
        if entry or below:
            under.add(node.id)
        if mine and (entry or (below and mine != parent)):
            listed.append((node.id, mine))
    return listed


# Unknown and hidden look the same. Everything a request names by id (a memory, a snapshot in
# `as_of`, a reference's target) is judged by this one rule: what the caller may not read answers
# exactly as what does not exist. A reference may name a record the writer cannot read (the chapter
# lets it), so a reference to a record that does not exist is kept too, by id alone, and both are
# shown to every reader who cannot follow them as `{record_id, available: false}`.


def may(privileges: frozenset[str] | None, privilege: str) -> bool:
    """Whether a thing named by id is there for the caller: None (absent) and unheld answer alike."""
    return privileges is not None and privilege in privileges


def may_restore_into(privileges: frozenset[str] | None, *, grants: bool) -> bool:
    """Whether a restore may count a memory it finds already there as its own.

    It must hold there all it needs on its target (read, write, create; delete too with grants).
    Anything less answers as a clash, the same whatever the memory holds, so a restore cannot probe
    what the caller may not read.
    """
    needed = ("read", "write", "create", "delete") if grants else ("read", "write", "create")
    return privileges is not None and all(p in privileges for p in needed)


def may_read_file(owner: str, principal: str, naming: Iterable[frozenset[str]]) -> bool:
    """A file is readable by its uploader and by whoever may read a record that names it."""
    return owner == principal or any("read" in privileges for privileges in naming)


def shown_reference(reference: dict[str, Any], readable: set[str]) -> dict[str, Any]:
    """A reference as one reader sees it: whole when its target's memory is readable, else a bare id."""
    target = reference.get("memory_id")
    if target is not None and target in readable:
        return {
            "rel": reference["rel"],
            "memory_id": target,
            "record_id": reference["record_id"],
            "available": True,
        }
    return {"record_id": reference["record_id"], "available": False}
