"""DOCX: body paragraphs and tables in order, footnotes kept, headers/footers excluded."""

from __future__ import annotations

import io

import pytest

from documents.extraction import (
    CorruptFile,
    EncryptedFile,
    Limits,
    MismatchedFormat,
    UnsafeArchive,
    UnsupportedFormat,
    extract,
)


def test_it_reads_paragraphs_and_table_cells_in_body_order(make_docx):
    result = extract("report.docx", make_docx())
    assert result.text.split("\n") == [
        "第一段：正文开始。",
        "甲",
        "乙",
        "丙",
        "丁",
        "第二段：表格之后。",
    ]
    assert result.format == "docx"
    assert result.title == "测试文档"


def test_headers_and_footers_are_excluded_from_the_text_but_reported(make_docx):
    result = extract("report.docx", make_docx())
    assert "页眉" not in result.text and "第 1 页" not in result.text
    assert "页眉：机密文件" in result.excluded
    assert "第 1 页" in result.excluded


def test_footnotes_are_read_from_the_footnotes_part(make_docx):
    result = extract("report.docx", make_docx(footnote="脚注：数据来源于国家统计局。"))
    lines = result.text.split("\n")
    assert lines[-1] == "脚注：数据来源于国家统计局。"
    assert lines[0] == "第一段：正文开始。"


def test_merged_table_cells_are_read_once():
    import docx

    document = docx.Document()
    table = document.add_table(rows=1, cols=3)
    merged = table.cell(0, 0).merge(table.cell(0, 1))
    merged.text = "合并单元格"
    table.cell(0, 2).text = "右"
    buffer = io.BytesIO()
    document.save(buffer)
    assert extract("t.docx", buffer.getvalue()).text == "合并单元格\n右"


def test_a_password_protected_docx_is_reported_as_encrypted(make_docx):
    from msoffcrypto.format.ooxml import OOXMLFile

    encrypted = io.BytesIO()
    OOXMLFile(io.BytesIO(make_docx())).encrypt("secret", encrypted)
    assert encrypted.getvalue()[:4] == b"\xd0\xcf\x11\xe0"  # an OLE compound file, not a ZIP
    with pytest.raises(EncryptedFile, match="encrypted/password-protected"):
        extract("secret.docx", encrypted.getvalue())


@pytest.mark.parametrize("keep", [0.3, 0.6, 0.9])
def test_a_truncated_docx_is_corrupt(make_docx, keep):
    data = make_docx()
    with pytest.raises(CorruptFile, match="corrupt or truncated"):
        extract("cut.docx", data[: int(len(data) * keep)])


def test_a_docx_with_a_damaged_member_is_corrupt(make_docx):
    data = bytearray(make_docx())
    middle = len(data) // 2
    data[middle : middle + 200] = bytes(200)
    with pytest.raises(CorruptFile):
        extract("damaged.docx", bytes(data))


def test_a_docx_bomb_is_refused_before_decompression(make_docx):
    with pytest.raises(UnsafeArchive, match="ZIP bomb"):
        extract("bomb.docx", make_docx(), limits=Limits(max_ratio=2))


def test_a_zip_that_is_not_a_word_document_is_rejected(make_zip):
    with pytest.raises(MismatchedFormat, match="not a Word document"):
        extract("fake.docx", make_zip({"readme.txt": b"hello"}))


def test_a_docx_that_is_really_html_is_rejected():
    with pytest.raises(MismatchedFormat, match=r"not a real \.docx file: its content is HTML"):
        extract("page.docx", b"<!DOCTYPE html><html><body><p>hi</p></body></html>")


def test_a_legacy_doc_is_unsupported_with_advice():
    with pytest.raises(UnsupportedFormat, match="save it as .docx"):
        extract("old.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600))
