"""Dependencies routes declare with `Annotated`: the services, the caller, the admin."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request

from provider.config import Settings
from provider.embeddings import Embedder
from provider.models import Caller
from provider.services.admin import AdminService
from provider.services.capabilities import Capable
from provider.services.consolidation import ConsolidationService
from provider.services.content_parts import ContentService
from provider.services.erase import EraseService
from provider.services.files import FileService
from provider.services.grants import GrantService
from provider.services.graph import GraphService
from provider.services.harnesses import HarnessService
from provider.services.idempotency import IdempotencyService
from provider.services.identity import AdminCaller, IdentityService
from provider.services.observe import ObserveService
from provider.services.prime import PrimeService
from provider.services.queries import QueryService
from provider.services.recall import RecallService
from provider.services.records import RecordService
from provider.services.snapshots import SnapshotService
from provider.services.tree import TreeService
from provider.services.types import TypeService
from provider.store.driver import Neo4jStore


@dataclass
class Services:
    """Everything a route may call, built once in the lifespan."""

    settings: Settings
    store: Neo4jStore
    embedder: Embedder
    identity: IdentityService
    admin: AdminService
    tree: TreeService
    grants: GrantService
    harnesses: HarnessService
    files: FileService
    records: RecordService
    content: ContentService
    snapshots: SnapshotService
    recall: RecallService
    graph: GraphService
    idempotency: IdempotencyService
    erase: EraseService
    observe: ObserveService
    prime: PrimeService
    types: TypeService
    consolidation: ConsolidationService
    queries: QueryService
    schema_applied: bool = False

    def capable(self) -> list[Capable]:
        """The services that contribute to the capability document."""
        return [s for s in vars(self).values() if hasattr(s, "capabilities")]


def get_services(request: Request) -> Services:
    """The container the lifespan put on the app."""
    services: Services = request.app.state.services
    return services


def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


async def get_caller(
    services: Annotated[Services, Depends(get_services)],
    authorization: Annotated[str | None, Header()] = None,
    uhp_on_behalf_of: Annotated[str | None, Header(alias="UHP-On-Behalf-Of")] = None,
) -> Caller:
    """The member this request acts for; 401 without a valid key."""
    return await services.identity.authenticate(_bearer(authorization), uhp_on_behalf_of)


def get_admin(
    services: Annotated[Services, Depends(get_services)],
    authorization: Annotated[str | None, Header()] = None,
) -> AdminCaller:
    """The operator; only the admin key passes."""
    return services.identity.authenticate_admin(_bearer(authorization))


ServicesDep = Annotated[Services, Depends(get_services)]
CallerDep = Annotated[Caller, Depends(get_caller)]
AdminDep = Annotated[AdminCaller, Depends(get_admin)]
