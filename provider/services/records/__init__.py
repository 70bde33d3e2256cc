"""Records: versioned content and the references between them.

Also the files they name, snapshots, erase, re-embedding, and writes that arrive twice
(idempotency). Bulk import reads its file at the CLI's edge (provider/cli_import.py).
"""

from provider.services.records.content import ContentService
from provider.services.records.erase import EraseService
from provider.services.records.files import FileQuota, FileService
from provider.services.records.idempotency import IdempotencyService
from provider.services.records.reembed import Reembedder
from provider.services.records.references import ReferenceResolver
from provider.services.records.service import RecordService
from provider.services.records.snapshots import SnapshotService

__all__ = [
    "ContentService",
    "EraseService",
    "FileQuota",
    "FileService",
    "IdempotencyService",
    "RecordService",
    "Reembedder",
    "ReferenceResolver",
    "SnapshotService",
]
