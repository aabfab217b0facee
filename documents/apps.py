from django.apps import AppConfig
from django.db.models.signals import post_migrate


class DocumentsConfig(AppConfig):
    name = "documents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from documents.index.extension import ensure_extension_after_migrate

        # Every migrate creates the copydetect extension once the server offers it.
        post_migrate.connect(ensure_extension_after_migrate, sender=self)
