"""Dependencies routes declare with `Annotated`: the services, and the caller edge.py resolved."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from provider.config import Settings
from provider.embeddings import Embedder
from provider.errors import AuthenticationError
from provider.fairness import FairGate
from provider.models import Caller
from provider.services.archive.export import ExportService
from provider.services.archive.restore import RestoreService
from provider.services.capabilities import Capable
from provider.services.lifecycle.consolidation import ConsolidationService
from provider.services.lifecycle.jobs import ObserveJobs
from provider.services.lifecycle.observe import ObserveService
from provider.services.lifecycle.operations import TypeService
from provider.services.lifecycle.prime import PrimeService
from provider.services.lifecycle.sweeper import Sweeper
from provider.services.queries.service import QueryService
from provider.services.recall.graph import GraphService
from provider.services.recall.service import RecallService
from provider.services.records.erase import EraseService
from provider.services.records.files import FileService
from provider.services.records.idempotency import IdempotencyService
from provider.services.records.parts import ContentService
from provider.services.records.service import RecordService
from provider.services.records.snapshots import SnapshotService
from provider.services.tree.admin import AdminService
from provider.services.tree.grants import GrantService
from provider.services.tree.harnesses import HarnessService
from provider.services.tree.identity import AdminCaller, IdentityService
from provider.services.tree.memories import TreeService
from provider.services.vectors import VectorModels
from provider.store.driver import Neo4jStore


@dataclass
class Services:
    """Everything a route may call, built once in the lifespan."""

    settings: Settings
    store: Neo4jStore
    embedder: Embedder
    vectors: VectorModels
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
    jobs: ObserveJobs
    prime: PrimeService
    types: TypeService
    consolidation: ConsolidationService
    queries: QueryService
    sweeper: Sweeper
    export: ExportService
    restore: RestoreService
    gates: dict[str, FairGate]  # the fair queues in front of reads, writes and queries (fairness.py)
    schema_applied: bool = False

    def capable(self) -> list[Capable]:
        """The services that contribute to the capability document."""
        return [s for s in vars(self).values() if hasattr(s, "capabilities")]


def get_services(request: Request) -> Services:
    """The container the lifespan put on the app."""
    services: Services = request.app.state.services
    return services


# Declared for the OpenAPI document only: the edge has checked the key before any route runs.
BEARER = HTTPBearer(auto_error=False, description="A member's or server's key; the admin key on /v1/admin.")
KeyDoc = Annotated[HTTPAuthorizationCredentials | None, Security(BEARER)]


def get_caller(request: Request, _key: KeyDoc = None) -> Caller:
    """The member this request acts for, as edge.Authentication resolved it before routing."""
    caller = getattr(request.state, "caller", None)
    if not isinstance(caller, Caller):  # only if the edge is not in place: refuse rather than guess
        raise AuthenticationError("A bearer API key is required.")
    return caller


def get_admin(request: Request, _key: KeyDoc = None) -> AdminCaller:
    """The operator; the edge let only the admin key through to `/v1/admin/...`."""
    caller = getattr(request.state, "caller", None)
    if not isinstance(caller, AdminCaller):
        raise AuthenticationError("The admin key is required.")
    return caller


ServicesDep = Annotated[Services, Depends(get_services)]
CallerDep = Annotated[Caller, Depends(get_caller)]
AdminDep = Annotated[AdminCaller, Depends(get_admin)]
