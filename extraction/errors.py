"""The one error family of the extraction package.

Every failure a user can cause with a file ends in a subclass of `ExtractionError`; its `str()` is
a complete, user-facing reason ("file is encrypted/password-protected"), so callers can store and
show it without knowing the subclass. The subclasses let callers branch (e.g. retry never helps for
`EncryptedFile`).
"""

from __future__ import annotations


class ExtractionError(Exception):
    """Base class: the file cannot be turned into text; `str(error)` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UnsupportedFormat(ExtractionError):
    """The file type is not one we read (e.g. an executable, an image, a legacy .doc)."""


class MismatchedFormat(ExtractionError):
    """The file's content is not what its extension says (a `.pdf` that is really text)."""


class FileTooLarge(ExtractionError):
    """The file (or a batch, or an archive member) is above a size limit."""


class CorruptFile(ExtractionError):
    """The file is damaged or truncated and cannot be parsed."""


class EncryptedFile(ExtractionError):
    """The file is encrypted or password-protected."""


class NoTextFound(ExtractionError):
    """The file parsed but holds no text (a scanned PDF, an empty page)."""


class UnsafeArchive(ExtractionError):
    """A compressed container breaks a safety limit: a ZIP batch (bomb, too many members), a
    DOCX package or a PDF stream that expands far beyond its size."""


def size_text(size: int) -> str:
    """A byte count as people read it: "30 MB", "20.5 MB", "12 KB", "300 bytes"."""
    for unit, scale in (("MB", 1024 * 1024), ("KB", 1024)):
        if size >= scale:
            # Two decimals where one would round a size over a limit down to it ("20 MB").
            digits = 1 if size % (scale // 10) == 0 else 2
            return f"{size / scale:.{digits}f}".rstrip("0").removesuffix(".") + f" {unit}"
    return f"{size} bytes"
