"""ZIP batches: documents with their folders, everything else skipped with a reason."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest

from extraction import (
    ArchiveMember,
    CorruptFile,
    FileTooLarge,
    Limits,
    SkippedMember,
    UnsafeArchive,
    extract,
    iter_archive,
)

TEXT = "一篇中文文章的正文。".encode()


def members(data: bytes, limits: Limits | None = None) -> dict[str, ArchiveMember | SkippedMember]:
    items = iter_archive("batch.zip", data, **({"limits": limits} if limits else {}))
    return {item.path: item for item in items}


def test_documents_come_with_their_folders_and_others_are_skipped(make_zip, make_docx):
    data = make_zip(
        {
            "班级一/张三.txt": TEXT,
            "班级一/李四.docx": make_docx(),
            "王五.md": b"# title\n\ntext",
            "班级二/": b"",
            "班级二/setup.exe": b"MZ" + bytes(50),
            "__MACOSX/._张三.txt": b"junk",
            "班级一/~$李四.docx": b"\x05owner",  # Word's lock file beside an open document
            "nested.zip": make_zip({"a.txt": TEXT}),
        }
    )
    found = members(data)
    assert found["班级一/张三.txt"] == ArchiveMember("班级一/张三.txt", "班级一", TEXT)
    assert isinstance(found["班级一/李四.docx"], ArchiveMember)
    assert found["班级一/李四.docx"].folder == "班级一"
    assert found["王五.md"].folder == ""
    assert "班级二/" not in found  # folders are metadata, not members
    assert found["班级二/setup.exe"] == SkippedMember(
        "班级二/setup.exe", "not a document (.exe): skipped"
    )
    assert found["__MACOSX/._张三.txt"].reason == "system file: skipped"
    assert found["班级一/~$李四.docx"].reason == "system file: skipped"
    assert "nested archives" in found["nested.zip"].reason
    # Each document member extracts on its own.
    assert "第一段" in extract("李四.docx", found["班级一/李四.docx"].data).text


@pytest.mark.parametrize(
    "name", ["../../etc/evil.txt", "/etc/passwd.txt", "a/../../b.txt", "C:/x.txt"]
)
def test_path_tricks_are_skipped_not_read(make_zip, name):
    found = members(make_zip({name: TEXT, "ok.txt": TEXT}))
    assert isinstance(found[name], SkippedMember)
    assert "unsafe path" in found[name].reason
    assert isinstance(found["ok.txt"], ArchiveMember)


def test_a_symbolic_link_is_skipped():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        link = zipfile.ZipInfo("link.txt")
        link.create_system = 3
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    assert members(buffer.getvalue())["link.txt"].reason == "symbolic link: skipped"


def test_an_encrypted_member_is_skipped(make_zip):
    data = bytearray(make_zip({"secret.txt": TEXT, "open.txt": TEXT}))
    # Set the "encrypted" bit of the general-purpose flags in the local and central headers
    # (zipfile cannot write encrypted members).
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        header = data.index(signature)
        data[header + offset] |= 0x1
    found = members(bytes(data))
    assert found["secret.txt"].reason == "file is encrypted/password-protected: skipped"
    assert found["open.txt"].data == TEXT


def test_a_highly_compressed_member_is_skipped_as_a_bomb(make_zip):
    data = make_zip({"bomb.txt": b"0" * 200_000, "ok.txt": TEXT})
    found = members(data, Limits(max_ratio=50))
    assert "compression ratio" in found["bomb.txt"].reason
    assert "ZIP bomb" in found["bomb.txt"].reason
    assert isinstance(found["ok.txt"], ArchiveMember)


def test_a_member_above_the_file_limit_is_skipped(make_zip):
    data = make_zip({"big.txt": TEXT * 100, "ok.txt": TEXT}, compression=zipfile.ZIP_STORED)
    found = members(data, Limits(max_file_bytes=1000))
    assert found["big.txt"].reason == "file too large: 2.93 KB > 1000 bytes limit"


def test_an_archive_expanding_beyond_the_total_limit_is_refused(make_zip):
    data = make_zip({f"{i}.txt": TEXT * 50 for i in range(10)})
    with pytest.raises(UnsafeArchive, match="ZIP bomb"):
        iter_archive("batch.zip", data, limits=Limits(max_uncompressed_bytes=5000))


def test_too_many_members_is_refused(make_zip):
    data = make_zip({f"{i}.txt": TEXT for i in range(20)})
    with pytest.raises(UnsafeArchive, match="20 entries > 10 limit"):
        iter_archive("batch.zip", data, limits=Limits(max_archive_members=10))


def test_a_batch_above_the_batch_limit_is_refused(make_zip):
    data = make_zip({"a.txt": TEXT * 100}, compression=zipfile.ZIP_STORED)
    with pytest.raises(FileTooLarge, match="file too large"):
        iter_archive("batch.zip", data, limits=Limits(max_batch_bytes=1000))


def test_a_member_lying_about_its_size_is_skipped(make_zip):
    data = bytearray(make_zip({"a.txt": TEXT * 10}, compression=zipfile.ZIP_STORED))
    # Shrink the declared uncompressed size in the central directory (offset 24 of the entry).
    central = data.rindex(b"PK\x01\x02")
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    found = members(bytes(data))
    assert isinstance(found["a.txt"], SkippedMember)


@pytest.mark.parametrize("keep", [0.3, 0.7, 0.97])
def test_a_truncated_zip_is_corrupt(make_zip, keep):
    data = make_zip({"a.txt": TEXT, "b.txt": TEXT * 3})
    with pytest.raises(CorruptFile, match="corrupt or truncated") as raised:
        iter_archive("batch.zip", data[: int(len(data) * keep)])
    assert "batch.zip" not in str(raised.value)  # the caller names the file, once


def test_a_damaged_member_is_skipped_and_the_rest_still_read(make_zip):
    data = bytearray(make_zip({"a.txt": TEXT * 20, "b.txt": TEXT}))
    start = data.index(b"a.txt") + len("a.txt")  # first member's compressed bytes
    data[start + 5 : start + 25] = bytes(20)
    found = members(bytes(data))
    assert found["a.txt"] == SkippedMember("a.txt", "file is corrupt or truncated: skipped")
    assert found["b.txt"].data == TEXT


def test_gbk_member_names_written_by_chinese_windows_tools_are_repaired():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("placeholder.txt", TEXT)
    raw = bytearray(buffer.getvalue())
    # Replace the ASCII name by a GBK name of the same byte length, without the UTF-8 flag.
    gbk = "作业一二三.txt".encode("gbk")[: len("placeholder.txt")].ljust(
        len("placeholder.txt"), b"_"
    )
    raw = raw.replace(b"placeholder.txt", gbk)
    (path,) = members(bytes(raw))
    assert path.startswith("作业一二三")
