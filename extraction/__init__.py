"""File → text for the copy-detection product; Django-free.

Public API (frozen dataclasses, one error family):

    extract(filename, data, *, limits=DEFAULT_LIMITS) -> Extracted
    iter_archive(filename, data, *, limits=DEFAULT_LIMITS)
        -> Iterator[ArchiveMember | SkippedMember]
    learn_boilerplate(texts, *, min_share=..., min_docs=...) -> Boilerplate
    Boilerplate.strip(text) -> str

Every failure is an `ExtractionError` (or subclass) whose str() is a user-facing reason.
"""

from .archive import iter_archive
from .boilerplate import Boilerplate, learn_boilerplate
from .errors import (
    CorruptFile,
    EncryptedFile,
    ExtractionError,
    FileTooLarge,
    MismatchedFormat,
    NoTextFound,
    UnsafeArchive,
    UnsupportedFormat,
)
from .reader import extract
from .results import DEFAULT_LIMITS, ArchiveMember, Extracted, Limits, SkippedMember

__all__ = [
    "DEFAULT_LIMITS",
    "ArchiveMember",
    "Boilerplate",
    "CorruptFile",
    "EncryptedFile",
    "Extracted",
    "ExtractionError",
    "FileTooLarge",
    "Limits",
    "MismatchedFormat",
    "NoTextFound",
    "SkippedMember",
    "UnsafeArchive",
    "UnsupportedFormat",
    "extract",
    "iter_archive",
    "learn_boilerplate",
]
