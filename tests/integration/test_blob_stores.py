"""The file stores themselves, the directory and the S3-compatible one (a real S3Proxy), side by side."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from provider.blobs import BlobStore, DirectoryBlobStore
from provider.blobs.s3 import S3BlobStore
from provider.config import Settings
from provider.errors import UnavailableError
from tests.s3proxy import S3Target

PART = 5 * 1024 * 1024  # S3's smallest part, so a few MiB make a multipart upload


@pytest.fixture
def s3_blobs(s3_target: S3Target) -> S3BlobStore:
    """A store under a prefix of its own, so its incoming/ holds this test's uploads only."""
    settings = Settings(environment="test", **s3_fields(s3_target, prefix=f"store-{os.urandom(4).hex()}/"))
    return S3BlobStore.from_settings(settings)


@pytest.fixture(params=["directory", "s3"])
def blobs(request: pytest.FixtureRequest, tmp_path: Path) -> BlobStore:
    if request.param == "directory":
        return DirectoryBlobStore(tmp_path)
    store: S3BlobStore = request.getfixturevalue("s3_blobs")
    return store


def s3_fields(target: S3Target, prefix: str) -> dict[str, Any]:
    return {
        "file_store": "s3",
        "s3_endpoint": target.endpoint,
        "s3_bucket": target.bucket,
        "s3_prefix": prefix,
        "s3_access_key_id": target.access_key_id,
        "s3_secret_access_key": target.secret_access_key,
        "s3_part_bytes": PART,
    }


def put(blobs: BlobStore, data: bytes, piece: int = 1024 * 1024) -> str:
    staged = blobs.stage()
    for at in range(0, len(data), piece):
        staged.write(data[at : at + piece])
    assert staged.size == len(data)
    return staged.keep()


def read(blobs: BlobStore, digest: str) -> bytes:
    reader = blobs.open(digest)
    try:
        pieces = []
        while piece := reader.read(64 * 1024):
            pieces.append(piece)
        return b"".join(pieces)
    finally:
        reader.close()


def leftovers(blobs: BlobStore) -> list[str]:
    """What is under incoming/: staged files, or S3 objects and multipart uploads."""
    if isinstance(blobs, DirectoryBlobStore):
        return [p.name for p in (blobs.root / "incoming").glob("*")]
    assert isinstance(blobs, S3BlobStore)
    uploads = [u["Key"] for page in blobs.pages("list_multipart_uploads") for u in page.get("Uploads", [])]
    return uploads + [o["Key"] for page in blobs.pages("list_objects_v2") for o in page.get("Contents", [])]


@pytest.mark.parametrize("size", [0, 3, 2 * PART + 123])
def test_bytes_kept_come_back_exactly_at_their_digest(blobs: BlobStore, size: int) -> None:
    data = os.urandom(size)
    digest = put(blobs, data)
    assert digest == hashlib.sha256(data).hexdigest()
    assert blobs.exists(digest) and read(blobs, digest) == data
    assert put(blobs, data) == digest, "the same bytes again are the same address"
    assert leftovers(blobs) == [], "nothing is left under incoming/ once kept"


def test_an_s3_key_is_the_prefix_and_the_digest(s3_blobs: S3BlobStore) -> None:
    digest = put(s3_blobs, b"where am I")
    head = s3_blobs.client.head_object(Bucket=s3_blobs.bucket, Key=f"{s3_blobs.prefix}{digest[:2]}/{digest}")
    assert head["ContentLength"] == len(b"where am I")


def test_a_discarded_upload_leaves_nothing(blobs: BlobStore) -> None:
    staged = blobs.stage()
    staged.write(os.urandom(PART + 1))  # one part sent already: a multipart upload is open
    staged.discard()
    staged.discard()
    assert leftovers(blobs) == []


def test_delete_and_absence(blobs: BlobStore) -> None:
    digest = put(blobs, b"short-lived")
    assert blobs.delete(digest) is True
    assert blobs.delete(digest) is False
    assert not blobs.exists(digest)
    with pytest.raises(FileNotFoundError):
        blobs.open(digest)
    with pytest.raises(ValueError):
        blobs.open("../../etc/passwd")


def test_the_sweep_removes_uploads_a_dead_process_left(blobs: BlobStore) -> None:
    staged = blobs.stage()
    staged.write(os.urandom(PART + 1))  # then the process "dies": neither keep nor discard
    assert leftovers(blobs), "an upload under way is under incoming/"
    assert blobs.sweep_incoming(3600) == 0, "a young upload may still be live"
    assert blobs.sweep_incoming(0) == 1
    assert leftovers(blobs) == []


def test_an_s3_store_out_of_reach_is_unavailable(s3_target: S3Target) -> None:
    closed = S3Target("http://127.0.0.1:9", "k", "s", s3_target.bucket)
    store = S3BlobStore.from_settings(Settings(environment="test", **s3_fields(closed, prefix="")))
    with pytest.raises(UnavailableError):
        store.exists("0" * 64)
