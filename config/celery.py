"""The Celery application: settings come from Django (`CELERY_*` names); tasks autodiscovered."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

app = Celery("copydetect")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
