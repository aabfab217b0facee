"""The names of this app's Celery tasks: services queue them by name (`core.queue`)."""

RUN_TASK = "dedup.run"
ASSIGN_TASK = "dedup.assign_document"
