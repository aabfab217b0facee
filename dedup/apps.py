from django.apps import AppConfig


class DedupConfig(AppConfig):
    name = "dedup"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from dedup import receivers
        from documents import signals

        signals.document_processed.connect(receivers.on_document_processed)
        signals.documents_imported.connect(receivers.on_documents_imported)
        signals.unfinished_resume.connect(receivers.on_unfinished_resume)
        signals.stale_requeue.connect(receivers.on_stale_requeue)
