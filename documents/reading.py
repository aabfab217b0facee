"""File bytes -> text, the first step of the pipeline.

This is the one place that knows how files become text: it calls the Django-free
`extraction` package (txt in any encoding, Markdown, HTML main content, DOCX, PDF)
and turns its errors into the app's `UnreadableFile`, whose message is shown to the user.
"""

from __future__ import annotations

from dataclasses import dataclass

from extraction import ExtractionError, extract


class UnreadableFile(ValueError):
    """The file cannot be turned into text; the message is shown to the user."""


@dataclass(frozen=True)
class ReadText:
    text: str
    format: str
    warnings: tuple[str, ...] = ()
    block_quotes: tuple[str, ...] = ()  # see extraction.Extracted


def read_text(filename: str, data: bytes) -> ReadText:
    """The document's text, or UnreadableFile saying why there is none."""
    try:
        extracted = extract(filename, data)
    except ExtractionError as error:
        raise UnreadableFile(f"{filename}: {error}") from error
    if not extracted.text.strip():
        raise UnreadableFile(f"{filename}: the file contains no text.")
    return ReadText(
        extracted.text, extracted.format, tuple(extracted.warnings), extracted.block_quotes
    )
