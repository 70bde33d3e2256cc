"""Who is calling: resolves a bearer key (and a server key's on-behalf header) to a Caller."""

from __future__ import annotations

import hashlib
import hmac
import logging
from dataclasses import dataclass

from provider import ids
from provider.errors import AuthenticationError, PermissionDeniedError, ProviderError
from provider.models import Caller, KeyHolder
from provider.services.tree.ports import PrincipalStorage

log = logging.getLogger("provider.identity")

# A key's `last_used_at` is stamped at most this often, so a busy key does not write on every request.
TOUCH_EVERY_MS = 60_000


def hash_key(key: str) -> str:
    """Keys are long random tokens, so one SHA-256 is enough to keep them unreadable at rest."""
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class AdminCaller:
    """The operator, holding the admin key from the environment; acts for no member."""


class IdentityService:
    """Turns credentials into callers; every unknown, revoked or expired credential looks the same.

    Nothing is cached: each request asks the store, so a revoked key is refused on the next request.
    """

    def __init__(self, principals: PrincipalStorage, admin_key: str):
        self.principals = principals
        self.admin_key = admin_key

    def is_admin(self, key: str) -> bool:
        """Constant-time comparison with the configured admin key."""
        return bool(self.admin_key) and hmac.compare_digest(key.encode(), self.admin_key.encode())

    async def authenticate(self, key: str | None, on_behalf_of: str | None) -> Caller:
        """A member's key, or a server key acting for the member named in `UHP-On-Behalf-Of`."""
        if not key:
            raise AuthenticationError("A bearer API key is required.")
        now = ids.now_ms()
        found = await self.principals.resolve_key(hash_key(key), now)
        if found is None:
            if self.is_admin(key):
                raise PermissionDeniedError("The admin key acts for no member; use a member's key.")
            raise AuthenticationError("The API key is not valid.")
        await self._note_use(found, now)
        if on_behalf_of is None:
            return Caller(member_id=found.member_id, member_type=found.member_type, via_server=found.server)
        if not found.server:
            raise PermissionDeniedError("Only a server key may act on behalf of a member.")
        acting = await self._acting_for(on_behalf_of)
        return Caller(member_id=acting.member_id, member_type=acting.member_type, via_server=True)

    async def _note_use(self, found: KeyHolder, now: int) -> None:
        """Stamps `last_used_at` when the last stamp is a minute old; a failed stamp denies nothing."""
        last = found.last_used_at_ms
        if found.key_id is None or (last is not None and now - last < TOUCH_EVERY_MS):
            return
        try:
            await self.principals.touch_key(found.key_id, now, TOUCH_EVERY_MS)
        except ProviderError as e:
            log.warning("last_used_at of key %s not stamped: %s", found.key_id, e.message)

    async def _acting_for(self, principal: str) -> Caller:
        kind, _, member_id = principal.partition(":")
        member = await self.principals.get_member(member_id) if kind == "member" and member_id else None
        if member is None:
            raise AuthenticationError("UHP-On-Behalf-Of must name a known member as member:<id>.")
        return Caller(member_id=member.id, member_type=member.type)

    def authenticate_admin(self, key: str | None) -> AdminCaller:
        """Only the admin key opens the admin surface."""
        if not key:
            raise AuthenticationError("A bearer API key is required.")
        if not self.is_admin(key):
            raise AuthenticationError("The admin key is not valid.")
        return AdminCaller()
