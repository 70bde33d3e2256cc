"""A small oracle for the tree's access rules, written straight from the chapter.

It shares no code with `provider.access`: every answer is recomputed by brute force over a plain
model of the forest (parents, cutoffs, grants, groups), so a disagreement points at one of the two.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PRIVILEGES: tuple[str, ...] = ("read", "write", "create", "delete")
ALL = frozenset(PRIVILEGES)
NONE: frozenset[str] = frozenset()


def ordered(privileges: frozenset[str]) -> list[str]:
    """Privileges in the chapter's order."""
    return [p for p in PRIVILEGES if p in privileges]


@dataclass
class GrantRec:
    """One grant sitting on one memory."""

    id: str
    principal: str
    privileges: frozenset[str]
    implicit: bool = False


@dataclass
class View:
    """What one member should see of one memory."""

    id: str
    privileges: list[str]
    ancestors: list[str]
    parent_id: str | None
    children: int
    restricted: bool


@dataclass
class Forest:
    """The whole world as the rules see it: memories, grants and (nested) groups."""

    parent: dict[str, str | None] = field(default_factory=dict)
    restricted: dict[str, bool] = field(default_factory=dict)
    grants: dict[str, list[GrantRec]] = field(default_factory=dict)
    groups: dict[str, set[str]] = field(default_factory=dict)

    # --- structure -------------------------------------------------------------------------

    def add(self, memory_id: str, parent: str | None, *, restricted: bool = False) -> None:
        """A new memory (without grants)."""
        self.parent[memory_id] = parent
        self.restricted[memory_id] = restricted
        self.grants[memory_id] = []

    def up(self, memory_id: str) -> list[str]:
        """The ancestors, parent first, up to the root."""
        chain: list[str] = []
        current = self.parent[memory_id]
        while current is not None:
            chain.append(current)
            current = self.parent[current]
        return chain

    def depth(self, memory_id: str) -> int:
        """0 at a root."""
        return len(self.up(memory_id))

    def children(self, memory_id: str) -> list[str]:
        """Direct children."""
        return [m for m, p in self.parent.items() if p == memory_id]

    def descendants(self, memory_id: str) -> list[str]:
        """Every memory strictly below."""
        return [m for m in self.parent if memory_id in self.up(m)]

    def subtree(self, memory_id: str) -> list[str]:
        """The memory and every descendant."""
        return [memory_id, *self.descendants(memory_id)]

    def remove(self, memory_id: str) -> list[str]:
        """Deletes a subtree; the ids removed."""
        doomed = self.subtree(memory_id)
        for m in doomed:
            del self.parent[m], self.restricted[m], self.grants[m]
        return doomed

    # --- principals ------------------------------------------------------------------------

    def principals(self, member_id: str) -> set[str]:
        """The member itself and every group it is in, directly or through groups."""
        inside: set[str] = set()
        frontier = {member_id}
        while frontier:
            found = {g for g, members in self.groups.items() if members & frontier} - inside
            inside |= found
            frontier = found
        return {f"member:{member_id}"} | {f"group:{g}" for g in inside}

    # --- the rules -------------------------------------------------------------------------

    def own(self, memory_id: str, principals: set[str]) -> frozenset[str]:
        """The union of the grants sitting on this one memory that name one of the principals."""
        held: set[str] = set()
        for grant in self.grants[memory_id]:
            if grant.principal in principals:
                held |= grant.privileges
        return frozenset(held)

    def privileges(self, member_id: str, memory_id: str) -> frozenset[str]:
        """Union of the grants on the node and each ancestor, up to and including the nearest cutoff."""
        principals = self.principals(member_id)
        held: set[str] = set()
        current: str | None = memory_id
        while current is not None:
            held |= self.own(current, principals)
            if self.restricted[current]:
                break
            current = self.parent[current]
        return frozenset(held)

    def sees(self, member_id: str, memory_id: str | None) -> bool:
        """A memory the member holds nothing on does not exist for it."""
        return (
            memory_id is not None and memory_id in self.parent and bool(self.privileges(member_id, memory_id))
        )

    def view(self, member_id: str, memory_id: str) -> View:
        """The memory object's access-dependent fields."""
        seen: list[str] = []
        for ancestor in self.up(memory_id):
            if not self.sees(member_id, ancestor):
                break
            seen.append(ancestor)
        parent = self.parent[memory_id]
        return View(
            id=memory_id,
            privileges=ordered(self.privileges(member_id, memory_id)),
            ancestors=list(reversed(seen)),
            parent_id=parent if self.sees(member_id, parent) else None,
            children=sum(1 for c in self.children(memory_id) if self.sees(member_id, c)),
            restricted=self.restricted[memory_id],
        )

    def entries(self, member_id: str) -> set[str]:
        """Every memory it holds a privilege on whose parent it cannot see."""
        return {
            m for m in self.parent if self.sees(member_id, m) and not self.sees(member_id, self.parent[m])
        }

    def children_seen(self, member_id: str, parent: str) -> set[str]:
        """Direct children the member may see."""
        return {c for c in self.children(parent) if self.sees(member_id, c)}

    def readable_below(self, member_id: str, ancestor: str) -> set[str]:
        """Every descendant the member may read, judged one by one."""
        return {d for d in self.descendants(ancestor) if "read" in self.privileges(member_id, d)}

    def granted(self, member_id: str) -> set[str]:
        """Readable memories whose parent it cannot see, and every memory below those on which its
        privileges differ from the parent's (only memories it sees: unknown equals forbidden)."""
        tops = {m for m in self.entries(member_id) if "read" in self.privileges(member_id, m)}
        changed = {
            m
            for m in self.parent
            if self.sees(member_id, m)
            and tops & set(self.up(m))
            and self.privileges(member_id, m) != self._parent_privileges(member_id, m)
        }
        return tops | changed

    def _parent_privileges(self, member_id: str, memory_id: str) -> frozenset[str]:
        parent = self.parent[memory_id]
        return NONE if parent is None else self.privileges(member_id, parent)

    def harness(self, member_id: str) -> dict[str, list[str]]:
        """Every memory the agent (or one of its groups) holds a grant on, with effective privileges."""
        principals = self.principals(member_id)
        return {
            m: ordered(self.privileges(member_id, m))
            for m in self.parent
            if any(g.principal in principals for g in self.grants[m])
        }

    def grant_listing(self, member_id: str, memory_id: str) -> list[tuple[str, str, bool]]:
        """(grant id, node it sits on, inherited) for every grant bearing on the memory that sits on
        the memory or on an ancestor the member sees, stopping at the nearest cutoff."""
        visible = set(self.view(member_id, memory_id).ancestors) | {memory_id}
        listed: list[tuple[str, str, bool]] = []
        for node in [memory_id, *self.up(memory_id)]:
            if node in visible:
                listed += [(g.id, node, node != memory_id) for g in self.grants[node]]
            if self.restricted[node]:
                break
        return listed
