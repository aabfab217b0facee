"""`extract()`: one uploaded file → `Extracted`, dispatching on what the file really is."""

from __future__ import annotations

from collections.abc import Callable

from .errors import CorruptFile, ExtractionError, FileTooLarge, size_text
from .formats import resolve
from .office import extract_docx
from .pdf import extract_pdf
from .results import DEFAULT_LIMITS, Extracted, Limits
from .textfile import extract_markdown, extract_text
from .webpage import extract_html


def extract(filename: str, data: bytes, *, limits: Limits = DEFAULT_LIMITS) -> Extracted:
    """The text of one document (txt, Markdown, HTML, DOCX or PDF).

    The format comes from the extension checked against the content (a mislabelled file is an
    error, not garbage text). Every failure is an ExtractionError whose str() is a user-facing
    reason; parser bugs on hostile input are also turned into CorruptFile.
    """
    if len(data) > limits.max_file_bytes:
        raise FileTooLarge(
            f"file too large: {size_text(len(data))} > {size_text(limits.max_file_bytes)} limit"
        )
    kind = resolve(filename, data)
    readers: dict[str, Callable[[bytes], Extracted]] = {
        "txt": extract_text,
        "markdown": extract_markdown,
        "html": extract_html,
        "pdf": extract_pdf,
        "docx": lambda content: extract_docx(content, limits=limits),
    }
    try:
        return readers[kind](data)
    except ExtractionError:
        raise
    except Exception as error:  # noqa: BLE001 — third-party parsers fail in many ways on bad input
        raise CorruptFile(
            f"file is corrupt or truncated (the {kind.upper()} could not be read)"
        ) from error
