"""PDF: the text layer (Chinese included); scans, encryption and damage are clear errors."""

from __future__ import annotations

import io
import zlib

import pytest

from extraction import (
    CorruptFile,
    EncryptedFile,
    MismatchedFormat,
    NoTextFound,
    UnsafeArchive,
    extract,
)

LINES = ["互联网中存在着大量的近似重复的网页。", "第二行：重复率达29%，English words too."]


def test_it_reads_a_chinese_text_layer_page_by_page(make_pdf):
    result = extract("paper.pdf", make_pdf([LINES, ["第二页的内容。"]], title="测试标题"))
    assert result.text == "\n".join(LINES) + "\n第二页的内容。"
    assert result.format == "pdf"
    assert result.title == "测试标题"
    assert result.warnings == ()


def test_lines_wrapped_inside_a_chinese_paragraph_are_rejoined_across_pages(make_pdf):
    paragraph = "中文段落在版面上被折成多行，" * 6 + "最后一行较短。"
    lines = [paragraph[i : i + 30] for i in range(0, len(paragraph), 30)]
    short = "另一段。"
    result = extract("wrapped.pdf", make_pdf([lines[:2], lines[2:] + [short]]))
    assert result.text == paragraph + "\n" + short


def test_a_short_line_ends_its_paragraph(make_pdf):
    lines = ["第一段很长很长很长很长很长很长很长很长很长很长的文字，", "第一段结束。", "第二段。"]
    result = extract("short.pdf", make_pdf([lines]))
    assert result.text.split("\n") == [lines[0] + lines[1], lines[2]]


def test_a_pdf_without_text_layer_is_an_error_not_empty_text(make_pdf):
    with pytest.raises(NoTextFound, match=r"PDF has no text layer \(scanned\?\)"):
        extract("scan.pdf", make_pdf([None, None]))


def test_pages_without_text_layer_are_reported_as_a_warning(make_pdf):
    result = extract("mixed.pdf", make_pdf([LINES, None]))
    assert result.text == "\n".join(LINES)
    assert result.warnings == ("1 of 2 pages have no text layer (scanned?)",)


def _encrypt(data: bytes, *, user: str, owner: str, algorithm: str) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user, owner_password=owner, algorithm=algorithm)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.mark.parametrize("algorithm", ["RC4-128", "AES-128"])
def test_a_password_protected_pdf_is_reported_as_encrypted(make_pdf, algorithm):
    data = _encrypt(make_pdf([LINES]), user="secret", owner="owner", algorithm=algorithm)
    with pytest.raises(EncryptedFile, match="encrypted/password-protected"):
        extract("secret.pdf", data)


def test_a_pdf_with_only_an_owner_password_is_read(make_pdf):
    # Restrictions without a user password: every reader opens it, so do we.
    data = _encrypt(make_pdf([LINES]), user="", owner="owner", algorithm="RC4-128")
    assert extract("restricted.pdf", data).text == "\n".join(LINES)


@pytest.mark.parametrize("keep", [0.2, 0.5, 0.95])
def test_a_truncated_pdf_is_corrupt(make_pdf, keep):
    data = make_pdf([LINES])
    with pytest.raises(CorruptFile, match="corrupt or truncated"):
        extract("cut.pdf", data[: int(len(data) * keep)])


def test_a_pdf_with_garbage_inside_is_corrupt(make_pdf):
    data = make_pdf([LINES])
    damaged = data[:9] + bytes(range(256)) * 8 + b"\n%%EOF\n"
    with pytest.raises(CorruptFile):
        extract("garbage.pdf", damaged)


def test_a_pdf_that_is_really_text_is_rejected():
    with pytest.raises(MismatchedFormat, match=r"not a real \.pdf file: its content is plain text"):
        extract("notes.pdf", "这其实是纯文本。".encode())


def pdf_with_content_stream(content: bytes) -> bytes:
    """A one-page PDF written by hand around one Flate-compressed content stream."""
    stream = zlib.compress(content, 9)
    font = b"/Resources<</Font<</F1<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>>>>>"
    objects = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R" + font + b">>",
        b"<</Length %d/Filter/FlateDecode>>stream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<</Root 1 0 R/Size %d>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def test_a_hand_written_pdf_is_read():
    data = pdf_with_content_stream(b"BT /F1 12 Tf 72 720 Td (Hello PDF) Tj ET")
    assert extract("tiny.pdf", data).text == "Hello PDF"


def test_a_pdf_stream_bomb_is_refused():
    # ~100 KB on disk, 100 MB once decompressed: above pypdf's per-stream cap.
    data = pdf_with_content_stream(b"BT /F1 12 Tf 72 720 Td (x) Tj ET" + b" " * 100_000_000)
    assert len(data) < 200_000
    with pytest.raises(UnsafeArchive, match="decompression bomb"):
        extract("bomb.pdf", data)
