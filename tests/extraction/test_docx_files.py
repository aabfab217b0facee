"""DOCX: body paragraphs and tables in order, footnotes kept, headers/footers excluded."""

from __future__ import annotations

import io

import pytest

from extraction import (
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


def docx_with_body_xml(fragment: str) -> bytes:
    """A real DOCX whose body holds `fragment` (WordprocessingML written the way Word does)."""
    import zipfile

    import docx

    document = docx.Document()
    document.add_paragraph("PLACEHOLDER")
    buffer = io.BytesIO()
    document.save(buffer)
    source = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            content = source.read(info)
            if info.filename == "word/document.xml":
                xml = content.decode("utf-8")
                start = xml.rindex("<w:p>", 0, xml.index("PLACEHOLDER"))
                end = xml.index("</w:p>", start) + len("</w:p>")
                namespaces = (
                    ' xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
                    if "xmlns:mc=" not in xml
                    else ""
                )
                xml = xml[:start] + fragment + xml[end:]
                xml = xml.replace("<w:document ", f"<w:document{namespaces} ", 1)
                content = xml.encode("utf-8")
            target.writestr(info, content)
    return out.getvalue()


def run(text: str) -> str:
    return f"<w:r><w:t xml:space='preserve'>{text}</w:t></w:r>"


def test_content_controls_are_read():
    body = (
        f"<w:p>{run('正文前')}</w:p>"
        "<w:sdt><w:sdtPr><w:alias w:val='摘要'/></w:sdtPr><w:sdtContent>"
        f"<w:p>{run('摘要：本文研究文本复制检测。')}</w:p>"
        "</w:sdtContent></w:sdt>"
    )
    assert (
        extract("cover.docx", docx_with_body_xml(body)).text
        == "正文前\n摘要：本文研究文本复制检测。"
    )


def test_tracked_insertions_count_and_deletions_do_not():
    body = (
        f"<w:p>{run('保留')}"
        f"<w:ins w:id='1' w:author='a' w:date='2024-01-01T00:00:00Z'>{run('插入的文字')}</w:ins>"
        "<w:del w:id='2' w:author='a' w:date='2024-01-01T00:00:00Z'>"
        "<w:r><w:delText>删除的文字</w:delText></w:r></w:del>"
        f"{run('结尾')}</w:p>"
    )
    assert extract("tracked.docx", docx_with_body_xml(body)).text == "保留插入的文字结尾"


def test_text_boxes_are_read_once_after_their_paragraph():
    box = f"<w:txbxContent><w:p>{run('文本框里的文字')}</w:p></w:txbxContent>"
    body = (
        f"<w:p>{run('锚定段落')}<w:r><mc:AlternateContent>"
        f"<mc:Choice Requires='wps'><w:drawing>{box}</w:drawing></mc:Choice>"
        f"<mc:Fallback><w:pict>{box}</w:pict></mc:Fallback>"
        f"</mc:AlternateContent></w:r></w:p>"
        f"<w:p>{run('下一段')}</w:p>"
    )
    result = extract("box.docx", docx_with_body_xml(body))
    assert result.text == "锚定段落\n文本框里的文字\n下一段"


def test_field_codes_are_not_text():
    body = (
        "<w:p><w:r><w:fldChar w:fldCharType='begin'/></w:r>"
        "<w:r><w:instrText xml:space='preserve'> PAGE \\* MERGEFORMAT </w:instrText></w:r>"
        "<w:r><w:fldChar w:fldCharType='separate'/></w:r>"
        f"{run('3')}<w:r><w:fldChar w:fldCharType='end'/></w:r>{run('页')}</w:p>"
    )
    assert extract("field.docx", docx_with_body_xml(body)).text == "3页"
