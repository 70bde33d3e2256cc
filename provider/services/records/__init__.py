"""Records: versioned content and the references between them.

Also the files they name, snapshots, erase, and the writes that arrive in bulk (import,
re-embedding) or twice (idempotency).
"""

from provider.services.records.bulk_import import BulkImporter
from provider.services.records.erase import EraseService
from provider.services.records.files import FileQuota, FileService
from provider.services.records.idempotency import IdempotencyService
from provider.services.records.parts import ContentService
from provider.services.records.reembed import Reembedder
from provider.services.records.references import ReferenceResolver
from provider.services.records.service import RecordService
from provider.services.records.snapshots import SnapshotService

__all__ = [
    "BulkImporter",
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
