"""Sentence-level copy detection (Low-IDF-Sig) and near-duplicate methods.

The public API is listed in ``__all__`` (see docs/architecture.md, "The detection contract").
Helpers for building other methods on the same text layer: :func:`detection.normalize.normalize`,
:func:`detection.words.tokenize`, :func:`detection.language.detect_language`.
"""

from detection.config import DEFAULT_CONFIG, DetectorConfig
from detection.detector import analyze, compare, coverage, detect, model_version
from detection.errors import DetectionError
from detection.index import MemoryIndex, Posting, Postings, SentenceIndex, pack_refs, unpack_refs
from detection.model import DocumentAnalysis, Passage, SentenceRecord

__all__ = [
    "DEFAULT_CONFIG",
    "DetectionError",
    "DetectorConfig",
    "DocumentAnalysis",
    "MemoryIndex",
    "Passage",
    "Posting",
    "Postings",
    "SentenceIndex",
    "SentenceRecord",
    "analyze",
    "compare",
    "coverage",
    "detect",
    "model_version",
    "pack_refs",
    "unpack_refs",
]
