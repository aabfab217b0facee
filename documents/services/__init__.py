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
    collections_delete_stale_requeue,
    document_delete,
)
from documents.services.errors import (
    CollectionError,
    DocumentError,
    ImportRefused,
    TemplateError,
    UploadError,
    VerdictError,
)
from documents.services.idempotency import Answer, upload_keys_expire, upload_once
from documents.services.pipeline import analysis_fields, document_process
from documents.services.requeue import (
    document_enqueue,
    document_recheck,
    documents_reanalyze,
    documents_resume,
    documents_stale_requeue,
)
from documents.services.scoring import (
    collection_exclusions_set,
    collection_similarity_refresh,
    document_submitted_set,
)
from documents.services.uploads import (
    BatchUpload,
    FilesUpload,
    collection_open,
    document_template_set,
    document_upload,
    document_upload_batch,
    document_upload_files,
    file_accepted,
    file_name,
    is_batch,
    size_allowed,
)
from documents.services.verdicts import verdict_record

__all__ = [
    "Answer",
    "BatchUpload",
    "CollectionError",
    "DocumentError",
    "FilesUpload",
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
    "collection_exclusions_set",
    "collection_open",
    "collection_purge",
    "collection_recheck",
    "collection_similarity_refresh",
    "collection_update",
    "collections_delete_resume",
    "collections_delete_stale_requeue",
    "document_delete",
    "document_enqueue",
    "document_process",
    "document_recheck",
    "document_submitted_set",
    "document_template_set",
    "document_upload",
    "document_upload_batch",
    "document_upload_files",
    "documents_reanalyze",
    "documents_resume",
    "documents_stale_requeue",
    "file_accepted",
    "file_name",
    "is_batch",
    "size_allowed",
    "upload_keys_expire",
    "upload_once",
    "verdict_record",
]
