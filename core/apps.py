from django.apps import AppConfig


class CoreConfig(AppConfig):
    """Shared infrastructure; a Django app for its one table, the task outbox."""

    name = "core"
    default_auto_field = "django.db.models.BigAutoField"
