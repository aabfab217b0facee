"""The Celery application: settings come from Django (`CELERY_*` names); tasks autodiscovered."""

import gc
import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

app = Celery("copydetect")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _warm_and_freeze(**_: object) -> None:
    """Load the segmenter's dictionary before the first document, then move every object
    alive at start-up (Django, the dictionaries, NLTK) out of the garbage collector's reach:
    each index lookup allocates thousands of short-lived tuples, and full collections that
    scan the start-up objects would land as pauses of tens of milliseconds in random lookups.
    """
    from detection.detector import warm_up

    warm_up()
    gc.freeze()
