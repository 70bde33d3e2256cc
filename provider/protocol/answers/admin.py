"""What the admin routes answer: API keys (never a hash, the secret only when issued), a member's usage."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from provider import ids
from provider.models import ApiKey, IssuedKey, Usage
from provider.protocol.answers.shapes import Answer


class ApiKeyOut(Answer):
    """An API key as an operator may know it: never the key itself or its hash."""

    id: str = Field(description="The key's id (`hkey_...`), for revoking and rotating it.")
    member_id: str
    server: bool = Field(description="A server key may act for members via UHP-On-Behalf-Of.")
    created_at: str | None = Field(description="RFC 3339 instant.")
    expires_at: str | None = Field(description="When the key stops working; null when it never expires.")
    last_used_at: str | None = Field(
        description="When the key last authenticated, to the minute (stamped at most once a minute)."
    )
    revoked_at: str | None = Field(
        description="When the key is or was revoked; in the future while a rotation's grace runs."
    )
    revoked: bool = Field(description="True once revoked_at has passed: the key is refused.")
    expired: bool = Field(description="True once expires_at has passed: the key is refused.")

    @classmethod
    def from_domain(cls, key: ApiKey) -> ApiKeyOut:
        return cls(**_key_fields(key))


def _key_fields(key: ApiKey) -> dict[str, Any]:
    return {
        "id": key.id,
        "member_id": key.member_id,
        "server": key.server,
        "created_at": ids.iso(key.created_at_ms),
        "expires_at": ids.iso(key.expires_at_ms),
        "last_used_at": ids.iso(key.last_used_at_ms),
        "revoked_at": ids.iso(key.revoked_at_ms),
        "revoked": key.revoked,
        "expired": key.expired,
    }


class ApiKeyListOut(Answer):
    """A member's keys, newest first, revoked and expired ones included."""

    object: Literal["list"] = "list"
    data: list[ApiKeyOut]


class IssuedKeyOut(ApiKeyOut):
    """A new key: `key` is shown this once; only its SHA-256 hash is kept."""

    key: str

    @classmethod
    def issued(cls, issued: IssuedKey) -> IssuedKeyOut:
        return cls(**_key_fields(issued.key), key=issued.secret)


class RotatedKeyOut(IssuedKeyOut):
    """A new key in an old one's place, and the old one with the end the rotation gave it."""

    previous: ApiKeyOut

    @classmethod
    def rotated(cls, issued: IssuedKey) -> RotatedKeyOut:
        assert issued.previous is not None, "a rotation names the key it replaces"
        previous = ApiKeyOut.from_domain(issued.previous)
        return cls(**_key_fields(issued.key), key=issued.secret, previous=previous)


class QuotasOut(Answer):
    """The quotas in force (docs/OPERATIONS.md "Quotas"); 0 is no limit."""

    records: int = Field(description="Records one principal may keep (UHP_QUOTA_RECORDS).")
    content_bytes: int = Field(
        description="Bytes of content one principal may keep (UHP_QUOTA_CONTENT_BYTES)."
    )
    memories: int = Field(description="Memories one principal may keep (UHP_QUOTA_MEMORIES).")
    root_records: int = Field(description="Records one root memory's tree may hold (UHP_QUOTA_ROOT_RECORDS).")
    root_content_bytes: int = Field(
        description="Bytes of content one root memory's tree may hold (UHP_QUOTA_ROOT_CONTENT_BYTES)."
    )


class UsageOut(Answer):
    """What a member keeps, as the counters its quotas read have it, and the quotas."""

    object: Literal["memory.usage"] = "memory.usage"
    principal: str = Field(description="`member:<id>`.")
    records: int = Field(description="Records it wrote (imported, observed, restored) and not erased.")
    content_bytes: int = Field(
        description="Bytes of content and attributes (as stored, JSON) of every version it wrote."
    )
    memories: int = Field(description="Memories it created or restored and not deleted.")
    quotas: QuotasOut

    @classmethod
    def from_domain(cls, usage: Usage) -> UsageOut:
        limits = usage.limits
        quotas = QuotasOut(
            records=limits.records,
            content_bytes=limits.content_bytes,
            memories=limits.memories,
            root_records=limits.root_records,
            root_content_bytes=limits.root_content_bytes,
        )
        return cls(
            principal=usage.principal,
            records=usage.records,
            content_bytes=usage.content_bytes,
            memories=usage.memories,
            quotas=quotas,
        )
