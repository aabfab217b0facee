"""DOCX → text: python-docx opens the package, `wordml.blocks` reads body, notes and headers.

Body paragraphs and table cells come in document order, then footnotes and endnotes (python-docx
does not expose them, so their parts are read from the package). Headers and footers are repeated
page furniture (titles, page numbers, "confidential"), not the author's text: they are left out of
`text` and returned in `Extracted.excluded`.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Iterator

import docx
from docx.opc.exceptions import PackageNotFoundError
from lxml import etree

from .errors import CorruptFile, MismatchedFormat, UnsafeArchive, size_text
from .layout import paragraphs
from .results import DEFAULT_LIMITS, Extracted, Limits
from .wordml import W, blocks, quote_paragraphs

_NOTE_PARTS = (("word/footnotes.xml", "footnote"), ("word/endnotes.xml", "endnote"))
_CORRUPT = "file is corrupt or truncated (the DOCX could not be read)"


def extract_docx(data: bytes, *, limits: Limits = DEFAULT_LIMITS) -> Extracted:
    """Body text (paragraphs and table cells in order) plus footnotes; headers/footers excluded."""
    package = _open_package(data, limits)
    try:
        document = docx.Document(io.BytesIO(data))
        body = list(blocks(document.element.body))
        notes = [note for part, tag in _NOTE_PARTS for note in _notes(package, part, tag)]
        furniture = _headers_and_footers(document)
        title = document.core_properties.title or None
        quoted = quote_paragraphs(document.element.body, document.styles.element)
    except (
        PackageNotFoundError,
        KeyError,
        ValueError,
        zipfile.BadZipFile,
        zlib.error,
        etree.XMLSyntaxError,
        EOFError,
    ) as error:
        raise CorruptFile(_CORRUPT) from error
    return Extracted(
        text=paragraphs(body + notes),
        format="docx",
        title=title,
        excluded=tuple(furniture),
        block_quotes=tuple(" ".join(text.split()) for text in quoted if text.strip()),
    )


def _open_package(data: bytes, limits: Limits) -> zipfile.ZipFile:
    """The DOCX as a ZIP, checked for bomb sizes before anything is decompressed."""
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
        infos = package.infolist()
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError) as error:
        raise CorruptFile(_CORRUPT) from error
    if "word/document.xml" not in {info.filename for info in infos}:
        raise MismatchedFormat("file named .docx is a ZIP archive but not a Word document")
    expanded = sum(info.file_size for info in infos)
    ratio = max(info.file_size / max(info.compress_size, 1) for info in infos)
    if expanded > limits.max_uncompressed_bytes or ratio > limits.max_ratio:
        raise UnsafeArchive(
            f"DOCX expands to {size_text(expanded)} (ratio up to {ratio:.0f}:1): "
            "over the safety limits (ZIP bomb?)"
        )
    try:
        damaged = package.testzip()  # reads every member: CRC errors of a cut file surface here
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError) as error:
        raise CorruptFile(_CORRUPT) from error
    if damaged is not None:
        raise CorruptFile(_CORRUPT)
    return package


def _notes(package: zipfile.ZipFile, part: str, tag: str) -> Iterator[str]:
    """Texts of real footnotes/endnotes (not the separator pseudo-notes) of one notes part."""
    if part not in package.namelist():
        return
    root = etree.fromstring(package.read(part))
    for note in root.iter(f"{W}{tag}"):
        if note.get(f"{W}type") in ("separator", "continuationSeparator", "continuationNotice"):
            continue
        yield from blocks(note)


def _headers_and_footers(document: docx.document.Document) -> list[str]:
    texts: list[str] = []
    for section in document.sections:
        for part in (
            section.header,
            section.first_page_header,
            section.even_page_header,
            section.footer,
            section.first_page_footer,
            section.even_page_footer,
        ):
            if part.is_linked_to_previous:
                continue
            text = paragraphs(list(blocks(part._element)))
            if text and text not in texts:
                texts.append(text)
    return texts
