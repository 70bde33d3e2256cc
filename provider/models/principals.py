"""Members, groups, keys, and what a member may keep."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from provider.models.access import MemberType


@dataclass(frozen=True)
class Member:
    """A member as stored: a person or an agent that may call."""

    id: str
    type: MemberType
    name: str


@dataclass(frozen=True)
class Group:
    """A group as stored: grants to it reach its members and the members of groups inside it."""

    id: str
    name: str


@dataclass(frozen=True)
class KeyHolder:
    """Whom a key in force belongs to, what kind of key it is, and when it last authenticated.

    `key_id` is None for a key stored before keys had ids, until schema_022 gives it one.
    """

    member_id: str
    member_type: MemberType
    server: bool
    key_id: str | None
    last_used_at_ms: int | None


@dataclass(frozen=True)
class ApiKey:
    """A member's key as an operator may see it: its times, never the key or its hash."""

    id: str
    member_id: str
    server: bool
    created_at_ms: int | None
    expires_at_ms: int | None
    last_used_at_ms: int | None
    revoked_at_ms: int | None
    now_ms: int  # the instant `revoked` and `expired` are judged at

    @property
    def revoked(self) -> bool:
        return self.revoked_at_ms is not None and self.revoked_at_ms <= self.now_ms

    @property
    def expired(self) -> bool:
        return self.expires_at_ms is not None and self.expires_at_ms <= self.now_ms


@dataclass(frozen=True)
class IssuedKey:
    """A new key with its secret, shown this once; a rotation also names the key it replaces."""

    key: ApiKey
    secret: str
    previous: ApiKey | None = None


@dataclass(frozen=True)
class Principal:
    """A member or a group as the admin surface made it, with the principal string a grant names."""

    id: str
    name: str
    principal: str
    type: str | None = None  # a member's kind (human, agent); a group has none


@dataclass(frozen=True)
class Membership:
    """Whether a member now belongs to a group; `removed` says whether a removal found one."""

    group_id: str
    member_id: str
    member: bool
    removed: bool | None = None


@dataclass(frozen=True)
class UsageLimits:
    """What one principal may keep, and what one root memory's tree may hold; 0 is no limit."""

    records: int = 0
    content_bytes: int = 0
    memories: int = 0
    root_records: int = 0
    root_content_bytes: int = 0


@dataclass(frozen=True)
class Usage:
    """What one principal keeps, beside the limits that apply to it.

    Records it wrote, the content bytes of every version it wrote, and memories it created.
    """

    principal: str
    records: int
    content_bytes: int
    memories: int
    limits: UsageLimits


class NewKey(NamedTuple):
    """A key about to be stored: its id and the hash of its secret (the secret itself is never stored)."""

    id: str
    hash: str


class Rotation(NamedTuple):
    """A key rotation's outcome: the key issued and the one it replaces, each judged at the rotation."""

    issued: ApiKey
    previous: ApiKey


class GroupRemoval(NamedTuple):
    """Whether the group exists, and how many memberships a removal ended (0 or 1)."""

    found: bool
    removed: int
