"""A synthetic but realistic corpus for the recall benchmarks, and a loader that writes it like the service.

Sentences come from a dozen templates over a few hundred people, companies, teams, places, objects,
verbs and times, so texts vary the way a team's notes do. Vectors come from the real model and are
cached in bench/results/ as .npy (keyed by the texts), so a second run skips the slow part. The loader
writes Record and RecordVersion nodes with `provider.store.records.record_properties` and
`version_properties`, the maps the service itself writes, in UNWIND batches; every id it makes
starts with one run prefix, and `remove` deletes exactly those.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from neo4j import AsyncDriver

from provider.embeddings import OnnxEmbedder
from provider.models import RecordVersion, Writer
from provider.store.records import record_properties, version_properties

RESULTS = Path(__file__).resolve().parent / "results"
MODEL = "all-MiniLM-L6-v2"
WRITE_BATCH = 1000

PEOPLE = (
    "Ines Varga", "Marta Silva", "Priya Nair", "Tomás Ortega", "Dr. Okafor", "Lena Fischer", "Yuki Tanaka",
    "Omar Haddad", "Sofia Rossi", "Jonas Berg", "Amara Diallo", "Chen Wei", "Rafael Costa", "Hanna Kowalski",
    "Noah Levi", "Elif Yilmaz", "Kwame Mensah", "Ana Petrova", "Lucas Moreau", "Freya Lund", "Mateo Ruiz",
    "Aisha Khan", "Pedro Alves", "Greta Novak", "Samir Patel", "Julia Weber", "Diego Herrera", "Mina Park",
    "Oskar Nilsson", "Zara Ahmed", "Viktor Horvat", "Leila Haddad", "Tariq Aziz", "Emma Clarke", "Ravi Iyer",
)  # fmt: skip
COMPANIES = (
    "Quillon Freight", "Harlow Mills", "Vellacourt", "Acme Logistics", "Brightwater Foods",
    "Northwind Retail", "Copperleaf Energy", "Stonebridge Bank", "Bluefin Shipping", "Meridian Health",
    "Oakridge Farms",
    "Pinnacle Textiles", "Silverline Telecom", "Redwood Pharma", "Ironclad Security", "Lumen Studios",
    "Crescent Hotels", "Granite Works", "Harbor Insurance", "Juniper Software", "Kestrel Airlines",
    "Larkspur Dairy", "Mosaic Interiors", "Nimbus Cloud", "Orchid Cosmetics", "Peregrine Motors",
    "Quarry Stone Co", "Riverside Clinic", "Saffron Kitchens", "Tidewater Ports", "Umber Coffee Roasters",
    "Verdant Gardens", "Willow Schools", "Zephyr Wind Farms", "Atlas Printing", "Beacon Media",
)  # fmt: skip
TEAMS = (
    "finance", "support", "sales", "legal", "procurement", "the warehouse", "engineering", "marketing",
    "the night shift", "customer success", "operations", "security", "the data team", "HR", "facilities",
)  # fmt: skip
PLACES = (
    "Lisbon", "Rotterdam", "Porto", "Hamburg", "Kraków", "Lyon", "Seville", "Gdańsk", "Turin", "Antwerp",
    "Bilbao", "Tallinn", "Dublin", "Valencia", "Gothenburg", "Marseille", "Brno", "Leeds", "Bergen", "Riga",
)  # fmt: skip
OBJECTS = (
    "contract", "invoice", "purchase order", "delivery schedule", "price list", "service agreement",
    "refund request", "support ticket", "shipping label", "quarterly report", "onboarding checklist",
    "insurance policy", "maintenance plan", "budget forecast", "security audit", "data export",
    "product demo", "license renewal", "warehouse inventory", "payroll run", "tax filing", "carrier quote",
    "customer survey", "incident report", "release notes", "training session", "vendor assessment",
    "credit note", "loyalty programme", "sample shipment",
)  # fmt: skip
VERBS = (
    "signed", "cancelled", "renewed", "disputed", "approved", "postponed", "requested", "escalated",
    "reviewed", "rejected", "updated", "delivered", "paid", "forwarded", "archived", "questioned",
    "finalised", "drafted", "resubmitted", "audited",
)  # fmt: skip
WHENS = (
    "every March", "on the first Monday of the month", "before the end of the quarter", "yesterday",
    "last week", "within thirty days", "after the audit", "at 9am Lisbon time", "twice a year",
    "since January", "by Friday", "during the holidays", "next Tuesday", "each spring", "overnight",
    "at the end of every month", "in early October", "after the board meeting", "every other week",
    "before the summer break",
)  # fmt: skip
CHANNELS = (
    "email",
    "phone",
    "a weekly call",
    "the customer portal",
    "chat",
    "printed letters",
    "video calls",
)
FOODS = ("peanuts", "gluten", "shellfish", "dairy", "sesame", "strawberries", "eggs", "soy")
PREFERENCES = (
    "prefers short answers", "wants everything in writing", "likes to be called in the morning",
    "hates surprise invoices", "expects a reply within a day", "asks for two quotes before buying",
    "reads only the summary", "wants the figures in euros", "prefers to meet in person",
)  # fmt: skip
STATES = (
    "is running late", "was damaged in transit", "is waiting for approval", "needs a second signature",
    "was lost and re-sent", "is on hold until payment", "passed inspection", "is missing two pages",
)  # fmt: skip
TASKS = (
    ("issue a credit note", "check the original invoice", "ask finance to approve it"),
    ("reset a customer password", "verify the caller's identity", "send the reset link by email"),
    ("book a carrier", "compare three quotes", "confirm the pickup window with the warehouse"),
    ("close the month", "reconcile the bank statements", "lock the ledger"),
    ("onboard a new supplier", "collect the tax documents", "run the vendor assessment"),
    ("escalate an outage", "page the on-call engineer", "post an update on the status page"),
    ("ship a sample", "print the shipping label", "log the tracking number in the account"),
)
TAILS = (
    "", "", "", " (confirmed by phone)", ", which is unusual", " after two reminders",
    " per the signed contract", " and expects a reply", ", according to the call notes", " so plan ahead",
    " before anyone else noticed",
    " while the usual contact was away", " at short notice", " without telling procurement",
)  # fmt: skip
MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
)  # fmt: skip
TEMPLATES = (
    "{person} from {team} {verb} the {object} for {company} {when}{tail}.",
    "{company} {verb} its {object} {when}, according to {person}{tail}.",
    "{company} prefers {channel} for anything about the {object}; {person} confirmed this {when}.",
    "{person} {preference}; keep that in mind when writing to {company} about the {object}.",
    "The {object} #{number} for {company} {state}{tail}.",
    "Our {place} office has handled the {object} for {company} since {month} {year}.",
    "{person} is allergic to {food}, so avoid it at the {place} offsite in {month}.",
    "To {task} for {company}, first {step1}, then {step2}; ask {person} if unsure.",
    "{company} moved its {object} to the {place} warehouse {when}{tail}.",
    "{team} asked {person} to review the {object} from {company} {when}{tail}.",
    "{company}'s {object} of €{amount} is due {when}; {person} owns it.",
    "{person} met {company} in {place} and agreed on a new {object} worth €{amount}.",
    "Ticket {number}: {company} reported that the {object} {state}; {person} from {team} is on it.",
)
QUESTIONS = (
    "When does {company} renew its {object}?",
    "Who owns the {object} for {company}?",
    "How does {company} like to be contacted?",
    "What is {person} allergic to?",
    "Which office deals with {company}?",
    "What happened to the {object} from {company}?",
    "How do I {task}?",
    "What does {person} prefer when we write to them?",
    "Where did {company} move its {object}?",
    "Who reviewed the {object} for {company}?",
)
KINDS = ("fact", "note", "procedure", "episode")
KIND_WEIGHTS = (0.70, 0.20, 0.07, 0.03)


def _slots(rng: random.Random) -> dict[str, str]:
    task, step1, step2 = rng.choice(TASKS)
    return {
        "person": rng.choice(PEOPLE),
        "company": rng.choice(COMPANIES),
        "team": rng.choice(TEAMS),
        "place": rng.choice(PLACES),
        "object": rng.choice(OBJECTS),
        "verb": rng.choice(VERBS),
        "when": rng.choice(WHENS),
        "channel": rng.choice(CHANNELS),
        "food": rng.choice(FOODS),
        "preference": rng.choice(PREFERENCES),
        "state": rng.choice(STATES),
        "task": task,
        "step1": step1,
        "step2": step2,
        "tail": rng.choice(TAILS),
        "month": rng.choice(MONTHS),
        "year": str(rng.randint(2015, 2026)),
        "number": str(rng.randint(1000, 99999)),
        "amount": f"{rng.randint(2, 950) * 100:,}",
    }


def slug(company: str) -> str:
    """The account attribute a record about a company carries."""
    return company.lower().replace(" ", "-").replace("'", "")


@dataclass(frozen=True)
class Item:
    """One generated record: its words, type and attributes."""

    text: str
    type: str
    attributes: dict[str, Any]


def items(count: int, seed: int = 7) -> list[Item]:
    """`count` records, seeded so every run writes (and embeds) the same texts."""
    rng = random.Random(seed)
    made = []
    for _ in range(count):
        slots = _slots(rng)
        text = rng.choice(TEMPLATES).format(**slots)
        attributes = {"account": slug(slots["company"]), "team": slots["team"], "priority": rng.randint(1, 5)}
        made.append(Item(text=text, type=rng.choices(KINDS, KIND_WEIGHTS)[0], attributes=attributes))
    return made


def questions(count: int, seed: int = 11) -> list[tuple[str, dict[str, str]]]:
    """Questions in the corpus's vocabulary, with the slots they were built from."""
    rng = random.Random(seed)
    made = []
    for _ in range(count):
        slots = _slots(rng)
        made.append((rng.choice(QUESTIONS).format(**slots), slots))
    return made


def vectors(texts: Sequence[str], embedder: OnnxEmbedder, batch: int = 256) -> np.ndarray:
    """Unit vectors for the texts, float32, from the cache when these exact texts were embedded before."""
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    cache = RESULTS / f"vectors-{MODEL}-{len(texts)}-{digest}.npy"
    if cache.is_file():
        cached: np.ndarray = np.load(cache)
        return cached
    began = time.perf_counter()
    rows: list[list[float]] = []
    for start in range(0, len(texts), batch):
        rows += embedder.embed_sync(texts[start : start + batch])
        if start and start % (batch * 40) == 0:
            rate = len(rows) / (time.perf_counter() - began)
            print(f"  embedded {len(rows):,}/{len(texts):,} ({rate:.0f}/s)", flush=True)
    matrix = np.asarray(rows, dtype=np.float32)
    RESULTS.mkdir(parents=True, exist_ok=True)
    np.save(cache, matrix)
    return matrix


WRITE_MEMORIES = """
UNWIND $rows AS row
CREATE (:Memory {id: row.id, name: row.name, description: row.description, restricted: false,
                 provider: 'neo4j', created_at: $now, updated_at: $now})
"""
WRITE_RECORDS = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.record.memory_id})
CREATE (r:Record)-[:IN]->(m)
SET r = row.record
CREATE (v:RecordVersion)-[:VERSION_OF]->(r)
SET v = row.version
"""
REMOVE_RECORDS = """
MATCH (r:Record) WHERE r.id STARTS WITH $prefix
WITH r LIMIT 2000
OPTIONAL MATCH (v:RecordVersion)-[:VERSION_OF]->(r)
DETACH DELETE v, r
RETURN count(*) AS removed
"""
REMOVE_MEMORIES = """
MATCH (m:Memory) WHERE m.id STARTS WITH $prefix
DETACH DELETE m
RETURN count(*) AS removed
"""


def record_maps(
    item: Item, record_id: str, memory_id: str, vector: list[float], writer: Writer, now: int
) -> dict[str, Any]:
    """The Record and RecordVersion property maps the service would write for this item."""
    version = RecordVersion(
        record_id=record_id,
        memory_id=memory_id,
        type=item.type,
        title=None,
        content=[{"type": "text", "text": item.text}],
        attributes=item.attributes,
        references=[],
        version=1,
        status="active",
        supersedes=None,
        valid_from=None,
        valid_to=None,
        written_at=now,
        invalidated_at=None,
        superseded_at=None,
        forgotten_at=None,
        writer=writer,
    )
    return {
        "record": record_properties(version, item.text, {"embedding": vector}, now),
        "version": version_properties(version, item.text, {"embedding": vector}),
    }


async def create_memories(driver: AsyncDriver, rows: list[dict[str, str]]) -> None:
    """Bare Memory nodes (for benches that call the store directly, not the API)."""
    await driver.execute_query(WRITE_MEMORIES, rows=rows, now=int(time.time() * 1000))


async def write_records(
    driver: AsyncDriver,
    corpus: Sequence[Item],
    matrix: np.ndarray,
    placement: Sequence[tuple[str, str]],
    writer: Writer,
) -> float:
    """Writes corpus[i] as record placement[i] = (record_id, memory_id); returns records per second."""
    began = time.perf_counter()
    now = int(time.time() * 1000)
    for start in range(0, len(placement), WRITE_BATCH):
        rows = [
            record_maps(corpus[i], record_id, memory_id, matrix[i].tolist(), writer, now + i)
            for i, (record_id, memory_id) in enumerate(placement[start : start + WRITE_BATCH], start=start)
        ]
        await driver.execute_query(WRITE_RECORDS, rows=rows)
        done = start + len(rows)
        if done % (WRITE_BATCH * 20) == 0:
            print(f"  wrote {done:,}/{len(placement):,} records", flush=True)
    return len(placement) / (time.perf_counter() - began)


async def remove(driver: AsyncDriver, record_prefix: str, memory_prefix: str | None) -> int:
    """Deletes the records (with their versions) and, when given, the memories this run made."""
    removed = 0
    while True:
        records, _, _ = await driver.execute_query(REMOVE_RECORDS, prefix=record_prefix)
        if not records or records[0]["removed"] == 0:
            break
        removed += int(records[0]["removed"])
    if memory_prefix:
        await driver.execute_query(REMOVE_MEMORIES, prefix=memory_prefix)
    return removed
