"""Request bodies of the admin surface (the chapter leaves identity to the server): members, keys, groups."""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import AfterValidator, Field, model_validator

from provider import ids
from provider.models import LONGEST_KEY_SECONDS
from provider.protocol.wire import RequestBody, invalid

LONGEST_GRACE_SECONDS = 30 * 86_400


class MemberCreate(RequestBody):
    """A person or an agent."""

    type: Literal["human", "agent"] = Field(description="human or agent.")
    name: str = Field(min_length=1, max_length=300, description="Display name.")


def _instant(value: str | None) -> str | None:
    if value is not None:
        try:
            ids.parse_instant(value)
        except (ValueError, OverflowError):
            raise invalid("", "an ISO 8601 instant is expected") from None
    return value


class KeyExpiry(RequestBody):
    """When a new key stops working: an instant, or a number of seconds from now; never by default."""

    expires_at: Annotated[str | None, AfterValidator(_instant)] = Field(
        None,
        max_length=64,
        description="An ISO 8601 instant in the future, at most ten years on (no offset means UTC); "
        "not with expires_in.",
    )
    expires_in: int | None = Field(
        None, ge=1, le=LONGEST_KEY_SECONDS, description="Seconds from now; not with expires_at."
    )

    @model_validator(mode="after")
    def _one_expiry(self) -> Self:
        if self.expires_at is not None and self.expires_in is not None:
            raise invalid("expires_in", "give expires_at or expires_in, not both")
        return self

    def expires_at_ms(self) -> int | None:
        """The instant as milliseconds since the epoch (the service refuses one in the past)."""
        return None if self.expires_at is None else ids.parse_instant(self.expires_at)


class KeyCreate(KeyExpiry):
    """A new API key for a member."""

    server: bool = Field(False, description="A server key may act for members via UHP-On-Behalf-Of.")


class KeyRotate(KeyExpiry):
    """A new key in an old one's place, with the old one's server flag; the expiry is the new key's."""

    grace_seconds: int = Field(
        0,
        ge=0,
        le=LONGEST_GRACE_SECONDS,
        description="How long the old key keeps working, so callers can move over; 0 ends it at once.",
    )


class GroupCreate(RequestBody):
    """A group of members and groups."""

    name: str = Field(min_length=1, max_length=300, description="Display name.")


class HarnessCreate(RequestBody):
    """A harness whose agent is a member."""

    name: str = Field(min_length=1, max_length=300, description="Display name.")
    member_id: str = Field(min_length=1, max_length=128, description="The agent member this harness runs as.")
