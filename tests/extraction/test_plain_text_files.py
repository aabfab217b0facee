"""Plain text: the encoding is detected from the bytes, never assumed; newlines become "\\n"."""

from __future__ import annotations

import codecs

import pytest

from documents.extraction import CorruptFile, ExtractionError, NoTextFound, extract

ZH = (
    "互联网中存在着大量的近似重复的网页，给搜索引擎带来了很多问题。\n"
    "两个完全相同的网页的检测是比较容易的，然而在实际的情况中，几乎很少有完全相同的网页。\n"
)
ZH_TRADITIONAL = (
    "互聯網中存在著大量的近似重複的網頁，給搜索引擎帶來了很多問題。\n"
    "兩個完全相同的網頁的檢測是比較容易的，然而在實際的情況中，幾乎很少有完全相同的網頁。\n"
)


@pytest.mark.parametrize(
    ("encoding", "text", "expected_codec"),
    [
        ("utf-8", ZH, "utf-8"),
        ("gb18030", ZH, "gb18030"),
        ("gbk", ZH, "gb18030"),  # read as its superset
        ("gb2312", ZH, "gb18030"),
        ("big5", ZH_TRADITIONAL, "big5hkscs"),
    ],
)
def test_it_detects_chinese_encodings(encoding, text, expected_codec):
    result = extract("notes.txt", text.encode(encoding))
    assert result.text == text.strip("\n")
    assert result.format == "txt"
    assert codecs.lookup(result.encoding).name == expected_codec
    assert result.warnings == ()


def test_it_reads_short_gbk_text_that_statistics_alone_would_misread():
    # 4 characters: charset-normalizer alone guesses a Korean code page here.
    assert extract("a.txt", "中文测试".encode("gbk")).text == "中文测试"


def test_it_reads_short_big5_text():
    assert extract("a.txt", "中文測試資料".encode("big5")).text == "中文測試資料"


@pytest.mark.parametrize(
    ("bom", "codec"),
    [
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ],
)
def test_it_honours_a_byte_order_mark_and_drops_it(bom, codec):
    result = extract("bom.txt", bom + ZH.encode(codec))
    assert result.text == ZH.strip("\n")
    assert not result.text.startswith("\ufeff")


def test_it_normalises_crlf_and_cr_newlines():
    data = "第一行\r\n第二行\r第三行\n第四行".encode("gb18030")
    assert extract("a.txt", data).text == "第一行\n第二行\n第三行\n第四行"


def test_it_keeps_paragraph_breaks_but_collapses_blank_runs():
    data = "第一段\n\n\n\n第二段  \n".encode()
    assert extract("a.txt", data).text == "第一段\n\n第二段"


def test_a_utf8_file_cut_inside_a_character_loses_only_that_character_with_a_warning():
    data = (ZH.strip() + "完").encode("utf-8")[:-1]
    result = extract("cut.txt", data)
    assert result.text == ZH.strip()
    assert any("truncated" in warning for warning in result.warnings)


def test_binary_data_named_txt_is_rejected():
    with pytest.raises(ExtractionError, match="not text"):
        extract("a.txt", bytes(range(256)) * 4)


def test_an_empty_file_is_a_clear_error():
    with pytest.raises(NoTextFound, match="empty"):
        extract("empty.txt", b"   \n\n")


def test_undecodable_bytes_are_a_clear_error():
    # Lone continuation bytes: valid in no multi-byte encoding we try, and not text in a
    # single-byte one either (charset-normalizer rejects it).
    with pytest.raises(CorruptFile, match="not readable text"):
        extract("a.txt", b"\x80\x81\xfe\xff" * 50)


def test_corrupt_file_error_is_an_extraction_error():
    assert issubclass(CorruptFile, ExtractionError)
