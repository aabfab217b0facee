"""PDF text layer via pypdf.

pypdf reads CJK text layers correctly, including the predefined UniGB/UniCNS CMaps used by
non-embedded Chinese fonts (measured: docs/extraction.md). Spaces it inserts between CJK glyphs
are removed. A PDF without a text layer (a scan) is an error, never an empty document.
"""

from __future__ import annotations

import io
import logging

from pypdf import PdfReader
from pypdf.errors import (
    DependencyError,
    FileNotDecryptedError,
    LimitReachedError,
    PdfReadError,
    PyPdfError,
)

from .errors import CorruptFile, EncryptedFile, NoTextFound, UnsafeArchive
from .layout import join_cjk_gaps, reflow_wrapped_lines, tidy
from .results import Extracted

_ENCRYPTED = "file is encrypted/password-protected: remove the password and upload it again"
# Parser failures raised by pypdf on damaged files besides its own error classes.
_DAMAGE = (
    PdfReadError,
    PyPdfError,
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    IndexError,
    AssertionError,
    RecursionError,
    OSError,
)


def extract_pdf(data: bytes) -> Extracted:
    """Text of every page, lines wrapped inside CJK paragraphs rejoined; title from metadata."""
    if b"%%EOF" not in data[-4096:]:
        raise CorruptFile("file is corrupt or truncated (the PDF has no end-of-file marker)")
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # damaged-file chatter is our warning
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        _check_not_encrypted(reader)
        pages = [page.extract_text() or "" for page in reader.pages]
        title = _title(reader)
    except (EncryptedFile, NoTextFound):
        raise
    except (FileNotDecryptedError, DependencyError) as error:
        raise EncryptedFile(_ENCRYPTED) from error
    except LimitReachedError as error:
        # pypdf caps every decompressed stream (75 MB): a few KB that expand past it are a bomb.
        raise UnsafeArchive(
            "PDF content expands beyond the safety limit when decompressed (decompression bomb?)"
        ) from error
    except _DAMAGE as error:
        raise CorruptFile("file is corrupt or truncated (the PDF could not be parsed)") from error
    return _result(pages, title)


def _check_not_encrypted(reader: PdfReader) -> None:
    if not reader.is_encrypted:
        return
    # An "owner password only" PDF opens with the empty user password; its text is readable.
    try:
        if reader.decrypt(""):
            return
    except (NotImplementedError, DependencyError) as error:
        raise EncryptedFile(_ENCRYPTED) from error
    raise EncryptedFile(_ENCRYPTED)


def _result(pages: list[str], title: str | None) -> Extracted:
    texts = [tidy(join_cjk_gaps(page)) for page in pages]
    if not any(texts):
        raise NoTextFound("PDF has no text layer (scanned?): run OCR on it first")
    empty = sum(1 for text in texts if not text)
    warnings = (f"{empty} of {len(texts)} pages have no text layer (scanned?)",) if empty else ()
    # Reflow across page breaks too: a paragraph continues on the next page.
    text = reflow_wrapped_lines("\n".join(text for text in texts if text))
    return Extracted(
        text=text,
        format="pdf",
        title=title,
        warnings=warnings,
    )


def _title(reader: PdfReader) -> str | None:
    metadata = reader.metadata
    title = metadata.title if metadata else None
    return " ".join(str(title).split()) or None if title else None
