"""The async client, one method per route; made by `python -m provider.client.generate`."""

from __future__ import annotations

from typing import Any, Literal

from provider.client import routes
from provider.client.call import Stream
from provider.client.transport import AsyncTransport
from provider.protocol.answers.admin import ApiKeyListOut, ApiKeyOut, IssuedKeyOut, RotatedKeyOut, UsageOut
from provider.protocol.answers.archive import RestoredOut
from provider.protocol.answers.lifecycle import (
    ConsolidationListOut,
    ConsolidationOut,
    ErasureOut,
    JobOut,
    ObservedOut,
    OperationResultOut,
    PrimeOut,
)
from provider.protocol.answers.queries import QueryListOut, QueryOut, QueryRecordsOut, QueryRowsOut
from provider.protocol.answers.recall import GraphOut, RecallOut
from provider.protocol.answers.records import (
    RecordListOut,
    RecordOut,
    SnapshotListOut,
    SnapshotOut,
    UploadedFileOut,
)
from provider.protocol.answers.shapes import Deleted, FreeList, MemoryDeleted, Privilege
from provider.protocol.answers.tree import (
    GrantListOut,
    GrantOut,
    HarnessMemoriesOut,
    HarnessOut,
    MembershipOut,
    MemoryListOut,
    MemoryOut,
    PrincipalOut,
)
from provider.protocol.answers.types import TypeListOut


class AsyncMemoryClient(AsyncTransport):
    """Typed async access to every route of the chapter and the admin surface."""

    async def discovery(self) -> dict[str, Any]:
        """`GET /v1/uhp`: what the server speaks and can do."""
        return await self.send(routes.discovery())

    async def providers(self) -> FreeList:
        """`GET /v1/memories/providers`: the capability document."""
        return await self.send(routes.providers())

    async def types(self) -> TypeListOut:
        """`GET /v1/memories/types`: the record types and their operations."""
        return await self.send(routes.types())

    async def list_memories(
        self,
        *,
        parent: str | None = None,
        ancestor: str | None = None,
        granted: bool | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> MemoryListOut:
        """`GET /v1/memories`: a page of entry points, children, descendants or granted memories."""
        return await self.send(
            routes.list_memories(
                parent=parent, ancestor=ancestor, granted=granted, limit=limit, cursor=cursor
            )
        )

    async def create_memory(
        self,
        name: str,
        *,
        description: str | None = None,
        parent_id: str | None = None,
        restricted: bool | None = None,
        provider: str | None = None,
    ) -> MemoryOut:
        """`POST /v1/memories`: a root, or a child of a memory the caller may create in."""
        return await self.send(
            routes.create_memory(
                name, description=description, parent_id=parent_id, restricted=restricted, provider=provider
            )
        )

    async def get_memory(self, memory_id: str) -> MemoryOut:
        """`GET /v1/memories/{id}`."""
        return await self.send(routes.get_memory(memory_id))

    async def update_memory(self, memory_id: str, **changes: Any) -> MemoryOut:
        """`PUT /v1/memories/{id}`: name, description, restricted, parent_id (null: a root)."""
        return await self.send(routes.update_memory(memory_id, **changes))

    async def delete_memory(self, memory_id: str) -> MemoryDeleted:
        """`DELETE /v1/memories/{id}`: the memory and its whole subtree."""
        return await self.send(routes.delete_memory(memory_id))

    async def list_grants(self, memory_id: str) -> GrantListOut:
        """`GET /v1/memories/{id}/grants`."""
        return await self.send(routes.list_grants(memory_id))

    async def create_grant(self, memory_id: str, principal: str, privileges: list[Privilege]) -> GrantOut:
        """`POST /v1/memories/{id}/grants` (needs delete)."""
        return await self.send(routes.create_grant(memory_id, principal, privileges))

    async def delete_grant(self, memory_id: str, grant_id: str) -> Deleted:
        """`DELETE /v1/memories/{id}/grants/{grant}` (needs delete)."""
        return await self.send(routes.delete_grant(memory_id, grant_id))

    async def harness_memories(self, harness_id: str) -> HarnessMemoriesOut:
        """`GET /v1/harnesses/{id}/memories`."""
        return await self.send(routes.harness_memories(harness_id))

    async def set_harness_memories(
        self, harness_id: str, *, default_memory_id: str | None = None, observe: bool | None = None
    ) -> HarnessMemoriesOut:
        """`PUT /v1/harnesses/{id}/memories`: fields left out keep their value."""
        return await self.send(
            routes.set_harness_memories(harness_id, default_memory_id=default_memory_id, observe=observe)
        )

    async def remember(
        self,
        memory_id: str,
        content: str | list[dict[str, Any]],
        *,
        type: str | None = None,
        title: str | None = None,
        attributes: dict[str, Any] | None = None,
        references: list[dict[str, Any]] | None = None,
        valid_from: str | None = None,
        valid_to: str | None = None,
    ) -> RecordOut:
        """`POST /v1/memories/{id}/records`: one record as stated (needs write)."""
        return await self.send(
            routes.remember(
                memory_id,
                content,
                type=type,
                title=title,
                attributes=attributes,
                references=references,
                valid_from=valid_from,
                valid_to=valid_to,
            )
        )

    async def list_records(
        self,
        memory_id: str,
        *,
        type: str | None = None,
        include: Literal["active", "all"] | None = None,
        as_of: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> RecordListOut:
        """`GET /v1/memories/{id}/records`: one page."""
        return await self.send(
            routes.list_records(
                memory_id, type=type, include=include, as_of=as_of, limit=limit, cursor=cursor
            )
        )

    async def get_record(self, memory_id: str, record_id: str, *, as_of: str | None = None) -> RecordOut:
        """`GET /v1/memories/{id}/records/{record}`, now or as of an instant or a snapshot."""
        return await self.send(routes.get_record(memory_id, record_id, as_of=as_of))

    async def revise(self, memory_id: str, record_id: str, **changes: Any) -> RecordOut:
        """`PATCH .../records/{record}`: each field given is restated (None sends null: `title` removed)."""
        return await self.send(routes.revise(memory_id, record_id, **changes))

    async def forget(self, memory_id: str, record_id: str) -> RecordOut:
        """`DELETE .../records/{record}`: closes the record, keeps its trace."""
        return await self.send(routes.forget(memory_id, record_id))

    async def history(self, memory_id: str, record_id: str) -> RecordListOut:
        """`GET .../records/{record}/history`: every version, oldest first."""
        return await self.send(routes.history(memory_id, record_id))

    async def content_part(self, memory_id: str, record_id: str, index: int) -> bytes:
        """`GET .../records/{record}/content/{index}`: a part's exact bytes."""
        return await self.send(routes.content_part(memory_id, record_id, index))

    async def create_snapshot(self, memory_id: str, name: str, *, message: str | None = None) -> SnapshotOut:
        """`POST /v1/memories/{id}/snapshots`: names this instant."""
        return await self.send(routes.create_snapshot(memory_id, name, message=message))

    async def list_snapshots(self, memory_id: str) -> SnapshotListOut:
        """`GET /v1/memories/{id}/snapshots`."""
        return await self.send(routes.list_snapshots(memory_id))

    async def upload_file(
        self,
        filename: str,
        data: bytes,
        *,
        media_type: str = "application/octet-stream",
        purpose: str | None = None,
    ) -> UploadedFileOut:
        """`POST /v1/files` (multipart): a record's file part then names it by id."""
        return await self.send(routes.upload_file(filename, data, media_type=media_type, purpose=purpose))

    async def recall(self, memory_id: str, **ask: Any) -> RecallOut:
        """`POST /v1/memories/{id}/recall`: `query`, `text`, `filters`, `types`, `as_of`, `limit`, ..."""
        return await self.send(routes.recall(memory_id, **ask))

    async def graph(self, memory_id: str, **ask: Any) -> GraphOut:
        """`POST /v1/memories/{id}/graph`: `around`, `hops`, `types`, `limit`."""
        return await self.send(routes.graph(memory_id, **ask))

    async def observe(
        self, memory_id: str, episodes: list[dict[str, Any]], *, respond_async: bool = False
    ) -> ObservedOut:
        """`POST /v1/memories/{id}/observe`: the records kept, or (202) the job that keeps them."""
        return await self.send(routes.observe(memory_id, episodes, respond_async=respond_async))

    async def job(self, memory_id: str, job_id: str) -> JobOut:
        """`GET /v1/memories/{id}/jobs/{job}`: what an observe's job has written."""
        return await self.send(routes.job(memory_id, job_id))

    async def erase(self, memory_id: str, record_ids: list[str]) -> ErasureOut:
        """`POST /v1/memories/{id}/erase`: content removed for good, and what could not be reached."""
        return await self.send(routes.erase(memory_id, record_ids))

    async def prime(self, memory_id: str, *, budget: int | None = None) -> PrimeOut:
        """`GET /v1/memories/{id}/prime`: the standing records as one fenced text."""
        return await self.send(routes.prime(memory_id, budget=budget))

    async def operate(self, memory_id: str, record_id: str, name: str, **input: Any) -> OperationResultOut:
        """`POST .../records/{record}/operations/{name}`: an operation the record's type offers."""
        return await self.send(routes.operate(memory_id, record_id, name, **input))

    async def consolidate(self, memory_id: str, *, budget: int | None = None) -> ConsolidationOut:
        """`POST /v1/memories/{id}/consolidations`: runs consolidation now."""
        return await self.send(routes.consolidate(memory_id, budget=budget))

    async def list_consolidations(self, memory_id: str) -> ConsolidationListOut:
        """`GET /v1/memories/{id}/consolidations`: newest first."""
        return await self.send(routes.list_consolidations(memory_id))

    async def get_consolidation(self, memory_id: str, run_id: str) -> ConsolidationOut:
        """`GET /v1/memories/{id}/consolidations/{run}`."""
        return await self.send(routes.get_consolidation(memory_id, run_id))

    async def consolidation_changes(self, memory_id: str, run_id: str) -> FreeList:
        """`GET .../consolidations/{run}/changes`: what the run did to each record."""
        return await self.send(routes.consolidation_changes(memory_id, run_id))

    async def revert_consolidation(self, memory_id: str, run_id: str) -> ConsolidationOut:
        """`POST .../consolidations/{run}/revert`: undone by appending versions."""
        return await self.send(routes.revert_consolidation(memory_id, run_id))

    async def free_query(
        self,
        memory_id: str,
        statement: str,
        *,
        params: dict[str, Any] | None = None,
        depth: int | None = None,
        max_staleness_ms: int | None = None,
    ) -> QueryRowsOut | QueryRecordsOut:
        """`POST /v1/memories/{id}/query`: read-only Cypher over what the caller may read."""
        return await self.send(
            routes.free_query(
                memory_id, statement, params=params, depth=depth, max_staleness_ms=max_staleness_ms
            )
        )

    async def list_queries(self, memory_id: str) -> QueryListOut:
        """`GET /v1/memories/{id}/queries`."""
        return await self.send(routes.list_queries(memory_id))

    async def define_query(self, memory_id: str, name: str, body: str, **definition: Any) -> QueryOut:
        """`PUT /v1/memories/{id}/queries/{name}`: `description`, `params`, `requires`, `language`."""
        return await self.send(routes.define_query(memory_id, name, body, **definition))

    async def run_query(
        self, memory_id: str, name: str, *, params: dict[str, Any] | None = None
    ) -> QueryRowsOut | QueryRecordsOut:
        """`POST /v1/memories/{id}/queries/{name}`: params checked against the query's schema."""
        return await self.send(routes.run_query(memory_id, name, params=params))

    async def export(self, memory_id: str, into: Stream) -> int:
        """`GET /v1/memories/{id}/export`: the subtree's tar, streamed into a path or file; its size."""
        return await self.send(routes.export(memory_id, into))

    async def restore(
        self, memory_id: str, archive: Stream, *, grants: bool | None = None, embed: bool | None = None
    ) -> RestoredOut:
        """`POST /v1/memories/{id}/restore`: an export streamed from a path or file, below the memory."""
        return await self.send(routes.restore(memory_id, archive, grants=grants, embed=embed))

    async def create_member(self, type: Literal["human", "agent"], name: str) -> PrincipalOut:
        """`POST /v1/admin/members`."""
        return await self.send(routes.create_member(type, name))

    async def issue_key(
        self,
        member_id: str,
        *,
        server: bool = False,
        expires_at: str | None = None,
        expires_in: int | None = None,
    ) -> IssuedKeyOut:
        """`POST /v1/admin/members/{id}/keys`: `key` is in this answer only."""
        return await self.send(
            routes.issue_key(member_id, server=server, expires_at=expires_at, expires_in=expires_in)
        )

    async def list_keys(self, member_id: str) -> ApiKeyListOut:
        """`GET /v1/admin/members/{id}/keys`: never a key or its hash."""
        return await self.send(routes.list_keys(member_id))

    async def member_usage(self, member_id: str) -> UsageOut:
        """`GET /v1/admin/members/{id}/usage`: what the member keeps, beside the quotas."""
        return await self.send(routes.member_usage(member_id))

    async def revoke_key(self, member_id: str, key_id: str) -> ApiKeyOut:
        """`DELETE /v1/admin/members/{id}/keys/{key}`."""
        return await self.send(routes.revoke_key(member_id, key_id))

    async def rotate_key(
        self,
        member_id: str,
        key_id: str,
        *,
        grace_seconds: int | None = None,
        expires_at: str | None = None,
        expires_in: int | None = None,
    ) -> RotatedKeyOut:
        """`POST .../keys/{key}/rotate`: a new key; the old one ends after `grace_seconds`."""
        return await self.send(
            routes.rotate_key(
                member_id, key_id, grace_seconds=grace_seconds, expires_at=expires_at, expires_in=expires_in
            )
        )

    async def create_group(self, name: str) -> PrincipalOut:
        """`POST /v1/admin/groups`."""
        return await self.send(routes.create_group(name))

    async def add_to_group(self, group_id: str, member_id: str) -> MembershipOut:
        """`PUT /v1/admin/groups/{group}/members/{member}`."""
        return await self.send(routes.add_to_group(group_id, member_id))

    async def remove_from_group(self, group_id: str, member_id: str) -> MembershipOut:
        """`DELETE /v1/admin/groups/{group}/members/{member}`."""
        return await self.send(routes.remove_from_group(group_id, member_id))

    async def create_harness(self, name: str, member_id: str) -> HarnessOut:
        """`POST /v1/admin/harnesses`: a harness whose agent is the member."""
        return await self.send(routes.create_harness(name, member_id))
