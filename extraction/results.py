"""Frozen result types and limits shared by every reader."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Size limits applied before and while reading untrusted files.

    max_file_bytes: one uploaded file (or one archive member, once uncompressed).
    max_batch_bytes: one uploaded ZIP batch as received (compressed).
    max_archive_members: entries in one ZIP (directories included).
    max_uncompressed_bytes: sum of the uncompressed sizes of the members we read.
    max_ratio: uncompressed / compressed size above which a member is treated as a bomb.
    """

    max_file_bytes: int = 20 * MB
    max_batch_bytes: int = 200 * MB
    max_archive_members: int = 2000
    max_uncompressed_bytes: int = 500 * MB
    max_ratio: float = 100.0


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class Extracted:
    """The text of one document and what we learned while reading it.

    text: the document text, paragraphs separated by "\\n", newlines normalised to "\\n".
    format: "txt" | "markdown" | "html" | "docx" | "pdf".
    encoding: the detected/declared character encoding for text formats, else None.
    title: the document title when the format carries one (HTML <title>, PDF/DOCX metadata).
    warnings: non-fatal problems worth showing (e.g. "some PDF pages have no text layer").
    excluded: text blocks deliberately left out of `text` (DOCX headers/footers), so a caller
        can show what was not checked.
    block_quotes: blocks of `text` the file sets as quotations (DOCX "Quote" paragraphs,
        HTML <blockquote>), each as it stands as a line of `text` (`citations.find_citations`).
    """

    text: str
    format: str
    encoding: str | None = None
    title: str | None = None
    warnings: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    block_quotes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ArchiveMember:
    """One document file inside a ZIP batch.

    path: the member's full path inside the archive ("/"-separated, never absolute, no "..").
    folder: its folder ("" at the top level), kept as metadata for the batch.
    data: the uncompressed bytes, ready for `extract(path, data)`.
    modified: its modification time as the archive records it (local time of the machine
        that made it, no time zone, to 2 seconds), None when unset (1980-01-01).
    """

    path: str
    folder: str
    data: bytes
    modified: datetime.datetime | None = None


@dataclass(frozen=True)
class SkippedMember:
    """An archive entry that was not read, and the user-facing reason."""

    path: str
    reason: str
