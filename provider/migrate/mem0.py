"""A mem0 export as records: one `fact` per memory, its history as versions, a deletion as forgetting.

The file is the JSON mem0 gives: a list of memories (`get_all`, the platform's export) or an object
holding them in `results`. Each memory may carry its `history` (the entries mem0's history call
returns: `event` ADD, UPDATE or DELETE, `old_memory`, `new_memory`, times). One child memory per user
(`user:<id>`), else per agent, else per run. Everything mem0 said about a memory, but its text, is kept
under `attributes.mem0`; each version also keeps the history entry it came from as `mem0.event`.
docs/MIGRATE.md has the mapping field by field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from provider.errors import InvalidInputError
from provider.migrate.writer import Item, MigrationSummary, MigrationWriter

OWNERS = ("user_id", "agent_id", "run_id", "app_id")
WRITES = ("ADD", "UPDATE")
TIMES = ("created_at", "updated_at")


def load(path: Path) -> list[Any]:
    """The memories the file holds; a file that is not mem0's JSON is refused whole, naming where."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InvalidInputError(f"{path}: not JSON at line {e.lineno}, column {e.colno}: {e.msg}.") from None
    except (UnicodeDecodeError, RecursionError) as e:
        raise InvalidInputError(f"{path}: not readable as UTF-8 JSON: {e}.") from None
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        return list(data["results"])
    if isinstance(data, list):
        return data
    raise InvalidInputError(f"{path}: expected a list of memories, or an object with a `results` list.")


@dataclass(frozen=True)
class Memory:
    """One mem0 memory, checked: its id, owner, texts oldest first, and whether it was deleted."""

    id: str
    owner: str
    kept: dict[str, Any]
    texts: list[str]
    events: list[dict[str, Any]]
    deleted: bool


def _owner(item: dict[str, Any]) -> str:
    for key in OWNERS:
        value = item.get(key)
        if value is not None and not isinstance(value, str | int):
            raise ValueError(f"{key} is not a string")
        if value not in (None, ""):
            return f"{key.removesuffix('_id')}:{value}"
    return "unowned"


def _history(item: dict[str, Any]) -> list[dict[str, Any]]:
    history = item.get("history") or []
    if not isinstance(history, list) or not all(isinstance(e, dict) for e in history):
        raise ValueError("history is not a list of objects")
    for n, entry in enumerate(history):
        if entry.get("event") not in (*WRITES, "DELETE", "NONE"):
            raise ValueError(f"history[{n}].event is not ADD, UPDATE, DELETE or NONE")
        if entry.get("event") in WRITES and not isinstance(entry.get("new_memory"), str):
            raise ValueError(f"history[{n}] ({entry['event']}) has no new_memory text")
    return history


def checked(item: Any) -> Memory:
    """A memory as the file states it, or ValueError naming what is wrong with it."""
    if not isinstance(item, dict):
        raise ValueError("not an object")
    if not isinstance(item.get("id"), str | int) or item.get("id") == "":
        raise ValueError("it has no id")
    text = item.get("memory")
    if text is not None and not isinstance(text, str):
        raise ValueError("memory is not text")
    if item.get("metadata") is not None and not isinstance(item["metadata"], dict):
        raise ValueError("metadata is not an object")
    for name in TIMES:
        if item.get(name) is not None and not isinstance(item[name], str):
            raise ValueError(f"{name} is not text")
    history = _history(item)
    written = [e for e in history if e.get("event") in WRITES]
    texts, events = [e["new_memory"] for e in written], [_event(e) for e in written]
    if text and (not texts or texts[-1] != text):
        texts, events = [*texts, text], [*events, {"event": "CURRENT"}]
    deleted = any(e.get("event") == "DELETE" or e.get("is_deleted") is True for e in history)
    if not texts or not any(t.strip() for t in texts):
        raise ValueError("it has no text (memory)")
    kept = {k: v for k, v in item.items() if k not in ("memory", "history")}
    return Memory(str(item["id"]), _owner(item), kept, texts, events, deleted)


def _event(entry: dict[str, Any]) -> dict[str, Any]:
    """The history entry a version came from, but the text the version holds."""
    return {k: v for k, v in entry.items() if k != "new_memory"}


class Mem0Migration:
    """Checks each memory, makes the owners' child memories, writes in batches."""

    def __init__(self, writer: MigrationWriter, *, batch_size: int = 256):
        self.writer = writer
        self.batch_size = batch_size

    async def run(self, path: Path) -> MigrationSummary:
        """The whole file: what cannot be read is refused by its index and id, the rest written."""
        memories: list[tuple[int, Memory]] = []
        for index, item in enumerate(load(path)):
            try:
                memories.append((index, checked(item)))
            except ValueError as e:
                self.writer.summary.read += 1
                self.writer.refuse(_named(index, item), f"Cannot be read: {e}.")
        owners: dict[str, str] = {}
        for owner in dict.fromkeys(m.owner for _, m in memories):
            owners[owner] = await self.writer.child(owner, f"mem0 memories of {owner}, migrated")
        items = [self._item(index, memory, owners[memory.owner]) for index, memory in memories]
        for start in range(0, len(items), self.batch_size):
            await self.writer.write(items[start : start + self.batch_size])
        self.writer.report(done=True)
        return self.writer.summary

    def _item(self, index: int, memory: Memory, memory_id: str) -> Item:
        def version(n: int) -> dict[str, Any]:
            return {
                "content": memory.texts[n],
                "attributes": {"mem0": {**memory.kept, **_as_event(memory, n)}},
            }

        return Item(
            name={"item": index, "id": memory.id},
            memory_id=memory_id,
            record_id=self.writer.record_id("memory", memory.id),
            body={"type": "fact", **version(0)},
            revisions=[version(n) for n in range(1, len(memory.texts))],
            forget=memory.deleted,
        )


def _as_event(memory: Memory, n: int) -> dict[str, Any]:
    return {"event": memory.events[n]} if memory.events[n] else {}


def _named(index: int, item: Any) -> dict[str, Any]:
    named: dict[str, Any] = {"item": index}
    if isinstance(item, dict) and isinstance(item.get("id"), str | int):
        named["id"] = item["id"]
    return named
