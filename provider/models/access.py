"""Who is calling and what a privilege is."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Privilege = Literal["read", "write", "create", "delete"]


ALL_PRIVILEGES: tuple[Privilege, ...] = ("read", "write", "create", "delete")


MemberType = Literal["human", "agent"]


def ordered_privileges(privileges: frozenset[str]) -> list[Privilege]:
    """Privileges in the chapter's order, so answers are stable."""
    return [p for p in ALL_PRIVILEGES if p in privileges]


LONGEST_KEY_SECONDS = 10 * 366 * 86_400  # a key's longest life: past ten years an expiry is a typo


@dataclass(frozen=True)
class Caller:
    """Who is asking: the member a request acts for, resolved from its credential."""

    member_id: str
    member_type: MemberType
    via_server: bool = False

    @property
    def principal(self) -> str:
        """The caller as the access model names it."""
        return f"member:{self.member_id}"
