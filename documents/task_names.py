"""The names of this app's Celery tasks: services queue them by name (`core.queue`)."""

PROCESS_TASK = "documents.process"
DELETE_TASK = "documents.delete_collection"
IMPORT_TASK = "documents.import_archive"
REFRESH_TASK = "documents.refresh_similarities"
SWEEP_TASK = "documents.sweep"
