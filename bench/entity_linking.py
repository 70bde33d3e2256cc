"""Entity linking and type checks, measured: what observe's name matching and a person's schema cost.

Run from the repository root: `python -m bench.entity_linking [--locomo PATH]`. Three tables:

1. matching cost per episode (60 words) against 100, 1,000 and 5,000 known people, for the matcher
   observe used before (one regular expression per name, each run over every episode) and the one it
   uses now (`NameMatcher`: an index from each name's first word);
2. links made on real conversations (LoCoMo's development split, read from `--locomo`, never
   committed) to people named by its speakers and by names that are also common words (Joy, Will,
   Hope, Art, ...), ignoring case entirely (the rule before) and with the one-word-capital rule;
3. checking a person's attributes against `x.person`'s schema: in process, and the round trip to the
   worker processes the service uses (small and largest-legal bodies).

Writes bench/results/entity_linking.json. Pure CPU: no Neo4j, no model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import string
import time
import unicodedata
from functools import partial
from pathlib import Path
from typing import Any

from provider.models import NamedRecord
from provider.services.records import attributes
from provider.services.types.names import NameMatcher

RESULTS = Path(__file__).resolve().parent / "results" / "entity_linking.json"
DEFAULT_LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo-dev.json"
SIZES = (100, 1000, 5000)
NAMES = ["Caroline", "Melanie", "Mel", "Jon", "Gina", "John", "Maria", "Max"]
COMMON = ["Joy", "Will", "Hope", "Art", "Grace", "May", "Rose", "Dance"]
SMALL = {"name": "Ada Lovelace", "aliases": ["Ada"], "emails": ["ada@example.org"]}
LARGE = {
    "name": "Ada Lovelace",
    "aliases": [f"alias {i}" for i in range(64)],
    "emails": [f"ada{i}@example.org" for i in range(16)],
    "phones": [f"+44 20 7946 {i:04d}" for i in range(16)],
    "role": "r" * 300,
}


class RegexMatcher:
    """The matcher observe used before: one case-insensitive whole-word pattern per name."""

    def __init__(self, entities: list[dict[str, Any]]):
        self.patterns = [
            (e, re.compile(r"(?<!\w)" + re.escape(_fold(n)) + r"(?!\w)")) for e in entities for n in _names(e)
        ]

    def mentioned(self, text: str) -> list[dict[str, Any]]:
        haystack, found = _fold(text), {}
        for entity, pattern in self.patterns:
            if entity["id"] not in found and pattern.search(haystack):
                found[entity["id"]] = entity
        return list(found.values())


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _names(entity: dict[str, Any]) -> list[str]:
    return [entity["name"], *entity.get("aliases", [])]


def people(count: int, words: list[str]) -> list[dict[str, Any]]:
    pick = random.Random(count)
    return [
        {
            "id": f"p{i}",
            "type": "x.person",
            "name": f"{pick.choice(words).title()} {pick.choice(words).title()}",
            "aliases": [pick.choice(words).title()],
        }
        for i in range(count)
    ]


def named(entities: list[dict[str, Any]]) -> list[NamedRecord]:
    """The bench's people as the service's matcher reads them."""
    return [
        NamedRecord(
            id=str(e.get("id", e["name"])),
            type=str(e.get("type", "x.person")),
            title=None,
            text=None,
            name=e["name"],
            aliases=e.get("aliases"),
            emails=e.get("emails"),
            domains=e.get("domains"),
        )
        for e in entities
    ]


def matching_cost() -> list[dict[str, Any]]:
    pick = random.Random(7)
    words = ["".join(pick.choices(string.ascii_lowercase, k=pick.randint(3, 9))) for _ in range(5000)]
    # Capitalised, so the two rules agree on these one-word aliases and the links can be compared.
    episodes = [" ".join(w.title() for w in pick.choices(words, k=60)) for _ in range(100)]
    rows = []
    for size in SIZES:
        known = people(size, words)
        row: dict[str, Any] = {"entities": size}
        records = named(known)  # as the store hands them to the service
        builders: list[tuple[str, Any]] = [
            ("regex_per_name", partial(RegexMatcher, known)),
            ("first_word_index", partial(NameMatcher, records)),
        ]
        for label, build in builders:
            started = time.perf_counter()
            matcher: Any = build()
            built = time.perf_counter()
            links = sum(len(matcher.mentioned(text)) for text in episodes)
            done = time.perf_counter()
            row[label] = {
                "build_ms": round((built - started) * 1000, 1),
                "ms_per_episode": round((done - built) * 1000 / len(episodes), 3),
                "links": links,
            }
        rows.append(row)
    return rows


def turns(path: Path) -> list[str]:
    conversations = json.loads(path.read_text(encoding="utf-8"))
    return [
        turn["text"]
        for c in conversations
        for key, session in c["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
    ]


def linking_on_locomo(path: Path) -> list[dict[str, Any]]:
    texts = turns(path)
    known = [{"id": name, "type": "x.person", "name": name} for name in NAMES + COMMON]
    ignoring_case, capital = RegexMatcher(known), NameMatcher(named(known))
    rows = []
    for entity in known:
        before = sum(1 for t in texts if any(e["id"] == entity["id"] for e in ignoring_case.mentioned(t)))
        after = sum(1 for t in texts if any(e.id == entity["id"] for e in capital.mentioned(t)))
        rows.append({"name": entity["name"], "common_word": entity["name"] in COMMON,
                     "ignoring_case": before, "capital_kept": after})  # fmt: skip
    return rows


def check_cost() -> dict[str, float]:
    out: dict[str, float] = {}
    for label, body in (("small", SMALL), ("large", LARGE)):
        started = time.perf_counter()
        for _ in range(500):
            attributes.check("x.person", body)
        out[f"in_process_{label}_ms"] = round((time.perf_counter() - started) * 2, 3)

    async def round_trips() -> None:
        await attributes.checked("x.person", SMALL)  # starts the workers
        for label, body in (("small", SMALL), ("large", LARGE)):
            started = time.perf_counter()
            for _ in range(500):
                await attributes.checked("x.person", body)
            out[f"worker_{label}_ms"] = round((time.perf_counter() - started) * 2, 3)

    asyncio.run(round_trips())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO, help="LoCoMo JSON (not committed)")
    args = parser.parse_args()
    cost = matching_cost()
    print(f"{'entities':>8} | {'regex per name ms/ep':>20} | {'first-word index ms/ep':>22} | links (both)")
    for row in cost:
        old, new = row["regex_per_name"], row["first_word_index"]
        print(f"{row['entities']:>8} | {old['ms_per_episode']:>20} | {new['ms_per_episode']:>22} | "
              f"{old['links']} / {new['links']}")  # fmt: skip
    locomo = linking_on_locomo(args.locomo) if args.locomo.exists() else []
    if locomo:
        print(f"\nLoCoMo turns ({args.locomo.name}): episodes linked per person name")
        print(f"{'name':>10} | {'ignoring case':>13} | {'capital kept':>12}")
        for row in locomo:
            marker = " (common word)" if row["common_word"] else ""
            print(f"{row['name']:>10} | {row['ignoring_case']:>13} | {row['capital_kept']:>12}{marker}")
    checks = check_cost()
    print("\nx.person attribute check, per write: " + ", ".join(f"{k} {v}" for k, v in checks.items()))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"matching": cost, "locomo": locomo, "checks": checks}, indent=2) + "\n")


if __name__ == "__main__":
    main()
