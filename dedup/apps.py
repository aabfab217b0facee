from django.apps import AppConfig


class DedupConfig(AppConfig):
    name = "dedup"
    default_auto_field = "django.db.models.BigAutoField"
