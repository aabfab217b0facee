"""ZIP batches: one document per member, folders kept as metadata, unsafe members skipped.

Defences against hostile archives: member count, declared total size and every member's size and
compression ratio are checked before anything is decompressed, and reading is capped at the
limit too (declared sizes can lie). Absolute paths, ".." components, symbolic links, encrypted
members and non-document files are listed as skipped with the reason, never read.
"""

from __future__ import annotations

import datetime
import io
import posixpath
import stat
import zipfile
import zlib
from collections.abc import Iterator

from .errors import CorruptFile, FileTooLarge, UnsafeArchive, size_text
from .formats import EXTENSIONS, extension
from .results import DEFAULT_LIMITS, ArchiveMember, Limits, SkippedMember

_SYSTEM_FILES = frozenset({".ds_store", "thumbs.db", "desktop.ini"})
_CHUNK = 64 * 1024


def iter_archive(
    filename: str, data: bytes, *, limits: Limits = DEFAULT_LIMITS
) -> Iterator[ArchiveMember | SkippedMember]:
    """Yield each document of a ZIP batch, or why an entry was skipped.

    Raises (before yielding anything) FileTooLarge, CorruptFile or UnsafeArchive when the batch
    as a whole cannot be read safely; while iterating, UnsafeArchive if the members really
    decompress to more than `limits.max_uncompressed_bytes`.
    """
    if len(data) > limits.max_batch_bytes:
        raise FileTooLarge(
            f"file too large: {size_text(len(data))} > {size_text(limits.max_batch_bytes)} "
            "limit for a batch"
        )
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
        infos = package.infolist()
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError) as error:
        raise CorruptFile("ZIP archive is corrupt or truncated") from error
    if len(infos) > limits.max_archive_members:
        raise UnsafeArchive(
            f"ZIP archive has {len(infos)} entries > {limits.max_archive_members} limit"
        )
    if sum(info.file_size for info in infos) > limits.max_uncompressed_bytes:
        raise UnsafeArchive(
            "ZIP archive expands to more than "
            f"{size_text(limits.max_uncompressed_bytes)} (ZIP bomb?)"
        )
    return _members(package, infos, limits)


def _members(
    package: zipfile.ZipFile, infos: list[zipfile.ZipInfo], limits: Limits
) -> Iterator[ArchiveMember | SkippedMember]:
    budget = limits.max_uncompressed_bytes
    for info in infos:
        path = member_path(info)
        if info.is_dir():
            continue
        reason = skip_reason(info, path, limits)
        if reason:
            yield SkippedMember(path, reason)
            continue
        content = _read(package, info, limits)
        if isinstance(content, str):
            yield SkippedMember(path, content)
            continue
        budget -= len(content)
        if budget < 0:
            raise UnsafeArchive(
                "ZIP archive expands to more than "
                f"{size_text(limits.max_uncompressed_bytes)} (ZIP bomb?)"
            )
        yield ArchiveMember(
            path=path, folder=posixpath.dirname(path), data=content, modified=_modified(info)
        )


def _modified(info: zipfile.ZipInfo) -> datetime.datetime | None:
    """The member's recorded time; None for the DOS epoch (tools that write no time)."""
    if info.date_time[:3] <= (1980, 1, 1):
        return None
    try:
        return datetime.datetime(*info.date_time)
    except ValueError:  # a month 0 or a 31 February in a hand-made archive
        return None


def member_path(info: zipfile.ZipInfo) -> str:
    """The member name as the user saw it: "/"-separated, GBK names repaired.

    Chinese Windows tools write GBK names without the ZIP UTF-8 flag; zipfile then decodes them
    as CP437, so they are re-decoded (UTF-8 if valid, else GB18030).
    """
    name = info.filename
    if not info.flag_bits & 0x800:
        try:
            raw = name.encode("cp437")
        except UnicodeEncodeError:
            raw = b""
        if raw and not raw.isascii():
            try:
                name = raw.decode("utf-8")
            except UnicodeDecodeError:
                name = raw.decode("gb18030", errors="replace")
    return name.replace("\\", "/")


def skip_reason(info: zipfile.ZipInfo, path: str, limits: Limits) -> str | None:
    """Why this entry must not be read, or None when it is a document within the limits."""
    parts = path.split("/")
    if path.startswith("/") or (len(parts[0]) == 2 and parts[0][1] == ":") or ".." in parts:
        return "unsafe path (absolute or containing '..'): skipped"
    if stat.S_ISLNK(info.external_attr >> 16):
        return "symbolic link: skipped"
    if info.flag_bits & 0x1:
        return "file is encrypted/password-protected: skipped"
    name = parts[-1]
    if parts[0] == "__MACOSX" or name.lower() in _SYSTEM_FILES or name.startswith(("._", "~$")):
        # "~$name.docx": the lock file Word/Excel leave beside an open document.
        return "system file: skipped"
    ext = extension(path)
    if ext == ".zip":
        return "nested archives are not unpacked: skipped"
    if ext not in EXTENSIONS:
        return f"not a document ({ext or 'no extension'}): skipped"
    if info.file_size > limits.max_file_bytes:
        size, limit = size_text(info.file_size), size_text(limits.max_file_bytes)
        return f"file too large: {size} > {limit} limit"
    ratio = info.file_size / max(info.compress_size, 1)
    if ratio > limits.max_ratio:
        return f"compression ratio {ratio:.0f}:1 > {limits.max_ratio:.0f}:1 limit (ZIP bomb?)"
    return None


def _read(package: zipfile.ZipFile, info: zipfile.ZipInfo, limits: Limits) -> bytes | str:
    """The member's bytes, or a skip reason when it is corrupt or bigger than declared."""
    cap = min(info.file_size, limits.max_file_bytes)
    chunks: list[bytes] = []
    size = 0
    try:
        with package.open(info) as stream:
            while chunk := stream.read(_CHUNK):
                size += len(chunk)
                if size > cap:
                    return "member is larger than its header says (ZIP bomb?): skipped"
                chunks.append(chunk)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError, ValueError):
        return "file is corrupt or truncated: skipped"
    return b"".join(chunks)
