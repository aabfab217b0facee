"""Plain text: the encoding is detected from the bytes, never assumed; newlines become "\\n"."""

from __future__ import annotations

import codecs

import pytest

from extraction import CorruptFile, ExtractionError, NoTextFound, extract

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


ENGLISH = (
    "The committee published its annual report on Monday morning. It describes how the water "
    "supply “improved” — the café owners agree.\n"
)


@pytest.mark.parametrize("text", [ZH, ENGLISH * 3], ids=["chinese", "english"])
@pytest.mark.parametrize("bad", [b"\xff", b"\xc3(", b"\x80\x80"], ids=["ff", "cut", "lone"])
def test_utf8_with_a_few_invalid_bytes_is_read_with_replacement_characters(text, bad):
    pieces = [text[:5], text[5 : len(text) // 2], text[len(text) // 2 :]]
    damaged = bad.join(piece.encode("utf-8") for piece in pieces) + bad
    result = extract("damaged.txt", damaged)
    assert result.encoding == "utf-8"
    assert result.text.replace("\ufffd", "").replace("(", "").strip() == text.strip()
    assert any("invalid byte sequence(s) in utf-8 text were replaced" in w for w in result.warnings)


def test_corrupt_file_error_is_an_extraction_error():
    assert issubclass(CorruptFile, ExtractionError)


# --- UTF-16 without a byte-order mark ---------------------------------------------------------

ENGLISH = (
    "Near-duplicate web pages cause many problems for search engines.\n"
    "Detecting two identical pages is easy; in practice, pages are rarely identical.\n"
)
# Long enough for statistics, varied enough not to be one repeated sentence.
ENGLISH_ESSAY = "\n".join(
    f"Paragraph {n}: {sentence}"
    for n, sentence in enumerate(
        [
            "Plagiarism detection compares a submitted essay against a collection of sources.",
            "Each document is split into sentences, and each sentence into short word sequences.",
            "Two documents that share many rare sequences are probably copied from each other.",
            "Students sometimes reorder paragraphs or replace words with synonyms to hide copying.",
            "A good detector still finds the shared passages and shows them side by side.",
        ]
        * 8
    )
)
ZH_SHORT = "近似重复的网页检测"  # 9 characters, no ASCII: no NUL byte at all in UTF-16
ZH_MIXED = "第3章 Introduction：互联网中存在着大量的近似重复的网页（near-duplicates）。\n"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize(
    "text",
    [
        "some english text about copying essays.",
        "hi",
        ENGLISH,
        ENGLISH_ESSAY,
        ZH,
        ZH_SHORT,
        ZH_MIXED,
        ZH * 200,
    ],
    ids=[
        "english",
        "two-letters",
        "english-lines",
        "english-essay",
        "zh",
        "zh-short",
        "zh-mixed",
        "zh-long",
    ],
)
def test_it_reads_utf16_without_a_byte_order_mark(codec, text):
    result = extract("essay.txt", text.encode(codec))
    assert result.text == "\n".join(line.strip() for line in text.strip("\n").split("\n"))
    assert result.encoding == codec
    assert result.warnings == ()


@pytest.mark.parametrize("text", ["從", "德觀", "中文測試", "近似重複的網頁檢測"])
def test_short_big5_text_is_not_taken_for_utf16(text):
    # Some Big5 byte pairs are common hanzi when read as UTF-16 (從, B1 71, reads 熱).
    result = extract("a.txt", text.encode("big5"))
    assert result.text == text
    assert result.encoding == "big5hkscs"


def test_sixteen_bit_numbers_are_still_binary():
    # NULs at every other byte, like UTF-16 Latin text, but 1 "character" in 8 is a control code.
    data = b"".join((number % 256).to_bytes(2, "little") for number in range(4000))
    with pytest.raises(ExtractionError, match="not text"):
        extract("numbers.txt", data)


# --- stray NUL bytes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "codec"),
    [(ENGLISH_ESSAY, "utf-8"), (ZH * 20, "utf-8"), (ZH * 20, "gb18030"), (ENGLISH * 3, "utf-8")],
    ids=["english-essay", "zh-utf8", "zh-gb18030", "english-short"],
)
def test_a_few_stray_nul_bytes_are_dropped_with_a_warning(text, codec):
    middle = len(text) // 2
    data = text[:middle].encode(codec) + b"\x00" + text[middle:].encode(codec) + b"\x00"
    result = extract("essay.txt", data)
    expected = "\n".join(line.strip() for line in text.strip("\n").split("\n"))
    assert result.text == expected
    assert "\x00" not in result.text
    assert any("2 NUL byte(s)" in warning for warning in result.warnings)


def test_a_stray_nul_byte_in_markdown_is_dropped_too():
    data = b"# Title\n\n" + ENGLISH.encode() + b"\x00\n"
    result = extract("notes.md", data)
    assert "\x00" not in result.text
    assert result.title == "Title"
    assert any("NUL" in warning for warning in result.warnings)


@pytest.mark.parametrize("data", [b"abc\x00" * 100, b"short\x00text", ENGLISH.encode() + bytes(10)])
def test_more_than_one_nul_per_100_bytes_is_binary(data):
    with pytest.raises(ExtractionError, match="not text"):
        extract("a.txt", data)


# --- Windows-1252 ------------------------------------------------------------------------------

ESSAY_SENTENCES = [
    "Plagiarism detection compares a submitted “essay” against a collection of sources.",
    "Each document is split into sentences, and each sentence into short word sequences.",
    "Two documents that share many rare sequences are probably copied from each other’s work.",
    "Students sometimes reorder paragraphs – or – replace words with synonyms to hide copying.",
    "A good detector still finds the shared passages and shows them side by side.",
]
# ~8 KB: charset-normalizer alone reads this as cp775 ("Ç" for "€", "ö" for "“"...).
ENGLISH_CP1252_ESSAY = (
    "\n".join(f"Paragraph {n}: {s}" for n, s in enumerate(ESSAY_SENTENCES * 16)) + " It’s done…"
)


@pytest.mark.parametrize(
    "text",
    [
        "He said “hello” – it’s fine… €5.",
        "Don’t panic.",
        "“Quoted” — and a dash.",
        "„Schön“, sagte er – und ging weiter… Es kostet 5 €.",
        "Die Größe der Straße überrascht mich. „Schön“, sagte er – und ging weiter… " * 4,
        ENGLISH_CP1252_ESSAY,
    ],
    ids=["short", "apostrophe", "em-dash", "german-short", "german", "english-essay"],
)
def test_it_reads_windows_1252_with_curly_quotes_and_dashes(text):
    # Other Windows code pages read some of these identically; the common one is named.
    result = extract("essay.txt", text.encode("cp1252"))
    assert result.text == "\n".join(line.strip() for line in text.split("\n"))
    assert result.encoding == "cp1252"


def test_a_dos_code_page_text_keeps_its_letters():
    # In cp852 "ů" is 0x85, "…" in cp1252: a cp1252 reading would put "…" inside words.
    text = "Příliš žluťoučký kůň úpěl ďábelské ódy. Kůň je na louce, ůhel je ostrý."
    assert extract("a.txt", text.encode("cp852")).text == text


def test_an_iso_8859_1_label_is_read_as_windows_1252():
    # Pages labelled iso-8859-1 are written by Windows tools: 0x93/0x94 are curly quotes.
    page = '<html><head><meta charset="iso-8859-1"></head><body><p>{}</p></body></html>'
    data = page.format(ENGLISH_CP1252_ESSAY.replace("\n", "</p><p>")).encode("cp1252")
    result = extract("page.html", data)
    assert result.encoding == "cp1252"
    assert "“essay”" in result.text
