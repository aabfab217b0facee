"""The Celery application: settings come from Django (`CELERY_*` names); tasks autodiscovered."""

import gc
import logging
import os
import threading

from celery import Celery
from celery.signals import worker_process_init, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

app = Celery("copydetect")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

logger = logging.getLogger(__name__)


@worker_process_init.connect
def _warm_and_freeze(**_: object) -> None:
    """Load the segmenter's dictionary before the first document, then move every object
    alive at start-up (Django, the dictionaries, NLTK) out of the garbage collector's reach:
    each index lookup allocates thousands of short-lived tuples, and full collections that
    scan the start-up objects would land as pauses of tens of milliseconds in random lookups.
    Large blocks are given back to the system when freed (`core.memory`).
    """
    from core import memory
    from detection.detector import warm_up
    from documents.detector_config import detector_config

    memory.large_blocks_mapped()
    warm_up(detector_config())
    gc.freeze()


@worker_ready.connect
def _start_sweeps(**_: object) -> None:
    """Every worker sends the sweep task (`documents.tasks.work_sweep_task`) every
    `SWEEP_SECONDS` (0: never) from a thread of its main process. A timer in the worker rather
    than Celery beat: nothing more to start or supervise, no schedule file two beats could
    share, and it stops with the worker; the thread only publishes a message (the main
    process forks pool children, so it keeps no database connection)."""
    from django.conf import settings

    seconds = float(getattr(settings, "SWEEP_SECONDS", 0))
    if seconds > 0:
        threading.Thread(target=_sweeps, args=(seconds,), daemon=True, name="sweeps").start()


def _sweeps(seconds: float) -> None:
    from documents.task_names import SWEEP_TASK

    while not threading.Event().wait(seconds):
        try:
            app.send_task(SWEEP_TASK)
        except Exception:  # noqa: BLE001 - the broker is down: the next tick tries again
            logger.warning("could not send the sweep task; trying again in %.0f s", seconds)
