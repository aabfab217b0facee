"""Builders of real test files (DOCX, PDF, ZIP), made with the libraries at test time."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

import pytest


@pytest.fixture
def make_docx() -> Callable[..., bytes]:
    """DOCX with paragraphs, a table between them, a header, a footer and optional footnotes."""

    def build(*, footnote: str | None = None, title: str = "测试文档") -> bytes:
        import docx

        document = docx.Document()
        document.core_properties.title = title
        section = document.sections[0]
        section.header.paragraphs[0].text = "页眉：机密文件"
        section.footer.paragraphs[0].text = "第 1 页"
        document.add_paragraph("第一段：正文开始。")
        table = document.add_table(rows=2, cols=2)
        for row, cells in enumerate((("甲", "乙"), ("丙", "丁"))):
            for col, text in enumerate(cells):
                table.cell(row, col).text = text
        document.add_paragraph("第二段：表格之后。")
        buffer = io.BytesIO()
        document.save(buffer)
        data = buffer.getvalue()
        return add_footnote(data, footnote) if footnote else data

    return build


def add_footnote(data: bytes, text: str) -> bytes:
    """Add a footnotes part (separator notes + one real note) the way Word writes it."""
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    notes = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes xmlns:w="{w}">'
        '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p>'
        "</w:footnote>"
        '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r>'
        "<w:continuationSeparator/></w:r></w:p></w:footnote>"
        f'<w:footnote w:id="1"><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:footnote>'
        "</w:footnotes>"
    )
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            content = source.read(info)
            if info.filename == "[Content_Types].xml":
                content = content.replace(
                    b"</Types>",
                    b'<Override PartName="/word/footnotes.xml" ContentType="application/'
                    b'vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/></Types>',
                )
            if info.filename == "word/_rels/document.xml.rels":
                content = content.replace(
                    b"</Relationships>",
                    b'<Relationship Id="rIdFootnotes" Type="http://schemas.openxmlformats.org/'
                    b'officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/>'
                    b"</Relationships>",
                )
            target.writestr(info, content)
        target.writestr("word/footnotes.xml", notes)
    return out.getvalue()


@pytest.fixture
def make_pdf() -> Callable[..., bytes]:
    """PDF pages drawn with reportlab: text lines per page (Chinese via a built-in CID font),
    or None for a page with only a drawn rectangle (no text layer)."""

    def build(pages: list[list[str] | None], *, title: str | None = None) -> bytes:
        from reportlab.pdfbase import pdfmetrics
        from reportlab.pdfbase.cidfonts import UnicodeCIDFont
        from reportlab.pdfgen import canvas

        # STSong-Light is one of the Adobe CJK fonts every PDF reader knows: no font file needed.
        pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
        buffer = io.BytesIO()
        drawing = canvas.Canvas(buffer)
        if title:
            drawing.setTitle(title)
        for lines in pages:
            if lines is None:
                drawing.rect(100, 400, 300, 200, fill=1)
            else:
                drawing.setFont("STSong-Light", 12)
                for number, line in enumerate(lines):
                    drawing.drawString(50, 800 - 20 * number, line)
            drawing.showPage()
        drawing.save()
        return buffer.getvalue()

    return build


@pytest.fixture
def make_zip() -> Callable[..., bytes]:
    """ZIP from {name: bytes}; names are written verbatim (so '../x' stays hostile)."""

    def build(members: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression) as archive:
            for name, content in members.items():
                archive.writestr(zipfile.ZipInfo(name), content, compress_type=compression)
        return buffer.getvalue()

    return build
