"""Observe: episodes in as the provider's own records, linked at write time to the entities they name.

No model runs on the write path: an episode is linked with an `about` reference to each active
entity, person (`x.person`) or company (`x.company`), in the memory or an ancestor the observer may
read, that it mentions by a name it answers to: an entity's title, a person's or company's `name`,
any of their `aliases`, emails or domains, as whole words, ignoring case and accents
(`services/types/names.py` has the rule, and why a one-word name keeps its capital).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from provider import access, ids
from provider.models import Caller, ReadRecord, RecordDraft, Writer
from provider.models.words import content_words
from provider.services.lifecycle.ports import LifecycleRecords
from provider.services.records.service import RecordService
from provider.services.tree.memories import TreeService
from provider.services.types.catalog import ENTITY_TYPES
from provider.services.types.names import NameMatcher


class ObserveService:
    """Needs write; answers 200 with the episodes it kept (derivation runs at write time)."""

    def __init__(
        self, tree: TreeService, records: RecordService, record_store: LifecycleRecords, provider_id: str
    ):
        self.tree = tree
        self.records = records
        self.record_store = record_store
        self.provider_id = provider_id

    def capabilities(self) -> dict[str, Any]:
        """Episodes are kept; derivation (entity links) happens before the answer."""
        return {
            "derivation": "write_time",
            "observe": {"keeps_episodes": True, "answers": "records", "jobs": True},
        }

    async def observe(
        self, caller: Caller, memory_id: str, episodes: list[RecordDraft], *, seed: str | None = None
    ) -> list[ReadRecord]:
        """Keeps each episode as an `episode` record written by the provider on the observer's behalf.

        With a `seed` (an Idempotency-Key's, or a job's id) the records' ids derive from it, so a
        retry or a job taken over after a crash keeps each episode once.
        """
        view = await self.tree.require(caller, memory_id, "write")
        memories = await self._entity_memories(caller, memory_id)
        matcher = NameMatcher(await self.record_store.entities(memories, ENTITY_TYPES))
        writer = Writer(kind="provider", id=self.provider_id, on_behalf_of=caller.principal)
        texts = [content_words(e.title, e.content) for e in episodes]
        # Matching names against every episode is CPU work: it runs off the event loop.
        mentions = await asyncio.to_thread(lambda: [matcher.mentioned(text) for text in texts])
        drafts = [
            (
                ids.derived(ids.RECORD, seed, str(index)) if seed else ids.new_id(ids.RECORD),
                replace(episode, references=[{"rel": "about", "record_id": e.id} for e in found]),
            )
            for index, (episode, found) in enumerate(zip(episodes, mentions, strict=True))
        ]
        versions = await self.records.remember_stamped(caller, memory_id, drafts, writer)
        return await self.records.answered(caller, versions, shown=access.shows_content(view.privileges))

    async def _entity_memories(self, caller: Caller, memory_id: str) -> list[str]:
        """The memory and its ancestors, those the observer may read: a link would reveal the rest."""
        reach = await self.tree.readable_scope(caller, memory_id, 0)
        views = await self.tree.views(caller, [memory_id, *reach.chain])
        return [v.node.id for v in views if "read" in v.privileges]
