"""File bytes -> text, the first step of the pipeline.

This is the one place that knows how files become text, so swapping the reader (the
`documents.extraction` package: DOCX, PDF, HTML, ...) is a change here only.
"""

from __future__ import annotations

from dataclasses import dataclass

from charset_normalizer import from_bytes


class UnreadableFile(ValueError):
    """The file cannot be turned into text; the message is shown to the user."""


@dataclass(frozen=True)
class ReadText:
    text: str


def read_text(filename: str, data: bytes) -> ReadText:
    """Decode a plain-text upload: UTF-8 (with or without BOM), else the detected encoding."""
    if not data.strip():
        raise UnreadableFile(f"{filename} is empty.")
    try:
        return ReadText(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        pass
    best = from_bytes(data).best()
    if best is None:
        raise UnreadableFile(f"{filename} is not a text file this service can read.")
    return ReadText(str(best))
