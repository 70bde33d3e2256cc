"""The archive's signature (docs/EXPORT.md "Whose vectors are kept"): what it covers and what it refuses."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from provider.services.archive.format import Manifest, manifest_of
from provider.services.archive.signature import distrust, seal

KEY = b"a key of at least thirty-two characters"


def signed() -> Manifest:
    manifest = Manifest(root="hmem_root", exported_at=1_700_000_000_000, exported_by="member:alice")
    manifest.add("records/000001.jsonl", b'{"id":"hrec_1"}\n')
    manifest.signature = seal(manifest, KEY)
    return manifest


def test_a_manifest_read_back_keeps_its_signature_whatever_its_spacing() -> None:
    raw = signed().as_json()
    assert distrust(manifest_of(raw), KEY) is None
    assert distrust(manifest_of(json.dumps(json.loads(raw)).encode()), KEY) is None


@pytest.mark.parametrize(
    "change",
    [
        lambda body: body["members"]["records/000001.jsonl"].update(sha256="0" * 64),
        lambda body: body["counts"].update(records=7),
        lambda body: body.update(exported_by="member:mallory"),
        lambda body: body.update(signature=body["signature"][:-1] + "0"),
    ],
    ids=["a-member-checksum", "a-count", "the-exporter", "the-signature"],
)
def test_any_change_to_the_manifest_breaks_the_signature(change: Callable[[dict[str, Any]], None]) -> None:
    body = json.loads(signed().as_json())
    change(body)
    assert distrust(manifest_of(json.dumps(body).encode()), KEY) == "signature_mismatch"


def test_no_key_no_signature_or_another_key_is_not_trusted() -> None:
    manifest = manifest_of(signed().as_json())
    assert distrust(manifest, None) == "no_key"
    assert distrust(manifest, b"another key of thirty-two characters") == "signature_mismatch"
    manifest.signature = None
    assert distrust(manifest, KEY) == "unsigned"
    assert "signature" not in json.loads(manifest.as_json())
