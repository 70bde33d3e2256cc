"""File bytes in an S3-compatible bucket, content-addressed: the store several instances share.

Keys are `<prefix><aa>/<sha256>`, as the directory store's paths. An upload's address is known only
after its last byte, so its bytes stream as a multipart upload to `<prefix>incoming/<ms>-<random>`
(parts of UHP_S3_PART_BYTES held in memory, hashed on the way) and are copied to their address when
kept; one smaller than a part never leaves memory until it is put at its address directly. A cut-off
upload is aborted; one a dead process left is aborted by the sweeper after an hour.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from provider.config import Settings
from provider.errors import UnavailableError

INCOMING = "incoming/"
ABSENT = frozenset({"404", "NoSuchKey", "NotFound", "NoSuchUpload"})
R = TypeVar("R")


def _absent(error: ClientError) -> bool:
    return str(error.response.get("Error", {}).get("Code", "")) in ABSENT


def _answered(call: Callable[[], R]) -> R:
    """The call's answer; a store out of reach or failing becomes 503, as Neo4j's absence does."""
    try:
        return call()
    except ClientError as e:
        if _absent(e):
            raise FileNotFoundError(str(e)) from e
        raise UnavailableError("The file store refused the operation.") from e
    except BotoCoreError as e:
        raise UnavailableError("The file store cannot be reached right now.") from e


def check_digest(digest: str) -> str:
    """Refuses anything that is not a lower-case SHA-256, so no caller's text becomes a key."""
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise ValueError("not a SHA-256 digest")
    return digest


class S3Reader:
    """An object's body, read a piece at a time (botocore's stream over the HTTP response)."""

    def __init__(self, body: Any):
        self.body = body

    def read(self, size: int, /) -> bytes:
        """Up to `size` bytes; empty at the end."""
        return bytes(_answered(lambda: self.body.read(size)))

    def close(self) -> None:
        """Returns the connection (or drops it when the body was not read to its end)."""
        self.body.close()


@dataclass
class S3StagedBlob:
    """One upload on its way in: a buffer of up to a part, then a multipart upload under incoming/."""

    store: S3BlobStore
    size: int = 0
    hash: Any = field(default_factory=hashlib.sha256)
    buffer: bytearray = field(default_factory=bytearray)
    key: str = ""  # the incoming key, once a part was sent
    upload_id: str = ""  # the open multipart upload, until it is completed or aborted
    parts: list[dict[str, Any]] = field(default_factory=list)
    done: bool = False

    def write(self, data: bytes) -> None:
        """Hashes and buffers; each full part goes out at once, so at most a part is held."""
        self.hash.update(data)
        self.buffer += data
        self.size += len(data)
        while len(self.buffer) >= self.store.part_bytes:
            self._send(bytes(self.buffer[: self.store.part_bytes]))
            del self.buffer[: self.store.part_bytes]

    def _send(self, part: bytes) -> None:
        if not self.upload_id:
            self.key = f"{self.store.prefix}{INCOMING}{int(time.time() * 1000)}-{secrets.token_hex(8)}"
            self.upload_id = str(self.store.call("create_multipart_upload", Key=self.key)["UploadId"])
        number = len(self.parts) + 1
        sent = self.store.call(
            "upload_part", Key=self.key, UploadId=self.upload_id, PartNumber=number, Body=part
        )
        self.parts.append({"PartNumber": number, "ETag": sent["ETag"]})

    def digest(self) -> str:
        """The address so far."""
        return str(self.hash.hexdigest())

    def keep(self) -> str:
        """Idempotent by content: bytes already at their address are not written twice."""
        digest = str(self.hash.hexdigest())
        target = self.store.key_of(digest)
        if not self.key:
            if not self.store.exists(digest):
                self.store.call("put_object", Key=target, Body=bytes(self.buffer))
        else:
            self._complete()
            if not self.store.exists(digest):
                self.store.copy(self.key, target)
            self._remove_incoming()
        self.buffer.clear()
        self.done = True
        return digest

    def _complete(self) -> None:
        if self.buffer or not self.parts:
            self._send(bytes(self.buffer))  # the last part may be smaller than the others
        self.store.call(
            "complete_multipart_upload",
            Key=self.key,
            UploadId=self.upload_id,
            MultipartUpload={"Parts": self.parts},
        )
        self.upload_id = ""

    def _remove_incoming(self) -> None:
        self.store.call("delete_object", Key=self.key)
        self.key = ""

    def discard(self) -> None:
        """Aborts the multipart upload (or removes its completed object); safe after keep, and twice."""
        if self.done:
            return
        self.done = True
        self.buffer.clear()
        # Best effort: what is left behind here (the store away) is the sweeper's after an hour.
        with contextlib.suppress(UnavailableError, FileNotFoundError):
            if self.upload_id:
                self.store.call("abort_multipart_upload", Key=self.key, UploadId=self.upload_id)
            elif self.key:
                self._remove_incoming()


class S3BlobStore:
    """`<prefix><aa>/<sha256>` in one bucket; a reader never sees half an object (S3 puts are whole)."""

    def __init__(self, client: Any, bucket: str, *, prefix: str = "", part_bytes: int = 8 * 1024 * 1024):
        self.client = client
        self.bucket = bucket
        self.prefix = prefix
        self.part_bytes = part_bytes

    @classmethod
    def from_settings(cls, settings: Settings) -> S3BlobStore:
        """A client for UHP_S3_*; empty credentials leave boto3 its own chain (environment, role)."""
        secret = settings.s3.secret_access_key.get_secret_value()
        client = boto3.session.Session().client(
            "s3",
            endpoint_url=settings.s3.endpoint or None,
            region_name=settings.s3.region,
            aws_access_key_id=settings.s3.access_key_id or None,
            aws_secret_access_key=secret or None,
            config=Config(
                # An endpoint of our own (SeaweedFS, MinIO, Ceph, R2) is addressed by path: a virtual
                # host name `<bucket>.<endpoint>` rarely resolves there.
                s3={"addressing_style": "path" if settings.s3.endpoint else "auto"},
                # Checksums only where S3 requires them: several compatible servers reject the
                # trailing checksums boto3 sends by default.
                request_checksum_calculation="when_required",
                response_checksum_validation="when_required",
                # A store that does not answer must not hold a request for long: a connection attempt,
                # a read and botocore's own retries (throttling, connection errors) are all bounded.
                connect_timeout=3,
                read_timeout=30,
                retries={"max_attempts": 3, "mode": "standard"},
            ),
        )
        return cls(client, settings.s3.bucket, prefix=settings.s3.prefix, part_bytes=settings.s3.part_bytes)

    def call(self, operation: str, **params: Any) -> Any:
        """One S3 operation on the bucket, its failures as ours (absent: FileNotFoundError; else 503)."""
        return _answered(lambda: getattr(self.client, operation)(Bucket=self.bucket, **params))

    def pages(self, operation: str) -> list[Any]:
        """Every page of a listing under incoming/ (few: only uploads under way or left behind)."""
        pager = self.client.get_paginator(operation)
        return _answered(lambda: list(pager.paginate(Bucket=self.bucket, Prefix=self.prefix + INCOMING)))

    def key_of(self, digest: str) -> str:
        """Where the bytes with this SHA-256 live."""
        return f"{self.prefix}{check_digest(digest)[:2]}/{digest}"

    def stage(self) -> S3StagedBlob:
        """Nothing is sent until a part is full or the upload is kept."""
        return S3StagedBlob(self)

    def open(self, digest: str) -> S3Reader:
        """The object's body as it streams; FileNotFoundError when absent."""
        return S3Reader(self.call("get_object", Key=self.key_of(digest))["Body"])

    def exists(self, digest: str) -> bool:
        """A HEAD of the object."""
        try:
            self.call("head_object", Key=self.key_of(digest))
        except FileNotFoundError:
            return False
        return True

    def copy(self, source: str, target: str) -> None:
        """A copy inside the store (boto3's managed copy: in parts past its threshold), no bytes here."""
        _answered(lambda: self.client.copy({"Bucket": self.bucket, "Key": source}, self.bucket, target))

    def delete(self, digest: str) -> bool:
        """Removes the object for good (S3's delete says nothing of absence, so a HEAD asks first)."""
        if not self.exists(digest):
            return False
        self.call("delete_object", Key=self.key_of(digest))
        return True

    def sweep_incoming(self, older_than_seconds: float) -> int:
        """Aborts uploads, and removes completed ones not yet copied, older than a bound."""
        cutoff = time.time() - older_than_seconds
        removed = 0
        for upload in self._stale_uploads(cutoff):
            with contextlib.suppress(FileNotFoundError):
                self.call("abort_multipart_upload", **upload)
                removed += 1
        for key in self._stale_objects(cutoff):
            with contextlib.suppress(FileNotFoundError):
                self.call("delete_object", Key=key)
                removed += 1
        return removed

    def _stale_uploads(self, cutoff: float) -> Iterator[dict[str, str]]:
        for page in self.pages("list_multipart_uploads"):
            for upload in page.get("Uploads", []):
                if self._staged_at(upload) < cutoff:
                    yield {"Key": upload["Key"], "UploadId": upload["UploadId"]}

    def _staged_at(self, upload: dict[str, Any]) -> float:
        """When the upload began, by our own clock: its key starts with the stage's milliseconds.

        Some stores (S3Proxy) answer the listing's own time as `Initiated`; that is only the fallback.
        """
        stamp = str(upload["Key"])[len(self.prefix + INCOMING) :].split("-", 1)[0]
        return int(stamp) / 1000 if stamp.isdigit() else float(upload["Initiated"].timestamp())

    def _stale_objects(self, cutoff: float) -> Iterator[str]:
        for page in self.pages("list_objects_v2"):
            for item in page.get("Contents", []):
                if item["LastModified"].timestamp() < cutoff:
                    yield str(item["Key"])
