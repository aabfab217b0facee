"""What a file really is: its extension says what the user claims, its first bytes what it is.

Binary formats (PDF, DOCX) must carry their signature; a textual extension must hold text. A
mismatch is reported with both names, so the user knows to rename or re-export the file, rather
than getting garbage text or a parser traceback.
"""

from __future__ import annotations

import posixpath

from .charsets import bom_encoding, utf16_without_bom
from .errors import EncryptedFile, MismatchedFormat, UnsupportedFormat

EXTENSIONS = {
    ".txt": "txt",
    ".text": "txt",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".docx": "docx",
    ".pdf": "pdf",
}
TEXTUAL = frozenset({"txt", "markdown", "html"})
_ADVICE = {
    ".doc": "legacy Word .doc files are not supported: save it as .docx",
    ".zip": "ZIP archives are uploaded as a batch, not as one document",
    ".rtf": "RTF files are not supported: save it as .docx or .txt",
}
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_SIGNATURES = (
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),
    (OLE_MAGIC, "ole"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"MZ", "a Windows program"),
    (b"\x7fELF", "a program"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"Rar!", "a RAR archive"),
    (b"7z\xbc\xaf", "a 7-Zip archive"),
    (b"{\\rtf", "an RTF file"),
)
# A text file may hold up to one NUL per 100 bytes and one other control byte per 20.
_BYTES_PER_NUL = 100
_BYTES_PER_CONTROL = 20
_HTML_MARKERS = (b"<!doctype html", b"<html", b"<body", b"<head")
_KIND_NAMES = {
    "pdf": "a PDF",
    "zip": "a ZIP archive",
    "ole": "a legacy Office file",
    "html": "HTML",
    "txt": "plain text",
    "binary": "binary data",
}


def extension(filename: str) -> str:
    """Lower-case extension with the dot ("" when none)."""
    return posixpath.splitext(filename.replace("\\", "/"))[1].lower()


def sniff(data: bytes) -> str:
    """The content kind: "pdf", "zip", "ole", "html", "txt", "binary" or a described binary."""
    if _is_pdf(data):
        return "pdf"
    for magic, kind in _SIGNATURES:
        if data.startswith(magic):
            return kind
    if _looks_binary(data):
        return "binary"
    head = data[:4096].lower()
    if any(marker in head for marker in _HTML_MARKERS):
        return "html"
    return "txt"


def resolve(filename: str, data: bytes) -> str:
    """The reader to use: "txt" | "markdown" | "html" | "docx" | "pdf", or a clear error."""
    ext = extension(filename)
    kind = sniff(data)
    if kind == "ole":
        _raise_for_ole(ext, data)
    claimed = EXTENSIONS.get(ext)
    if claimed is None:
        if ext:
            raise UnsupportedFormat(_ADVICE.get(ext, f"unsupported file type: {ext}"))
        return _from_content(kind)
    if claimed in TEXTUAL:
        if kind not in ("txt", "html"):
            raise MismatchedFormat(f"file named {ext} is not text: its content is {_name(kind)}")
        return claimed
    expected = "zip" if claimed == "docx" else claimed
    if kind != expected:
        raise MismatchedFormat(
            f"file named {ext} is not a real {ext} file: its content is {_name(kind)}"
        )
    return claimed


def _from_content(kind: str) -> str:
    if kind in ("txt", "html", "pdf"):
        return kind
    if kind == "zip":
        raise UnsupportedFormat(
            "file has no extension and is a ZIP archive: name it .docx if it "
            "is a Word document, or upload it as a batch"
        )
    raise UnsupportedFormat(f"unsupported file type: {_name(kind)}")


def _raise_for_ole(ext: str, data: bytes) -> None:
    # Password-protected .docx/.xlsx are OLE compound files holding an "EncryptedPackage" stream
    # (MS-OFFCRYPTO); directory entry names are UTF-16LE.
    if "EncryptedPackage".encode("utf-16-le") in data:
        raise EncryptedFile(
            "file is encrypted/password-protected: remove the password and upload it again"
        )
    raise UnsupportedFormat(
        "legacy Office files (.doc, .xls, .ppt) are not supported: save it as .docx"
    )


def _name(kind: str) -> str:
    return _KIND_NAMES.get(kind, kind)


def _is_pdf(data: bytes) -> bool:
    # Readers accept the header anywhere in the first 1 KB (some generators prepend junk), but a
    # text file that merely mentions "%PDF-" must stay text: away from the start, require
    # the object syntax and end marker of a real PDF too.
    position = data.find(b"%PDF-", 0, 1024)
    if position < 0:
        return False
    return position == 0 or (b" obj" in data[:65536] and b"%%EOF" in data[-4096:])


def _looks_binary(data: bytes) -> bool:
    """Binary by the share of bytes that text does not contain, in the first 8 KB.

    UTF-16 (with or without a BOM) is text full of NULs, so it is recognised first. Binary formats
    are full of NULs (padding, small integers); in a text file a NUL is a stray byte from a broken
    converter, so up to 1 in 100 is tolerated (git calls a file binary on a single one, which
    rejected whole essays) and dropped when decoding. Other control characters (not tab, newlines,
    form feed or escape) are tolerated up to 1 in 20.
    """
    if bom_encoding(data) or utf16_without_bom(data):
        return False
    sample = data[:8192]
    nuls = sample.count(0)
    controls = sum(1 for byte in sample if byte < 9 or 13 < byte < 32 and byte != 27)
    return nuls * _BYTES_PER_NUL > len(sample) or controls * _BYTES_PER_CONTROL > len(sample)
