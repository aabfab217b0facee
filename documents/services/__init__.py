"""Writes: every change to collections, documents and results goes through these functions.

One module per concern; this package exports what views, tasks and commands call.
"""

from documents.services.collections import (
    archive_share,
    archive_unshare,
    collection_archives_set,
    collection_create,
    collection_recheck,
    collection_update,
)
from documents.services.deletion import (
    collection_delete,
    collection_purge,
    collections_delete_resume,
    document_delete,
)
from documents.services.errors import (
    CollectionError,
    ImportRefused,
    TemplateError,
    UploadError,
    VerdictError,
)
from documents.services.pipeline import analysis_fields, document_process
from documents.services.requeue import (
    document_enqueue,
    document_recheck,
    documents_reanalyze,
    documents_resume,
)
from documents.services.uploads import (
    BatchUpload,
    collection_open,
    document_template_set,
    document_upload,
    document_upload_batch,
    file_accepted,
    file_name,
    is_batch,
    size_allowed,
)
from documents.services.verdicts import verdict_record

__all__ = [
    "BatchUpload",
    "CollectionError",
    "ImportRefused",
    "TemplateError",
    "UploadError",
    "VerdictError",
    "analysis_fields",
    "archive_share",
    "archive_unshare",
    "collection_archives_set",
    "collection_create",
    "collection_delete",
    "collection_open",
    "collection_purge",
    "collection_recheck",
    "collection_update",
    "collections_delete_resume",
    "document_delete",
    "document_enqueue",
    "document_process",
    "document_recheck",
    "document_template_set",
    "document_upload",
    "document_upload_batch",
    "documents_reanalyze",
    "documents_resume",
    "file_accepted",
    "file_name",
    "is_batch",
    "size_allowed",
    "verdict_record",
]
