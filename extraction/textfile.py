"""Plain text and Markdown readers."""

from __future__ import annotations

import markdown as markdown_lib

from .charsets import decode
from .errors import NoTextFound
from .layout import tidy
from .results import Extracted
from .webpage import visible_text


def extract_text(data: bytes) -> Extracted:
    """A plain-text file in any common encoding (detected), newlines normalised to "\\n"."""
    text, encoding, warnings = decode(data)
    text = tidy(text)
    if not text.strip():
        raise NoTextFound("the file is empty")
    return Extracted(text=text, format="txt", encoding=encoding, warnings=warnings)


def extract_markdown(data: bytes) -> Extracted:
    """Markdown rendered to HTML, then to text: syntax gone, one line per block."""
    source, encoding, warnings = decode(data)
    rendered = markdown_lib.markdown(source, extensions=["tables", "fenced_code"])
    text = visible_text(f"<html><body>{rendered}</body></html>") if rendered.strip() else ""
    if not text.strip():
        raise NoTextFound("the file is empty")
    return Extracted(
        text=text,
        format="markdown",
        encoding=encoding,
        title=_first_heading(source),
        warnings=warnings,
    )


def _first_heading(source: str) -> str | None:
    for line in source.split("\n"):
        if line.startswith("# "):
            return line[2:].strip() or None
    return None
