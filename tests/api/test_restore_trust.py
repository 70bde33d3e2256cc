"""Whose vectors a restore keeps (docs/EXPORT.md "Whose vectors are kept"): a signed archive's only.

A carried vector ranks its record, so an archive whose vectors were taken on its sender's word could
rank a spam record for any question. Three apps share the suite's Neo4j and differ by archive key:
`keyed` signs with KEY and trusts it, `elsewhere` signs with a key of its own, and the suite's
`client` has none. Each test writes a few records through `keyed`, exports them, deletes them so
their ids are free, and restores the archive (as made, or changed as an attacker would) through
`keyed`; what was stored is read back from a fresh export.
"""

from __future__ import annotations

import json
import math
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY

from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from provider.services.archive.format import version_of
from provider.services.records.attributes import words_of
from tests.api.export_support import (
    carried,
    exported,
    keyed_app,
    members,
    record_entries,
    restore,
    rewritten,
    sealed,
)
from tests.api.records_support import Lab, assert_error, ok
from tests.conftest import Member

KEY = secrets.token_urlsafe(32)


@pytest.fixture(scope="module")
def keyed(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    with keyed_app(settings, embedder, KEY) as client:
        yield client


@pytest.fixture(scope="module")
def elsewhere(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    with keyed_app(settings, embedder, secrets.token_urlsafe(32)) as client:
        yield client


@pytest.fixture
def lab(keyed: TestClient) -> Iterator[Lab]:
    tracker = Lab(keyed)
    yield tracker
    tracker.cleanup()


@dataclass
class Small:
    """A root memory of three records, gone from the store, and its archive as `keyed` signed it."""

    root: str
    terms: str  # a record a question about payment terms should find
    spam: str  # a record it should not
    archive: bytes


def small(lab: Lab, alice: Member, exporter: TestClient | None = None) -> Small:
    """Written through `lab`, exported through `exporter` (`lab`'s app unless given)."""
    root = lab.memory(alice)
    terms = lab.remember(alice, root, content="Harlow Mills pays its invoices net thirty.")["id"]
    spam = lab.remember(alice, root, content="Cheap watches, free shipping, click here now!")["id"]
    lab.remember(alice, root, content="The warehouse is on Quay Street.")
    archive = exported(Lab(exporter or lab.client), alice, root)
    ok(lab.client.delete(f"/v1/memories/{root}", headers=alice.headers))
    return Small(root, terms, spam, archive)


def spam_as_terms(tree: Small) -> Callable[[str, bytes], bytes]:
    """The attack: the spam record carries the payment record's vector, every word left as it was."""
    entries = record_entries(tree.archive)
    stolen = entries[tree.terms]["vectors"]["float32"]

    def change(name: str, data: bytes) -> bytes:
        if not name.startswith("records/"):
            return data
        lines = [json.loads(line) for line in data.splitlines()]
        for entry in lines:
            if entry["id"] == tree.spam:
                entry["vectors"]["float32"] = stolen
        return b"".join(json.dumps(e).encode() + b"\n" for e in lines)

    return change


def embedded_so_far() -> float:
    return REGISTRY.get_sample_value("uhp_embedded_texts_total") or 0.0


def restored(
    lab: Lab, alice: Member, archive: bytes, query: str = "", via: TestClient | None = None
) -> tuple[dict[str, Any], int]:
    """The answer of a restore through `via` (`lab`'s app unless given) below a new memory, and how
    many texts the model embedded meanwhile."""
    target = lab.memory(alice)
    before = embedded_so_far()
    headers = {**alice.headers, "Content-Type": "application/x-tar"}
    url = f"/v1/memories/{target}/restore{query}"
    answer = ok((via or lab.client).post(url, content=archive, headers=headers))
    return answer, int(embedded_so_far() - before)


def stored(lab: Lab, alice: Member, tree: Small) -> dict[str, list[float]]:
    """Each restored record's vector as the store holds it, read from a new export."""
    return {r: carried(e) for r, e in record_entries(exported(lab, alice, tree.root)).items()}


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def own_vector(embedder: OnnxEmbedder, tree: Small, record_id: str) -> list[float]:
    """What the model makes of the record's own words."""
    entry = record_entries(tree.archive)[record_id]
    return embedder.embed_sync([words_of(version_of(entry["versions"][-1]))])[0]


def test_an_archive_signed_with_this_deployment_s_key_keeps_its_vectors(lab: Lab, alice: Member) -> None:
    tree = small(lab, alice)
    assert json.loads(members(tree.archive)["manifest.json"])["signature"].startswith("hmac-sha256:")
    answer, embedded = restored(lab, alice, tree.archive)
    assert (answer["vectors"], answer["vectors_reason"], embedded) == ("kept", None, 0)
    entries = record_entries(tree.archive)
    assert stored(lab, alice, tree) == {r: carried(e) for r, e in entries.items()}


def test_a_signature_under_this_key_is_what_keeps_a_vector_even_one_unlike_its_words(
    lab: Lab, alice: Member
) -> None:
    """A deployment holding the key is trusted whole: the key, not the words, decides."""
    tree = small(lab, alice)
    answer, embedded = restored(lab, alice, sealed(rewritten(tree.archive, spam_as_terms(tree)), KEY))
    assert (answer["vectors"], embedded) == ("kept", 0)
    assert stored(lab, alice, tree)[tree.spam] == carried(record_entries(tree.archive)[tree.terms])


def test_a_vector_swapped_into_a_signed_archive_is_embedded_again(
    lab: Lab, alice: Member, embedder: OnnxEmbedder
) -> None:
    tree = small(lab, alice)
    # The member checksums are made anew so the archive is whole; the signature is the exporter's.
    forged = rewritten(tree.archive, spam_as_terms(tree))
    answer, embedded = restored(lab, alice, forged)
    assert (answer["vectors"], answer["vectors_reason"]) == ("embedded", "signature_mismatch")
    assert embedded == answer["created"]["versions"] == 3
    spam = stored(lab, alice, tree)[tree.spam]
    assert cosine(spam, own_vector(embedder, tree, tree.spam)) > 0.999
    assert cosine(spam, carried(record_entries(tree.archive)[tree.terms])) < 0.9


def test_a_changed_member_of_a_signed_archive_still_fails_its_checksum(lab: Lab, alice: Member) -> None:
    tree = small(lab, alice)
    broken = tree.archive.replace(b"Cheap watches", b"Dear watches", 1)
    assert_error(restore(lab, alice, lab.memory(alice), broken), 422, "memory_invalid")


def test_an_unsigned_archive_is_embedded_again(lab: Lab, alice: Member, client: TestClient) -> None:
    tree = small(lab, alice, exporter=client)  # the suite's app has no key, so signs nothing
    assert "signature" not in json.loads(members(tree.archive)["manifest.json"])
    answer, embedded = restored(lab, alice, tree.archive)
    assert (answer["vectors"], answer["vectors_reason"], embedded) == ("embedded", "unsigned", 3)


def test_an_archive_signed_with_another_key_is_embedded_again(
    lab: Lab, alice: Member, elsewhere: TestClient
) -> None:
    tree = small(lab, alice, exporter=elsewhere)
    assert "signature" in json.loads(members(tree.archive)["manifest.json"])
    answer, embedded = restored(lab, alice, tree.archive)
    assert (answer["vectors"], answer["vectors_reason"], embedded) == ("embedded", "signature_mismatch", 3)


def test_a_deployment_without_a_key_embeds_every_archive(lab: Lab, alice: Member, client: TestClient) -> None:
    tree = small(lab, alice)
    answer, embedded = restored(lab, alice, tree.archive, via=client)
    assert (answer["vectors"], answer["vectors_reason"], embedded) == ("embedded", "no_key", 3)


def other_model(name: str, data: bytes) -> bytes:
    """Records whose vectors name a model this deployment does not run."""
    if not name.startswith("records/"):
        return data
    entries = [json.loads(line) for line in data.splitlines()]
    for entry in entries:
        entry["vectors"]["model"] = "some-other-model"
    return b"".join(json.dumps(e).encode() + b"\n" for e in entries)


def without_vectors(name: str, data: bytes) -> bytes:
    """Records as an archive without vectors holds them."""
    if not name.startswith("records/"):
        return data
    entries = [json.loads(line) for line in data.splitlines()]
    return b"".join(
        json.dumps({k: v for k, v in e.items() if k != "vectors"}).encode() + b"\n" for e in entries
    )


@pytest.mark.parametrize(
    ("change", "query", "reason"),
    [
        (other_model, "", "model_differs"),
        (without_vectors, "", "model_differs"),
        (lambda name, data: data, "?embed=true", "asked"),
    ],
    ids=["another-model", "no-vectors", "embed-asked"],
)
def test_a_signed_archive_is_embedded_for_another_model_none_or_when_asked(
    lab: Lab, alice: Member, change: Callable[[str, bytes], bytes], query: str, reason: str
) -> None:
    tree = small(lab, alice)
    answer, embedded = restored(lab, alice, sealed(rewritten(tree.archive, change), KEY), query)
    assert (answer["vectors"], answer["vectors_reason"], embedded) == ("embedded", reason, 3)
