"""Request bodies of the admin surface (the chapter leaves identity to the server): members, keys, groups."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from provider.protocol.wire import RequestBody


class MemberCreate(RequestBody):
    """A person or an agent."""

    type: Literal["human", "agent"] = Field(description="human or agent.")
    name: str = Field(min_length=1, max_length=300, description="Display name.")


class KeyCreate(RequestBody):
    """A new API key for a member."""

    server: bool = Field(False, description="A server key may act for members via UHP-On-Behalf-Of.")


class GroupCreate(RequestBody):
    """A group of members and groups."""

    name: str = Field(min_length=1, max_length=300, description="Display name.")


class HarnessCreate(RequestBody):
    """A harness whose agent is a member."""

    name: str = Field(min_length=1, max_length=300, description="Display name.")
    member_id: str = Field(min_length=1, max_length=128, description="The agent member this harness runs as.")
