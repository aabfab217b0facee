"""What a file is: extension checked against content; size limits; unsupported types."""

from __future__ import annotations

import pytest

from extraction import (
    ExtractionError,
    FileTooLarge,
    Limits,
    MismatchedFormat,
    UnsupportedFormat,
    extract,
)


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("virus.exe", b"MZ\x90\x00", "unsupported file type: .exe"),
        ("photo.jpg", b"\xff\xd8\xff\xe0", "unsupported file type: .jpg"),
        ("batch.zip", b"PK\x03\x04", "uploaded as a batch"),
        ("old.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100), "save it as .docx"),
        ("noext", b"\x89PNG\r\n\x1a\n", "unsupported file type: a PNG image"),
    ],
)
def test_unsupported_types_are_named(name, data, message):
    with pytest.raises(UnsupportedFormat, match=message.replace(".", r"\.")):
        extract(name, data)


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        (
            "paper.pdf",
            "这是纯文本".encode(),
            "named .pdf is not a real .pdf file: its content is plain text",
        ),
        ("paper.docx", b"<html><body>x</body></html>", "its content is HTML"),
        ("notes.txt", b"%PDF-1.4\n%%EOF", "named .txt is not text: its content is a PDF"),
        ("notes.md", b"PK\x03\x04" + bytes(30), "its content is a ZIP archive"),
        ("page.html", b"\x7fELF" + bytes(30), "its content is a program"),
    ],
)
def test_mislabelled_files_are_rejected_with_both_names(name, data, message):
    with pytest.raises(MismatchedFormat) as raised:
        extract(name, data)
    assert message in str(raised.value)


def test_a_file_above_the_size_limit_is_refused_before_parsing():
    with pytest.raises(FileTooLarge, match=r"file too large: 30 MB > 20 MB limit"):
        extract("big.txt", b"a" * (30 * 1024 * 1024))


def test_limits_are_passed_in():
    with pytest.raises(FileTooLarge, match="2 KB > 1 KB limit"):
        extract("a.txt", b"a" * 2048, limits=Limits(max_file_bytes=1024))


def test_a_text_file_mentioning_the_pdf_header_stays_text():
    data = "# 关于PDF\n\n每个PDF文件以 %PDF-1.7 开头。".encode()
    assert extract("notes.md", data).text == "关于PDF\n每个PDF文件以 %PDF-1.7 开头。"


def test_a_pdf_with_junk_before_its_header_is_still_a_pdf(make_pdf):
    data = b"junk from a mail gateway\n" + make_pdf([["有前缀的PDF。"]])
    assert extract("prefixed.pdf", data).text == "有前缀的PDF。"


def test_a_file_without_extension_is_read_by_its_content():
    assert extract("README", "纯文本内容".encode()).format == "txt"
    assert extract("page", b"<!DOCTYPE html><html><body><p>text</p></body></html>").format == "html"


def test_the_extension_is_case_insensitive():
    assert extract("NOTES.TXT", "内容".encode()).text == "内容"


def test_every_error_message_is_its_str():
    error = ExtractionError("file is corrupt or truncated")
    assert str(error) == "file is corrupt or truncated"
    assert error.message == "file is corrupt or truncated"


def test_a_parser_crash_becomes_a_corrupt_file_error(monkeypatch):
    from extraction import reader

    def explode(data):
        raise IndexError("parser bug")

    monkeypatch.setattr(reader, "extract_text", explode)
    with pytest.raises(ExtractionError, match="corrupt or truncated"):
        extract("a.txt", b"text")
