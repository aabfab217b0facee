"""The detector settings the app analyses and checks with.

`DETECTION_TERM_RETRIEVAL` (environment, default off) turns on term retrieval
(`detection.retrieval`): sources of machine translations and heavy paraphrases are found
through their words, at the price of about twice the index's postings at ingest. Switching it
changes the feature model's version, so documents analysed before are re-analysed
(`manage.py reanalyze`) before they are compared again.
"""

from __future__ import annotations

from django.conf import settings

from detection import DEFAULT_CONFIG, DetectorConfig
from detection.config import TERM_RETRIEVAL_CONFIG


def detector_config() -> DetectorConfig:
    """The `DetectorConfig` of this installation."""
    return TERM_RETRIEVAL_CONFIG if settings.DETECTION_TERM_RETRIEVAL else DEFAULT_CONFIG
